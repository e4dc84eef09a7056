import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SPAN_HEADER } from '../../../shared/hop/slice-protocol.ts';
import {
  isManifest,
  isSliceEntry,
  manifestHeaders,
  markObject,
  OBJECT_HEADER,
  type ObjectMeta,
  objectMarker,
  PIN_HEADER,
  parseObjectMarker,
  readManifest,
  readMarks,
  representationHeaders,
  SLICE_HEADER,
  slicedMeta,
  sliceEntryHeaders,
} from '../../../shared/slices/object-meta.ts';

const MIB = 1024 * 1024;
const THRESHOLD = 8 * MIB;

/** The headers of an origin's 206 for the first slice of a large object. */
function upstreamHeaders(overrides: Record<string, string> = {}): Headers {
  return new Headers({
    'content-type': 'video/mp4',
    'content-length': String(MIB),
    'content-range': `bytes 0-${MIB - 1}/${100 * MIB}`,
    etag: '"9b2cf535f27731c974343645a3985328"',
    'last-modified': 'Sat, 01 Aug 2026 00:00:00 GMT',
    'cache-control': 'public, max-age=3600',
    'accept-ranges': 'bytes',
    'transfer-encoding': 'chunked',
    connection: 'keep-alive',
    'keep-alive': 'timeout=5',
    age: '12',
    'server-timing': 'origin;dur=40',
    ...overrides,
  });
}

