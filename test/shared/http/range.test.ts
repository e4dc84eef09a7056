import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ByteRange,
  contentRange,
  evaluateRange,
  ifRangeAllows,
  MAX_RANGES,
  parseContentRange,
  type RangeVerdict,
  rangeLength,
  unsatisfiedRange,
} from '../../../shared/http/range.ts';

/** A `ranges` verdict from [start, end] pairs, so expectations read like the RFC's examples. */
function ranges(...pairs: [number, number][]): RangeVerdict {
  return { kind: 'ranges', ranges: pairs.map(([start, end]) => ({ start, end })) };
}

const NONE: RangeVerdict = { kind: 'none' };
const UNSATISFIABLE: RangeVerdict = { kind: 'unsatisfiable' };

describe('evaluateRange: the examples of RFC 9110 §14.1.2, for a 10000-byte representation', () => {
  it('serves the first 500 bytes for bytes=0-499', () => {
    expect(evaluateRange('bytes=0-499', 10000)).toEqual(ranges([0, 499]));
  });

  it('serves the second 500 bytes for bytes=500-999', () => {
    expect(evaluateRange('bytes=500-999', 10000)).toEqual(ranges([500, 999]));
  });

  it('serves the final 500 bytes for the suffix range bytes=-500', () => {
    expect(evaluateRange('bytes=-500', 10000)).toEqual(ranges([9500, 9999]));
  });

  it('serves the final 500 bytes for the open range bytes=9500-', () => {
    expect(evaluateRange('bytes=9500-', 10000)).toEqual(ranges([9500, 9999]));
  });

  it('serves the first and last bytes for bytes=0-0,-1', () => {
    expect(evaluateRange('bytes=0-0,-1', 10000)).toEqual(ranges([0, 0], [9999, 9999]));
  });

  it('serves three ranges for bytes= 0-999, 4500-5499, -1000, whitespace and all', () => {
    expect(evaluateRange('bytes= 0-999, 4500-5499, -1000', 10000)).toEqual(
      ranges([0, 999], [4500, 5499], [9000, 9999]),
    );
  });

  it('coalesces the adjacent ranges of bytes=500-600,601-999 into one', () => {
    expect(evaluateRange('bytes=500-600,601-999', 10000)).toEqual(ranges([500, 999]));
  });

  it('coalesces the overlapping ranges of bytes=500-700,601-999 into one', () => {
    expect(evaluateRange('bytes=500-700,601-999', 10000)).toEqual(ranges([500, 999]));
  });
});

