import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planMultipart } from '../../shared/http/multipart.ts';
import type { ByteRange } from '../../shared/http/range.ts';
import type { Piece } from '../../shared/streams/byte-stream.ts';
import {
  firstSliceHint,
  framedBody,
  planRanges,
  type RangePlan,
  unsatisfiable,
  wholeInOnePiece,
  wholePieces,
} from '../../worker/client-range.ts';
import { streamOf } from '../streams.ts';

const ETAG = '"9b2cf535f27731c974343645a3985328"';
const LAST_MODIFIED = 'Sat, 01 Aug 2026 00:00:00 GMT';
const REPRESENTATION = new Headers({ etag: ETAG, 'last-modified': LAST_MODIFIED, 'content-type': 'video/mp4' });
const MIB = 1024 * 1024;

function request(fields: Record<string, string>): Headers {
  return new Headers(fields);
}

/** An object whose every byte is distinguishable from its neighbours. */
function objectBytes(size: number): Uint8Array {
  return Uint8Array.from({ length: size }, (_, i) => (i * 7 + 3) & 0xff);
}

/** The object as slices of `sliceSize`, each arriving a byte at a time. */
function slicePieces(bytes: Uint8Array, sliceSize: number): AsyncIterator<Piece> {
  let offset = 0;
  return {
    next: async () => {
      if (offset >= bytes.length) return { done: true, value: undefined };
      const length = Math.min(sliceSize, bytes.length - offset);
      const piece: Piece = { offset, length, body: streamOf(bytes.slice(offset, offset + length), 1) };
      offset += length;
      return { done: false, value: piece };
    },
  };
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function partial(...pairs: [number, number][]): Extract<RangePlan, { kind: 'partial' }> {
  return { kind: 'partial', ranges: pairs.map(([start, end]) => ({ start, end })) };
}

/** The boundary parameter of a multipart/byteranges Content-Type. */
function boundaryOf(contentType: string | null): string {
  const boundary = /^multipart\/byteranges; boundary=([A-Za-z0-9_-]+)$/.exec(contentType ?? '')?.[1];
  if (boundary === undefined) throw new Error(`expected a multipart/byteranges Content-Type, got ${contentType}`);
  return boundary;
}

/** The multipart/byteranges body for `ranges` of `bytes`: each head, that part's bytes, then the tail. */
function multipartBody(
  bytes: Uint8Array,
  ranges: ByteRange[],
  contentType: string | null,
  boundary: string,
): Uint8Array {
  const plan = planMultipart(ranges, bytes.length, contentType, boundary);
  return new Uint8Array(
    Buffer.concat([
      ...plan.parts.flatMap((part) => [part.head, bytes.slice(part.range.start, part.range.end + 1)]),
      plan.tail,
    ]),
  );
}

describe('planRanges (RFC 9110 §14.2)', () => {
  it('sends the whole representation when there is no Range field', () => {
    expect(planRanges(request({}), 1000, REPRESENTATION)).toEqual({ kind: 'full', ranges: [{ start: 0, end: 999 }] });
  });

  it('sends an empty representation whole, with no range at all', () => {
    expect(planRanges(request({}), 0, REPRESENTATION)).toEqual({ kind: 'full', ranges: [] });
  });

  it('sends the ranges asked for, sorted and coalesced', () => {
    expect(planRanges(request({ range: 'bytes=0-99' }), 1000, REPRESENTATION)).toEqual(partial([0, 99]));
    expect(planRanges(request({ range: 'bytes=500-599, 0-9, 5-20' }), 1000, REPRESENTATION)).toEqual(
      partial([0, 20], [500, 599]),
    );
  });

  it('sends the last bytes for a suffix range', () => {
    expect(planRanges(request({ range: 'bytes=-100' }), 1000, REPRESENTATION)).toEqual(partial([900, 999]));
  });

  it('ignores an invalid Range field or another range unit, and sends the whole representation', () => {
    for (const range of ['bytes=abc', 'bytes=5-1', 'items=0-9', 'bytes 0-9', '']) {
      expect(planRanges(request({ range }), 1000, REPRESENTATION), range).toEqual({
        kind: 'full',
        ranges: [{ start: 0, end: 999 }],
      });
    }
  });

  it('is unsatisfiable when every range starts at or past the end (§15.5.17)', () => {
    expect(planRanges(request({ range: 'bytes=1000-' }), 1000, REPRESENTATION)).toEqual({ kind: 'unsatisfiable' });
    expect(planRanges(request({ range: 'bytes=2000-2999, 1000-1001' }), 1000, REPRESENTATION)).toEqual({
      kind: 'unsatisfiable',
    });
  });

  it('honours Range when If-Range names the current ETag (§13.1.5)', () => {
    expect(planRanges(request({ range: 'bytes=0-9', 'if-range': ETAG }), 1000, REPRESENTATION)).toEqual(
      partial([0, 9]),
    );
  });

  it('sends the whole representation when If-Range names another ETag (§13.1.5)', () => {
    expect(planRanges(request({ range: 'bytes=0-9', 'if-range': '"old"' }), 1000, REPRESENTATION)).toEqual({
      kind: 'full',
      ranges: [{ start: 0, end: 999 }],
    });
  });

  it('sends the whole representation when If-Range holds a weak ETag, even the current one (§13.1.5: strong comparison)', () => {
    expect(planRanges(request({ range: 'bytes=0-9', 'if-range': `W/${ETAG}` }), 1000, REPRESENTATION).kind).toBe(
      'full',
    );
  });

  it('honours Range when If-Range is the Last-Modified date, and not when it is another date', () => {
    expect(planRanges(request({ range: 'bytes=0-9', 'if-range': LAST_MODIFIED }), 1000, REPRESENTATION)).toEqual(
      partial([0, 9]),
    );
    expect(
      planRanges(request({ range: 'bytes=0-9', 'if-range': 'Sun, 02 Aug 2026 00:00:00 GMT' }), 1000, REPRESENTATION)
        .kind,
    ).toBe('full');
  });

  it('sends the whole representation rather than a 416 when If-Range does not match', () => {
    expect(planRanges(request({ range: 'bytes=5000-', 'if-range': '"old"' }), 1000, REPRESENTATION).kind).toBe('full');
  });
});

describe('firstSliceHint', () => {
  it('is the slice holding the first byte of the range', () => {
    expect(firstSliceHint(request({ range: 'bytes=0-99' }), MIB)).toBe(0);
    expect(firstSliceHint(request({ range: `bytes=${5 * MIB}-` }), MIB)).toBe(5);
    expect(firstSliceHint(request({ range: `bytes=${5 * MIB - 1}-${6 * MIB}` }), MIB)).toBe(4);
  });

  it('reads the first listed range when there are several', () => {
    expect(firstSliceHint(request({ range: `bytes=${3 * MIB}-${3 * MIB + 9}, ${7 * MIB}-` }), MIB)).toBe(3);
  });

  it('tolerates spaces and any case in the unit', () => {
    expect(firstSliceHint(request({ range: `Bytes = ${2 * MIB} - ${2 * MIB + 1}` }), MIB)).toBe(2);
  });

  it('is slice 0 without a Range field', () => {
    expect(firstSliceHint(request({}), MIB)).toBe(0);
  });

  it('is slice 0 for a suffix range, whose first byte depends on the size', () => {
    expect(firstSliceHint(request({ range: 'bytes=-500' }), MIB)).toBe(0);
  });

  it('is slice 0 for a Range field it cannot read', () => {
    for (const range of ['garbage', 'items=5000000-', 'bytes=x-1', 'bytes=']) {
      expect(firstSliceHint(request({ range }), MIB), range).toBe(0);
    }
  });
});

describe('framedBody', () => {
  const bytes = objectBytes(40);

  it('sends the whole object as a 200 with its length and no Content-Range', async () => {
    const framed = framedBody(
      { kind: 'full', ranges: [{ start: 0, end: 39 }] },
      40,
      'video/mp4',
      slicePieces(bytes, 16),
    );
    expect(framed.status).toBe(200);
    expect(framed.headers.get('content-length')).toBe('40');
    expect(framed.headers.get('accept-ranges')).toBe('bytes');
    expect(framed.headers.has('content-range')).toBe(false);
    expect(await readAll(framed.body)).toEqual(bytes);
  });

  it('sends an empty object as an empty 200', async () => {
    const framed = framedBody({ kind: 'full', ranges: [] }, 0, null, slicePieces(new Uint8Array(), 16));
    expect(framed.status).toBe(200);
    expect(framed.headers.get('content-length')).toBe('0');
    expect(await readAll(framed.body)).toEqual(new Uint8Array());
  });

  it('sends one range as a 206 with its Content-Range and length (§14.4, §15.3.7.1)', async () => {
    const framed = framedBody(partial([10, 29]), 40, 'video/mp4', slicePieces(bytes, 16));
    expect(framed.status).toBe(206);
    expect(framed.headers.get('content-range')).toBe('bytes 10-29/40');
    expect(framed.headers.get('content-length')).toBe('20');
    expect(framed.headers.get('accept-ranges')).toBe('bytes');
    // The representation's own Content-Type stays the caller's: a single part is not multipart.
    expect(framed.headers.has('content-type')).toBe(false);
    expect(await readAll(framed.body)).toEqual(bytes.slice(10, 30));
  });

  it('sends the last byte alone for a one-byte range at the end', async () => {
    const framed = framedBody(partial([39, 39]), 40, null, slicePieces(bytes, 16));
    expect(framed.headers.get('content-range')).toBe('bytes 39-39/40');
    expect(await readAll(framed.body)).toEqual(bytes.slice(39));
  });

  it('sends several ranges as one multipart/byteranges 206 of exactly its Content-Length (§15.3.7.2)', async () => {
    const ranges = [
      { start: 0, end: 4 },
      { start: 17, end: 20 },
      { start: 35, end: 39 },
    ];
    const framed = framedBody({ kind: 'partial', ranges }, 40, 'video/mp4', slicePieces(bytes, 16));
    expect(framed.status).toBe(206);
    expect(framed.headers.has('content-range')).toBe(false);
    const boundary = boundaryOf(framed.headers.get('content-type'));
    const body = await readAll(framed.body);
    expect(body).toEqual(multipartBody(bytes, ranges, 'video/mp4', boundary));
    expect(framed.headers.get('content-length')).toBe(String(body.length));
    expect(new TextDecoder('latin1').decode(body)).toContain(
      'Content-Type: video/mp4\r\nContent-Range: bytes 17-20/40\r\n\r\n',
    );
  });

  it('leaves Content-Type out of the parts when the representation has none', async () => {
    const ranges = [
      { start: 0, end: 1 },
      { start: 30, end: 31 },
    ];
    const framed = framedBody({ kind: 'partial', ranges }, 40, null, slicePieces(bytes, 16));
    const body = await readAll(framed.body);
    expect(body).toEqual(multipartBody(bytes, ranges, null, boundaryOf(framed.headers.get('content-type'))));
    expect(new TextDecoder('latin1').decode(body)).not.toContain('Content-Type');
  });

  it('picks a fresh boundary for every response', () => {
    const plan = partial([0, 1], [30, 31]);
    const first = boundaryOf(framedBody(plan, 40, null, slicePieces(bytes, 16)).headers.get('content-type'));
    const second = boundaryOf(framedBody(plan, 40, null, slicePieces(bytes, 16)).headers.get('content-type'));
    expect(first).not.toBe(second);
  });

  it('sends both ranges of bytes=0-0,-1 from a whole body that arrives in one chunk', async () => {
    const plan = planRanges(request({ range: 'bytes=0-0,-1' }), 40, REPRESENTATION);
    if (plan.kind === 'unsatisfiable') throw new Error('expected bytes=0-0,-1 to be satisfiable');
    const framed = framedBody(plan, 40, 'video/mp4', wholePieces(streamOf(bytes, 40), 40));
    const body = await readAll(framed.body);
    expect(body).toEqual(
      multipartBody(
        bytes,
        [
          { start: 0, end: 0 },
          { start: 39, end: 39 },
        ],
        'video/mp4',
        boundaryOf(framed.headers.get('content-type')),
      ),
    );
  });
});

describe('wholeInOnePiece', () => {
  const size = 10 * MIB;
  const plan = (range?: string) => planRanges(request(range === undefined ? {} : { range }), size, REPRESENTATION);

  it('frames a plain GET as 200 and bytes=0- (or 0-last, or a suffix as long as the object) as 206 of every byte', () => {
    const full = wholeInOnePiece(plan(), size);
    expect(full?.status).toBe(200);
    expect(Object.fromEntries(full?.headers ?? [])).toEqual({
      'accept-ranges': 'bytes',
      'content-length': String(size),
    });
    for (const range of ['bytes=0-', `bytes=0-${size - 1}`, `bytes=0-${size + 100}`, `bytes=-${size}`]) {
      const whole = wholeInOnePiece(plan(range), size);
      expect(whole?.status, range).toBe(206);
      expect(whole?.headers.get('content-range'), range).toBe(`bytes 0-${size - 1}/${size}`);
      expect(whole?.headers.get('content-length'), range).toBe(String(size));
    }
  });

  it('refuses anything less than every byte in one piece, in order', () => {
    for (const range of ['bytes=1-', `bytes=0-${size - 2}`, 'bytes=-1', `bytes=0-9,20-`, `bytes=${size}-`]) {
      expect(wholeInOnePiece(plan(range), size), range).toBeUndefined();
    }
    expect(wholeInOnePiece({ kind: 'full', ranges: [] }, 0)).toBeUndefined();
  });

  it('agrees with the plan: whatever it frames is the one range from 0 to the last byte', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.nat(1100),
        fc.option(fc.nat(1100), { nil: undefined }),
        (objectSize, start, end) => {
          const planned = planRanges(request({ range: `bytes=${start}-${end ?? ''}` }), objectSize, REPRESENTATION);
          const framed = wholeInOnePiece(planned, objectSize);
          const covers =
            planned.kind === 'full' ||
            (planned.kind === 'partial' &&
              planned.ranges.length === 1 &&
              planned.ranges[0]?.start === 0 &&
              planned.ranges[0]?.end === objectSize - 1);
          expect(framed !== undefined).toBe(covers);
        },
      ),
    );
  });
});

