import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BOUNDARY_BYTES, boundaryFrom, type MultipartPlan, planMultipart } from '../../../shared/http/multipart.ts';
import { type ByteRange, evaluateRange } from '../../../shared/http/range.ts';
import { concat } from '../../streams.ts';

/** RFC 2046 §5.1.1, written out independently: 1-70 bchars, the last not a space. */
const BCHARS_NOSPACE = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'()+_,-./:=?";
function isBoundary(value: string): boolean {
  return (
    value.length >= 1 &&
    value.length <= 70 &&
    [...value].every((c) => c === ' ' || BCHARS_NOSPACE.includes(c)) &&
    !value.endsWith(' ')
  );
}

/** A representation whose every byte is distinguishable from its neighbours. */
function representation(size: number): Uint8Array {
  return Uint8Array.from({ length: size }, (_, i) => (i * 7 + 3) & 0xff);
}

/** The whole body as a client would receive it: each head, that part's bytes, then the tail. */
function body(plan: MultipartPlan, bytes: Uint8Array): Uint8Array {
  const chunks = plan.parts.flatMap((part) => [part.head, bytes.slice(part.range.start, part.range.end + 1)]);
  chunks.push(plan.tail);
  return concat(chunks);
}

type ParsedPart = { headers: Record<string, string>; bytes: Uint8Array };

/**
 * A small multipart reader of its own: the body must open with the dash-boundary, each later
 * part starts after CRLF dash-boundary CRLF, and the body ends with CRLF dash-boundary "--" CRLF.
 */
function parseMultipart(data: Uint8Array, contentType: string): ParsedPart[] {
  const match = /^multipart\/byteranges; boundary=(?:"([^"]+)"|([^";]+))$/.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (boundary === undefined) throw new Error(`no boundary in ${contentType}`);
  const text = String.fromCharCode(...data);
  const close = `\r\n--${boundary}--\r\n`;
  if (!text.startsWith(`--${boundary}\r\n`) || !text.endsWith(close))
    throw new Error('body is not framed by the boundary');
  const inner = text.slice(`--${boundary}\r\n`.length, text.length - close.length);
  return inner.split(`\r\n--${boundary}\r\n`).map((part) => {
    const blank = part.indexOf('\r\n\r\n');
    if (blank === -1) throw new Error('part without a blank line after its headers');
    const headers = Object.fromEntries(
      part
        .slice(0, blank)
        .split('\r\n')
        .map((line) => {
          const colon = line.indexOf(': ');
          return [line.slice(0, colon).toLowerCase(), line.slice(colon + 2)];
        }),
    );
    return { headers, bytes: Uint8Array.from(part.slice(blank + 4), (c) => c.charCodeAt(0)) };
  });
}

const BOUNDARY = 'THIS_STRING_SEPARATES';

describe('planMultipart (RFC 9110 §14.6)', () => {
  it('frames the RFC example: a delimiter, Content-Type and Content-Range before each part', () => {
    const plan = planMultipart(
      [
        { start: 500, end: 999 },
        { start: 7000, end: 7999 },
      ],
      8000,
      'application/pdf',
      BOUNDARY,
    );
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    expect(plan.contentType).toBe('multipart/byteranges; boundary=THIS_STRING_SEPARATES');
    expect(plan.parts.map((part) => decode(part.head))).toEqual([
      '--THIS_STRING_SEPARATES\r\nContent-Type: application/pdf\r\nContent-Range: bytes 500-999/8000\r\n\r\n',
      '\r\n--THIS_STRING_SEPARATES\r\nContent-Type: application/pdf\r\nContent-Range: bytes 7000-7999/8000\r\n\r\n',
    ]);
    expect(decode(plan.tail)).toBe('\r\n--THIS_STRING_SEPARATES--\r\n');
  });

  it('declares a Content-Length equal to the length of the body it frames', () => {
    const bytes = representation(8000);
    const plan = planMultipart(
      [
        { start: 0, end: 0 },
        { start: 500, end: 999 },
        { start: 7999, end: 7999 },
      ],
      8000,
      'application/pdf',
      BOUNDARY,
    );
    expect(plan.contentLength).toBe(body(plan, bytes).length);
  });

  it('frames parts that a separate reader splits back into the right headers and bytes', () => {
    const bytes = representation(8000);
    const ranges = [
      { start: 0, end: 99 },
      { start: 500, end: 999 },
      { start: 7000, end: 7999 },
    ];
    const plan = planMultipart(ranges, 8000, 'video/mp4', BOUNDARY);
    const parts = parseMultipart(body(plan, bytes), plan.contentType);
    expect(parts.map((part) => part.headers)).toEqual(
      ranges.map((r) => ({ 'content-type': 'video/mp4', 'content-range': `bytes ${r.start}-${r.end}/8000` })),
    );
    parts.forEach((part, i) => {
      expect(part.bytes).toEqual(bytes.slice(ranges[i]!.start, ranges[i]!.end + 1));
    });
  });

  it('omits the part Content-Type when the representation has none', () => {
    const plan = planMultipart(
      [
        { start: 0, end: 1 },
        { start: 5, end: 6 },
      ],
      10,
      null,
      BOUNDARY,
    );
    const parts = parseMultipart(body(plan, representation(10)), plan.contentType);
    expect(parts.map((part) => part.headers)).toEqual([
      { 'content-range': 'bytes 0-1/10' },
      { 'content-range': 'bytes 5-6/10' },
    ]);
  });

  it('frames a single part when only one range is given', () => {
    const plan = planMultipart([{ start: 2, end: 4 }], 10, 'text/plain', BOUNDARY);
    const parts = parseMultipart(body(plan, representation(10)), plan.contentType);
    expect(parts).toHaveLength(1);
    expect(parts[0]?.bytes).toEqual(representation(10).slice(2, 5));
  });

  it('keeps a part Content-Type with obs-text as one byte per character', () => {
    const plan = planMultipart([{ start: 0, end: 0 }], 1, 'text/plain; x=caf\u00e9', BOUNDARY);
    expect([...plan.parts[0]!.head].includes(0xe9)).toBe(true);
    expect(plan.contentLength).toBe(body(plan, representation(1)).length);
  });

  it('quotes a boundary that is not a token', () => {
    const plan = planMultipart([{ start: 0, end: 0 }], 1, null, 'a b:c?');
    expect(plan.contentType).toBe('multipart/byteranges; boundary="a b:c?"');
    expect(parseMultipart(body(plan, representation(1)), plan.contentType)).toHaveLength(1);
  });

  it('refuses an invalid boundary, no ranges, a range outside the representation and a broken Content-Type', () => {
    for (const boundary of ['', 'x'.repeat(71), 'ends with space ', 'semi;colon', 'quote"', 'new\r\nline']) {
      expect(() => planMultipart([{ start: 0, end: 0 }], 1, null, boundary), JSON.stringify(boundary)).toThrow(
        RangeError,
      );
    }
    expect(() => planMultipart([], 1, null, BOUNDARY)).toThrow(RangeError);
    for (const range of [
      { start: 0, end: 10 },
      { start: -1, end: 0 },
      { start: 5, end: 4 },
      { start: 0.5, end: 1 },
    ]) {
      expect(() => planMultipart([range], 10, null, BOUNDARY), JSON.stringify(range)).toThrow(RangeError);
    }
    expect(() => planMultipart([{ start: 0, end: 0 }], 1, 'text/plain\r\nX-Injected: 1', BOUNDARY)).toThrow(RangeError);
  });
});