describe('evaluateRange', () => {
  it('serves the whole representation when there is no Range field', () => {
    expect(evaluateRange(null, 10000)).toEqual(NONE);
  });

  it('serves the whole representation for a suffix longer than it (§14.1.2)', () => {
    expect(evaluateRange('bytes=-20000', 10000)).toEqual(ranges([0, 9999]));
  });

  it('clamps a last-pos at or past the end to the last byte (§14.1.2)', () => {
    expect(evaluateRange('bytes=9000-10000', 10000)).toEqual(ranges([9000, 9999]));
    expect(evaluateRange('bytes=0-999999999999999', 10000)).toEqual(ranges([0, 9999]));
  });

  it('answers 416 when the only range starts at or past the end (§14.1.2)', () => {
    expect(evaluateRange('bytes=10000-', 10000)).toEqual(UNSATISFIABLE);
    expect(evaluateRange('bytes=10000-10005', 10000)).toEqual(UNSATISFIABLE);
  });

  it('serves the satisfiable range of a set where another starts past the end', () => {
    expect(evaluateRange('bytes=20000-30000, 0-9', 10000)).toEqual(ranges([0, 9]));
  });

  it('answers 416 for a zero-length suffix (§14.1.2: satisfiable needs "a non-zero suffix-length")', () => {
    expect(evaluateRange('bytes=-0', 10000)).toEqual(UNSATISFIABLE);
  });

  it('answers 416 for any int-range on an empty representation', () => {
    expect(evaluateRange('bytes=0-', 0)).toEqual(UNSATISFIABLE);
    expect(evaluateRange('bytes=0-0', 0)).toEqual(UNSATISFIABLE);
    expect(evaluateRange('bytes=-0', 0)).toEqual(UNSATISFIABLE);
  });

  // §14.1.2: "When a selected representation has zero length, the only satisfiable form of
  // range-spec in a GET request is a suffix-range with a non-zero suffix-length"; no Content-Range
  // can spell it, and §14.2 lets a server ignore Range for a representation with no content.
  it('serves an empty representation whole for a non-zero suffix, which is satisfiable but has no bytes', () => {
    expect(evaluateRange('bytes=-5', 0)).toEqual(NONE);
    expect(evaluateRange('bytes=0-1, -5', 0)).toEqual(NONE);
  });

  it('ignores a set with a last-pos below its first-pos (§14.1.1: that int-range "is invalid")', () => {
    expect(evaluateRange('bytes=500-499', 10000)).toEqual(NONE);
    expect(evaluateRange('bytes=0-9, 500-499', 10000)).toEqual(NONE);
  });

  it('ignores a range unit other than bytes (§14.2)', () => {
    expect(evaluateRange('items=0-1', 10000)).toEqual(NONE);
    expect(evaluateRange('bytesx=0-1', 10000)).toEqual(NONE);
  });

  it('reads the range unit case-insensitively (§14.1: "Range unit names are case-insensitive")', () => {
    expect(evaluateRange('BYTES=0-1', 10000)).toEqual(ranges([0, 1]));
    expect(evaluateRange('Bytes=-1', 10000)).toEqual(ranges([9999, 9999]));
  });

  it('skips empty list elements (§5.6.1.2)', () => {
    expect(evaluateRange('bytes=0-1,,4-5', 10000)).toEqual(ranges([0, 1], [4, 5]));
    expect(evaluateRange('bytes=, 0-1 ,\t,', 10000)).toEqual(ranges([0, 1]));
  });

  it('tolerates optional whitespace around "=" and the commas', () => {
    expect(evaluateRange(' bytes = 0-1 ,\t4-5 ', 10000)).toEqual(ranges([0, 1], [4, 5]));
  });

  it('ignores a field that is not a bytes ranges-specifier', () => {
    const garbage = [
      '',
      'bytes',
      'bytes=',
      'bytes= , ,',
      '=0-1',
      'bytes 0-1',
      'bytes=-',
      'bytes=--1',
      'bytes=1',
      'bytes=a-b',
      'bytes=0x10-0x20',
      'bytes=+1-2',
      'bytes=1-+2',
      'bytes=-+1',
      'bytes=1 - 2',
      'bytes=1-2-3',
      'bytes=0-1;2-3',
      'bytes=0-1, bytes=2-3',
      'bytes=１-２',
      'by tes=0-1',
      'bytes==0-1',
      'bytes=0-1\n',
    ];
    for (const value of garbage) expect(evaluateRange(value, 10000), JSON.stringify(value)).toEqual(NONE);
  });

  it('ignores a field with a number of more than 15 digits rather than lose precision', () => {
    expect(evaluateRange('bytes=0-1234567890123456', 10000)).toEqual(NONE);
    expect(evaluateRange('bytes=-1234567890123456', 10000)).toEqual(NONE);
    expect(evaluateRange('bytes=0000000000000001-', 10000)).toEqual(NONE);
  });

  it('ignores 17 disjoint ranges as a likely denial of service (§14.2)', () => {
    const seventeen = Array.from({ length: MAX_RANGES + 1 }, (_, i) => `${i * 10}-${i * 10 + 1}`).join(',');
    expect(evaluateRange(`bytes=${seventeen}`, 10000)).toEqual(NONE);
  });

  it('serves 16 disjoint ranges', () => {
    const sixteen = Array.from({ length: MAX_RANGES }, (_, i) => `${i * 10}-${i * 10 + 1}`).join(',');
    const verdict = evaluateRange(`bytes=${sixteen}`, 10000);
    expect(verdict.kind === 'ranges' && verdict.ranges.length).toBe(MAX_RANGES);
  });

  it('serves 17 ranges that coalesce into one', () => {
    const adjacent = Array.from({ length: MAX_RANGES + 1 }, (_, i) => `${i * 10}-${i * 10 + 9}`)
      .reverse()
      .join(',');
    expect(evaluateRange(`bytes=${adjacent}`, 10000)).toEqual(ranges([0, 169]));
  });

  it('coalesces two overlapping ranges given out of order', () => {
    expect(evaluateRange('bytes=50-99, 0-60', 10000)).toEqual(ranges([0, 99]));
  });

  it('sorts disjoint ranges given out of order', () => {
    expect(evaluateRange('bytes=-1, 0-0', 10000)).toEqual(ranges([0, 0], [9999, 9999]));
  });

  it('keeps ranges separated by a gap of one byte apart', () => {
    expect(evaluateRange('bytes=0-3, 5-6', 10)).toEqual(ranges([0, 3], [5, 6]));
  });

  it('serves the whole representation when the size is not a length', () => {
    for (const size of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])
      expect(evaluateRange('bytes=0-1', size)).toEqual(NONE);
  });
});