describe('unsatisfiable', () => {
  it('tells the client the current length in Content-Range (§15.5.17)', () => {
    const headers = unsatisfiable(1234);
    expect(headers.get('content-range')).toBe('bytes */1234');
    expect(headers.get('accept-ranges')).toBe('bytes');
  });
});

describe('wholePieces', () => {
  it('gives the whole body once, as one piece at offset 0, then ends', async () => {
    const pieces = wholePieces(streamOf(objectBytes(10), 10), 10);
    const first = await pieces.next();
    expect(first.done).toBe(false);
    if (first.done) return;
    expect({ offset: first.value.offset, length: first.value.length }).toEqual({ offset: 0, length: 10 });
    expect(await readAll(first.value.body)).toEqual(objectBytes(10));
    expect(await pieces.next()).toEqual({ done: true, value: undefined });
  });

  it('a whole body shorter than its length fails the ranged answer cut from it', async () => {
    const plan = planRanges(request({ range: 'bytes=2-8' }), 10, REPRESENTATION);
    if (plan.kind === 'unsatisfiable') throw new Error('expected a range');
    const framed = framedBody(plan, 10, 'video/mp4', wholePieces(streamOf(objectBytes(7), 10), 10));
    await expect(readAll(framed.body)).rejects.toThrow(/ended after 7 of 10 bytes/);
  });

  it('cancels the body when handed back before anyone took it', async () => {
    let cancelled = false;
    const pieces = wholePieces(
      streamOf(objectBytes(10), 10, () => (cancelled = true)),
      10,
    );
    expect(await pieces.return?.()).toEqual({ done: true, value: undefined });
    expect(cancelled).toBe(true);
    expect(await pieces.next()).toEqual({ done: true, value: undefined });
  });

  it('leaves the body to whoever took it when handed back afterwards', async () => {
    let cancelled = false;
    const pieces = wholePieces(
      streamOf(objectBytes(10), 10, () => (cancelled = true)),
      10,
    );
    await pieces.next();
    await pieces.return?.();
    expect(cancelled).toBe(false);
  });
});