function sorted(headers: Headers): [string, string][] {
  return [...headers].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function meta(overrides: Partial<ObjectMeta> = {}): ObjectMeta {
  const sliced = slicedMeta(100 * MIB, upstreamHeaders(), MIB, THRESHOLD);
  if (sliced === undefined) throw new Error('expected a 100 MiB object with a strong ETag to be sliced');
  return { ...sliced, ...overrides };
}

/** Stored manifest headers with the marker replaced. */
function withMarker(marker: string | null): Headers {
  const headers = manifestHeaders(meta());
  if (marker === null) headers.delete(OBJECT_HEADER);
  else headers.set(OBJECT_HEADER, marker);
  return headers;
}

const PER_MESSAGE = [
  'content-length',
  'content-range',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'age',
  'server-timing',
];

describe('representationHeaders', () => {
  it('keeps the fields that describe the representation and how to cache it', () => {
    const kept = representationHeaders(upstreamHeaders());
    expect(kept.get('content-type')).toBe('video/mp4');
    expect(kept.get('etag')).toBe('"9b2cf535f27731c974343645a3985328"');
    expect(kept.get('last-modified')).toBe('Sat, 01 Aug 2026 00:00:00 GMT');
    expect(kept.get('cache-control')).toBe('public, max-age=3600');
    expect(kept.get('accept-ranges')).toBe('bytes');
  });

  it('drops the fields that belong to one message: framing, hop-by-hop, age and timing', () => {
    const kept = representationHeaders(upstreamHeaders());
    for (const name of PER_MESSAGE) expect(kept.has(name), name).toBe(false);
  });

  it("drops this project's own fields: manifest and slice markers, the shield's span answer, any other", () => {
    const kept = representationHeaders(
      new Headers({
        [OBJECT_HEADER]: 'size=1; slice=1',
        [SLICE_HEADER]: '0',
        [SPAN_HEADER]: '0-0',
        'x-tiercache-entry': '{}',
        'content-type': 'text/plain',
      }),
    );
    expect(sorted(kept)).toEqual([['content-type', 'text/plain']]);
  });

  it('leaves the headers it was given untouched', () => {
    const original = upstreamHeaders();
    const before = sorted(original);
    representationHeaders(original);
    expect(sorted(original)).toEqual(before);
  });
});

describe('slicedMeta', () => {
  it('describes an object at or above the threshold with a strong ETag', () => {
    const sliced = slicedMeta(THRESHOLD, upstreamHeaders(), MIB, THRESHOLD);
    expect(sliced).toMatchObject({ size: THRESHOLD, sliceSize: MIB, etag: '"9b2cf535f27731c974343645a3985328"' });
    expect(sliced?.headers.has('content-range')).toBe(false);
    expect(sliced?.headers.has('content-length')).toBe(false);
    expect(sliced?.headers.get('content-type')).toBe('video/mp4');
  });

  it('refuses an object below the threshold: it is served whole', () => {
    expect(slicedMeta(THRESHOLD - 1, upstreamHeaders(), MIB, THRESHOLD)).toBeUndefined();
  });

  it('refuses an empty object whatever the threshold', () => {
    expect(slicedMeta(0, upstreamHeaders(), MIB, 0)).toBeUndefined();
  });

  it('refuses a weak ETag, which cannot pin slices to one version (RFC 9110 §8.8.1)', () => {
    expect(slicedMeta(100 * MIB, upstreamHeaders({ etag: 'W/"9b2c"' }), MIB, THRESHOLD)).toBeUndefined();
  });

  it('refuses an object without an ETag whose Last-Modified is not known strong (no Date), or with an ETag that is not a quoted tag', () => {
    const headers = upstreamHeaders();
    headers.delete('etag');
    expect(slicedMeta(100 * MIB, headers, MIB, THRESHOLD)).toBeUndefined();
    expect(slicedMeta(100 * MIB, upstreamHeaders({ etag: '9b2c' }), MIB, THRESHOLD)).toBeUndefined();
  });

  it('describes an object without an ETag by its Last-Modified and size, when its Date is a second or more after it (RFC 9110 §8.8.2.2)', () => {
    const headers = upstreamHeaders({ date: 'Sat, 01 Aug 2026 00:00:01 GMT' });
    headers.delete('etag');
    const sliced = slicedMeta(100 * MIB, headers, MIB, THRESHOLD);
    expect(sliced).toMatchObject({
      size: 100 * MIB,
      sliceSize: MIB,
      etag: `modified=${Date.UTC(2026, 7, 1) / 1000};length=${100 * MIB}`,
    });
    // The representation is the origin's: no ETag made up for it.
    expect(sliced?.headers.has('etag')).toBe(false);
    expect(sliced?.headers.get('last-modified')).toBe('Sat, 01 Aug 2026 00:00:00 GMT');
    const sameSecond = upstreamHeaders({ date: 'Sat, 01 Aug 2026 00:00:00 GMT' });
    sameSecond.delete('etag');
    expect(slicedMeta(100 * MIB, sameSecond, MIB, THRESHOLD)).toBeUndefined();
  });

  it('refuses a weak ETag beside a strong Last-Modified: the object is served whole, as before', () => {
    const headers = upstreamHeaders({ etag: 'W/"9b2c"', date: 'Sun, 02 Aug 2026 00:00:00 GMT' });
    expect(slicedMeta(100 * MIB, headers, MIB, THRESHOLD)).toBeUndefined();
  });
});

describe('manifestHeaders', () => {
  it('marks the manifest with the size, the slice size and the version its slices are pinned to', () => {
    expect(manifestHeaders(meta()).get(OBJECT_HEADER)).toBe(`size=${100 * MIB}; slice=${MIB}`);
    expect(manifestHeaders(meta()).get(PIN_HEADER)).toBe('"9b2cf535f27731c974343645a3985328"');
  });

  it('announces an empty body', () => {
    expect(manifestHeaders(meta()).get('content-length')).toBe('0');
  });

  it('keeps the representation headers and no per-message ones', () => {
    const headers = manifestHeaders(meta({ headers: upstreamHeaders() }));
    expect(headers.get('etag')).toBe('"9b2cf535f27731c974343645a3985328"');
    expect(headers.get('content-type')).toBe('video/mp4');
    for (const name of PER_MESSAGE.filter((name) => name !== 'content-length'))
      expect(headers.has(name), name).toBe(false);
  });
});

describe('readManifest', () => {
  it('reads back the object a manifest was written for', () => {
    const written = meta();
    const read = readManifest(manifestHeaders(written));
    expect(read).toMatchObject({ size: written.size, sliceSize: written.sliceSize, etag: written.etag });
    expect(sorted(read?.headers ?? new Headers())).toEqual(sorted(written.headers));
  });

  it('reads back any size up to 2^53 - 1 and any slice size, and the strong ETag, exactly', () => {
    const etag = fc.stringMatching(/^[!#-~]{0,20}$/).map((tag) => `"${tag}"`);
    fc.assert(
      fc.property(fc.maxSafeNat(), fc.integer({ min: 1, max: 999_999_999 }), etag, (size, sliceSize, tag) => {
        const written: ObjectMeta = {
          size,
          sliceSize,
          etag: tag,
          headers: new Headers({ etag: tag, 'content-type': 'application/octet-stream' }),
        };
        const read = readManifest(manifestHeaders(written));
        expect(read).toMatchObject({ size, sliceSize, etag: tag });
        expect(sorted(read?.headers ?? new Headers())).toEqual(sorted(written.headers));
      }),
    );
  });

  it("does not carry the marker or the manifest's own Content-Length into the representation", () => {
    const read = readManifest(manifestHeaders(meta()));
    expect(read?.headers.has(OBJECT_HEADER)).toBe(false);
    expect(read?.headers.has('content-length')).toBe(false);
  });

  it('refuses an entry without the marker: it is a whole object, not a manifest', () => {
    expect(readManifest(withMarker(null))).toBeUndefined();
    expect(readManifest(upstreamHeaders())).toBeUndefined();
  });

  it('refuses a garbled marker', () => {
    // (Headers trims a value's leading and trailing whitespace, so only inner spacing can be wrong.)
    for (const marker of [
      '',
      'size=; slice=1',
      'size=10;slice=2',
      'size=10;  slice=2',
      'size=10 ; slice=2',
      'slice=2; size=10',
      'size=-1; slice=2',
      'size=1.5; slice=2',
      'size=1e6; slice=2',
      'size=0x10; slice=2',
      'size=10; slice=2; extra=1',
      'size=12345678901234567; slice=2',
      'size=10; slice=1234567890',
      'whole',
      'SIZE=10; SLICE=2',
    ]) {
      expect(readManifest(withMarker(marker)), marker).toBeUndefined();
    }
  });

  it('refuses a manifest without a strong pinned version: one written before the pin had its own field, or a weak, unquoted or spaced one', () => {
    for (const pin of [null, '', 'W/"abc"', 'abc', '"a b"', '"a"x', '""a""']) {
      const headers = manifestHeaders(meta());
      if (pin === null) headers.delete(PIN_HEADER);
      else headers.set(PIN_HEADER, pin);
      expect(readManifest(headers), String(pin)).toBeUndefined();
      expect(isManifest(headers)).toBe(true);
    }
  });

  it('pins the version its marks name, whatever a 304 or a field list left of the ETag field (RFC 9111 §4.3.4)', () => {
    for (const etag of ['W/"9b2cf535f27731c974343645a3985328"', 'W/"other"', '"other"', 'abc', null]) {
      const headers = manifestHeaders(meta());
      if (etag === null) headers.delete('etag');
      else headers.set('etag', etag);
      const read = readManifest(headers);
      expect(read?.etag, String(etag)).toBe('"9b2cf535f27731c974343645a3985328"');
      // The representation is served as it now stands.
      expect(read?.headers.get('etag') ?? null).toBe(etag);
    }
  });

  it('says an entry is a manifest by its marker, whether or not the marker reads', () => {
    expect(isManifest(manifestHeaders(meta()))).toBe(true);
    expect(isManifest(withMarker('garbled'))).toBe(true);
    expect(isManifest(upstreamHeaders())).toBe(false);
  });
});

describe('slice entries', () => {
  it('recognises the slice it was written for', () => {
    expect(isSliceEntry(sliceEntryHeaders(3, MIB), 3, MIB)).toBe(true);
  });

  it('stores each slice as plain bytes of a known length', () => {
    const headers = sliceEntryHeaders(3, MIB);
    expect(headers.get('content-type')).toBe('application/octet-stream');
    expect(headers.get('content-length')).toBe(String(MIB));
    expect(headers.get(SLICE_HEADER)).toBe('3');
  });

  it('refuses another slice of the same object', () => {
    expect(isSliceEntry(sliceEntryHeaders(3, MIB), 4, MIB)).toBe(false);
    expect(isSliceEntry(sliceEntryHeaders(13, MIB), 1, MIB)).toBe(false);
  });

  it('refuses a slice of another length: a short one is never served', () => {
    expect(isSliceEntry(sliceEntryHeaders(3, MIB - 1), 3, MIB)).toBe(false);
  });

  it('refuses an entry without the slice marker, such as a whole object or a manifest', () => {
    expect(isSliceEntry(new Headers({ 'content-length': String(MIB) }), 0, MIB)).toBe(false);
    expect(isSliceEntry(manifestHeaders(meta()), 0, 0)).toBe(false);
  });

  it('refuses an entry without a Content-Length', () => {
    expect(isSliceEntry(new Headers({ [SLICE_HEADER]: '0' }), 0, MIB)).toBe(false);
  });
});

describe('the object marker', () => {
  it('reads back what it writes, and refuses a slice size of zero (no slice count could follow)', () => {
    expect(parseObjectMarker(objectMarker({ size: 123, sliceSize: 8 }))).toEqual({ size: 123, sliceSize: 8 });
    expect(parseObjectMarker('size=123; slice=0')).toBeUndefined();
    expect(parseObjectMarker('whole')).toBeUndefined();
    expect(parseObjectMarker(null)).toBeUndefined();
  });

  it('marks and reads back any size, slice size and strong entity-tag (RFC 9110 §8.8.3: any etagc)', () => {
    const etag = fc.stringMatching(/^[!#-~]{0,24}$/).map((tag) => `"${tag}"`);
    fc.assert(
      fc.property(fc.maxSafeNat(), fc.integer({ min: 1, max: 999_999_999 }), etag, (size, sliceSize, tag) => {
        expect(readMarks(markObject(new Headers({ etag: 'W/"x"' }), { size, sliceSize, etag: tag }))).toEqual({
          size,
          sliceSize,
          etag: tag,
        });
      }),
    );
  });

  it('marks and reads back the pin of an object without an ETag, which no client sees', () => {
    const pin = 'modified=1785542400;length=104857600';
    const marked = markObject(new Headers({ 'last-modified': 'Sat, 01 Aug 2026 00:00:00 GMT' }), {
      size: 100 * MIB,
      sliceSize: MIB,
      etag: pin,
    });
    expect(readMarks(marked)).toEqual({ size: 100 * MIB, sliceSize: MIB, etag: pin });
    expect(representationHeaders(marked).has(PIN_HEADER)).toBe(false);
    expect(representationHeaders(marked).has('etag')).toBe(false);
  });

  it('reads no pin that is neither a strong entity-tag nor a Last-Modified pin', () => {
    for (const pin of ['W/"x"', 'x', 'modified=1785542400', 'modified=x;length=1']) {
      expect(readMarks(markObject(new Headers(), { size: 1, sliceSize: 1, etag: pin })), pin).toBeUndefined();
    }
  });

  it('reads no marker from any other string but the one it writes', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (value) => {
        const read = parseObjectMarker(value);
        if (read !== undefined) expect(objectMarker(read)).toBe(value);
      }),
    );
  });
});