describe('ifRangeAllows (RFC 9110 §13.1.5)', () => {
  const validators = { etag: '"v1"', lastModified: 'Sun, 06 Nov 1994 08:49:37 GMT' };

  it('allows the range when there is no If-Range field', () => {
    expect(ifRangeAllows(null, validators)).toBe(true);
    expect(ifRangeAllows(null, { etag: null, lastModified: null })).toBe(true);
  });

  it('allows the range for a strong entity-tag that strongly matches', () => {
    expect(ifRangeAllows('"v1"', validators)).toBe(true);
    expect(ifRangeAllows(' "v1" ', validators)).toBe(true);
  });

  it('refuses the range for a weak entity-tag on either side (§8.8.3.2 strong comparison)', () => {
    expect(ifRangeAllows('W/"v1"', validators)).toBe(false);
    expect(ifRangeAllows('"v1"', { ...validators, etag: 'W/"v1"' })).toBe(false);
    expect(ifRangeAllows('W/"v1"', { ...validators, etag: 'W/"v1"' })).toBe(false);
  });

  it('refuses the range for an entity-tag that differs', () => {
    expect(ifRangeAllows('"v2"', validators)).toBe(false);
    expect(ifRangeAllows('"V1"', validators)).toBe(false);
  });

  it('refuses the range for an entity-tag when the representation has none', () => {
    expect(ifRangeAllows('"v1"', { ...validators, etag: null })).toBe(false);
  });

  it('refuses the range for a malformed entity-tag, even one equal to the ETag', () => {
    expect(ifRangeAllows('"v"1"', { ...validators, etag: '"v"1"' })).toBe(false);
    expect(ifRangeAllows('"v1', { ...validators, etag: '"v1' })).toBe(false);
  });

  it('allows the range for a date exactly equal to Last-Modified, in any HTTP-date form', () => {
    expect(ifRangeAllows('Sun, 06 Nov 1994 08:49:37 GMT', validators)).toBe(true);
    expect(ifRangeAllows('Sun Nov  6 08:49:37 1994', validators)).toBe(true);
  });

  it('refuses the range for a date one second off Last-Modified, either way ("exact match")', () => {
    expect(ifRangeAllows('Sun, 06 Nov 1994 08:49:38 GMT', validators)).toBe(false);
    expect(ifRangeAllows('Sun, 06 Nov 1994 08:49:36 GMT', validators)).toBe(false);
  });

  it('refuses the range for a value that is neither an entity-tag nor an HTTP-date', () => {
    for (const value of ['', 'v1', 'w/"v1"', '2024-01-01', 'Sun, 06 Nov 1994 08:49:37 PST'])
      expect(ifRangeAllows(value, validators), value).toBe(false);
  });

  it('refuses the range for a date when Last-Modified is absent or invalid', () => {
    expect(ifRangeAllows('Sun, 06 Nov 1994 08:49:37 GMT', { ...validators, lastModified: null })).toBe(false);
    expect(ifRangeAllows('Sun, 06 Nov 1994 08:49:37 GMT', { ...validators, lastModified: '1994-11-06' })).toBe(false);
  });
});