describe('boundaryFrom', () => {
  it('makes a valid boundary that is also a token from any random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: BOUNDARY_BYTES, maxLength: 200 }), (bytes) => {
        const boundary = boundaryFrom(bytes);
        expect(isBoundary(boundary)).toBe(true);
        expect(boundary).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(() => planMultipart([{ start: 0, end: 0 }], 1, null, boundary)).not.toThrow();
      }),
    );
  });

  it('makes 24 characters of BOUNDARY_BYTES bytes, and at most 70 of many', () => {
    expect(boundaryFrom(new Uint8Array(BOUNDARY_BYTES))).toHaveLength(24);
    expect(boundaryFrom(new Uint8Array(1000).fill(0xff))).toHaveLength(70);
  });

  it('makes different boundaries of different bytes, and the same of the same', () => {
    const a = Uint8Array.from({ length: BOUNDARY_BYTES }, (_, i) => i);
    const b = Uint8Array.from({ length: BOUNDARY_BYTES }, (_, i) => i + 1);
    expect(boundaryFrom(a)).not.toBe(boundaryFrom(b));
    expect(boundaryFrom(a)).toBe(boundaryFrom(a.slice()));
  });

  it('refuses fewer than BOUNDARY_BYTES bytes, which would make a guessable boundary', () => {
    expect(() => boundaryFrom(new Uint8Array(BOUNDARY_BYTES - 1))).toThrow(RangeError);
  });
});

describe('planMultipart properties', () => {
  const request = fc.integer({ min: 1, max: 300 }).chain((size) =>
    fc.record({
      size: fc.constant(size),
      ranges: fc
        .array(fc.tuple(fc.nat(size - 1), fc.nat(size - 1)), { minLength: 1, maxLength: 16 })
        .map((pairs): ByteRange[] => pairs.map(([a, b]) => ({ start: Math.min(a, b), end: Math.max(a, b) }))),
      type: fc.option(fc.constantFrom('application/octet-stream', 'text/html; charset=utf-8'), { nil: null }),
      random: fc.uint8Array({ minLength: BOUNDARY_BYTES, maxLength: 52 }),
    }),
  );

  it('frames any ranges so that the body has the declared length and reads back part by part', () => {
    fc.assert(
      fc.property(request, ({ size, ranges, type, random }) => {
        const bytes = representation(size);
        const plan = planMultipart(ranges, size, type, boundaryFrom(random));
        const data = body(plan, bytes);
        expect(plan.contentLength).toBe(data.length);
        const parts = parseMultipart(data, plan.contentType);
        expect(parts).toHaveLength(ranges.length);
        parts.forEach((part, i) => {
          const range = ranges[i]!;
          expect(part.headers).toEqual({
            ...(type === null ? {} : { 'content-type': type }),
            'content-range': `bytes ${range.start}-${range.end}/${size}`,
          });
          expect(part.bytes).toEqual(bytes.slice(range.start, range.end + 1));
        });
      }),
    );
  });

  it('frames what evaluateRange serves', () => {
    const verdict = evaluateRange('bytes=0-0, -1, 10-19', 100);
    if (verdict.kind !== 'ranges') throw new Error(`expected ranges, got ${verdict.kind}`);
    const plan = planMultipart(verdict.ranges, 100, 'text/plain', BOUNDARY);
    const parts = parseMultipart(body(plan, representation(100)), plan.contentType);
    expect(parts.map((part) => part.headers['content-range'])).toEqual([
      'bytes 0-0/100',
      'bytes 10-19/100',
      'bytes 99-99/100',
    ]);
  });
});