describe('contentRange and unsatisfiedRange (RFC 9110 §14.4)', () => {
  it('writes a satisfied range as first-last/complete-length', () => {
    expect(contentRange({ start: 0, end: 499 }, 1234)).toBe('bytes 0-499/1234');
  });

  it('writes an unsatisfied range as */complete-length', () => {
    expect(unsatisfiedRange(1234)).toBe('bytes */1234');
  });

  it('counts both ends of a range', () => {
    expect(rangeLength({ start: 0, end: 499 })).toBe(500);
    expect(rangeLength({ start: 7, end: 7 })).toBe(1);
  });
});

describe('parseContentRange (RFC 9110 §14.4)', () => {
  it('reads a satisfied range', () => {
    expect(parseContentRange('bytes 0-499/1234')).toEqual({ start: 0, end: 499, size: 1234 });
    expect(parseContentRange('bytes 1233-1233/1234')).toEqual({ start: 1233, end: 1233, size: 1234 });
  });

  it('reads an unsatisfied range', () => {
    expect(parseContentRange('bytes */1234')).toEqual({ unsatisfied: true, size: 1234 });
    expect(parseContentRange('bytes */0')).toEqual({ unsatisfied: true, size: 0 });
  });

  it('reads the range unit case-insensitively', () => {
    expect(parseContentRange('Bytes 0-0/1')).toEqual({ start: 0, end: 0, size: 1 });
  });

  it('refuses an unknown complete length, which leaves nothing to check a slice against', () => {
    expect(parseContentRange('bytes */*')).toBeUndefined();
    expect(parseContentRange('bytes 0-499/*')).toBeUndefined();
  });

  it('refuses a last-pos below the first-pos, or a complete-length not past the last-pos', () => {
    expect(parseContentRange('bytes 500-499/1234')).toBeUndefined();
    expect(parseContentRange('bytes 0-1234/1234')).toBeUndefined();
    expect(parseContentRange('bytes 0-0/0')).toBeUndefined();
  });

  it('refuses anything else', () => {
    const junk = [
      null,
      '',
      'bytes',
      'bytes 0-499',
      'items 0-1/2',
      'bytes=0-499/1234',
      'bytes -1-2/3',
      'bytes 0-/10',
      'bytes 1-2/1e3',
      'bytes 0x1-0x2/10',
      'bytes 1-2/10, bytes 3-4/10',
      'bytes 0-1234567890123456/12345678901234567',
    ];
    for (const value of junk) expect(parseContentRange(value), String(value)).toBeUndefined();
  });

  it('refuses extra spaces inside the value', () => {
    for (const value of [
      'bytes  0-499/1234',
      'bytes 0 -499/1234',
      'bytes 0- 499/1234',
      'bytes 0-499 /1234',
      'bytes 0-499/ 1234',
      'bytes * /1234',
    ]) {
      expect(parseContentRange(value), value).toBeUndefined();
    }
  });
});

/** A range-spec as written, and the bytes of a `size`-byte representation it selects. */
type Spec = { text: string; selects: (byte: number, size: number) => boolean; nonZeroSuffix: boolean };

const pos = fc.integer({ min: 0, max: 40 });
const ows = fc.constantFrom('', ' ', '\t', ' \t ');
const spec: fc.Arbitrary<Spec> = fc.oneof(
  fc.tuple(pos, fc.option(fc.nat(40), { nil: undefined })).map(([first, extra]) => ({
    text: `${first}-${extra === undefined ? '' : first + extra}`,
    selects: (byte: number) => byte >= first && (extra === undefined || byte <= first + extra),
    nonZeroSuffix: false,
  })),
  pos.map((length) => ({
    text: `-${length}`,
    selects: (byte: number, size: number) => byte >= size - length,
    nonZeroSuffix: length > 0,
  })),
);
const rangeSet = fc
  .array(fc.tuple(ows, fc.option(spec, { nil: undefined, freq: 8 }), ows), { minLength: 1, maxLength: 24 })
  .filter((elements) => elements.some(([, s]) => s !== undefined));

/** Maximal runs of consecutive selected bytes: what a coalesced answer must be, exactly. */
function runs(selected: boolean[]): ByteRange[] {
  const result: ByteRange[] = [];
  selected.forEach((isSelected, byte) => {
    const last = result.at(-1);
    if (!isSelected) return;
    if (last !== undefined && last.end === byte - 1) last.end = byte;
    else result.push({ start: byte, end: byte });
  });
  return result;
}

describe('evaluateRange properties', () => {
  it('never throws, for any string and any size', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          fc.string({ unit: fc.constantFrom('b', 'y', 't', 'e', 's', '=', '-', ',', ' ', '0', '1', '9') }),
        ),
        fc.integer({ min: 0, max: 2 ** 40 }),
        (value, size) => {
          expect(() => evaluateRange(value, size)).not.toThrow();
          expect(() => evaluateRange(`bytes=${value}`, size)).not.toThrow();
        },
      ),
    );
  });

  it('only ever serves non-empty, in-bounds, sorted, disjoint, non-adjacent ranges, at most MAX_RANGES of them', () => {
    const header = fc.oneof(
      fc.string({ unit: fc.constantFrom('-', ',', ' ', '0', '1', '5', '9') }).map((s) => `bytes=${s}`),
      rangeSet.map(
        (elements) => `bytes=${elements.map(([before, s, after]) => before + (s?.text ?? '') + after).join(',')}`,
      ),
    );
    fc.assert(
      fc.property(
        header,
        fc.oneof(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 2 ** 40 })),
        (value, size) => {
          const verdict = evaluateRange(value, size);
          if (verdict.kind !== 'ranges') return;
          expect(verdict.ranges.length).toBeGreaterThan(0);
          expect(verdict.ranges.length).toBeLessThanOrEqual(MAX_RANGES);
          verdict.ranges.forEach((range, i) => {
            expect(0 <= range.start && range.start <= range.end && range.end < size).toBe(true);
            const next = verdict.ranges[i + 1];
            if (next !== undefined) expect(range.end + 1).toBeLessThan(next.start);
          });
        },
      ),
    );
  });

  it('serves exactly the bytes the satisfiable range-specs select, byte by byte', () => {
    fc.assert(
      fc.property(rangeSet, fc.integer({ min: 0, max: 40 }), (elements, size) => {
        const specs = elements.flatMap(([, s]) => (s === undefined ? [] : [s]));
        const header = `bytes=${elements.map(([before, s, after]) => before + (s?.text ?? '') + after).join(',')}`;
        const selected = Array.from({ length: size }, (_, byte) => specs.some((s) => s.selects(byte, size)));
        const expected = runs(selected);
        const verdict = evaluateRange(header, size);
        if (size === 0 && specs.some((s) => s.nonZeroSuffix)) expect(verdict).toEqual(NONE);
        else if (expected.length === 0) expect(verdict).toEqual(UNSATISFIABLE);
        else if (expected.length > MAX_RANGES) expect(verdict).toEqual(NONE);
        else expect(verdict).toEqual({ kind: 'ranges', ranges: expected });
      }),
      { numRuns: 2000 },
    );
  });
});

describe('Content-Range properties', () => {
  it('reads back every Content-Range it writes', () => {
    const slice = fc
      .integer({ min: 1, max: 2 ** 49 })
      .chain((size) =>
        fc
          .tuple(fc.integer({ min: 0, max: size - 1 }), fc.integer({ min: 0, max: size - 1 }))
          .map(([a, b]) => ({ size, range: { start: Math.min(a, b), end: Math.max(a, b) } })),
      );
    fc.assert(
      fc.property(slice, ({ size, range }) => {
        expect(parseContentRange(contentRange(range, size))).toEqual({ ...range, size });
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 49 }), (size) => {
        expect(parseContentRange(unsatisfiedRange(size))).toEqual({ unsatisfied: true, size });
      }),
    );
  });

  it('never throws, for any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        expect(() => parseContentRange(value)).not.toThrow();
      }),
    );
  });
});
