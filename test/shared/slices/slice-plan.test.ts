import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ByteRange } from '../../../shared/http/range.ts';
import {
  isSliced,
  isSliceKey,
  type ObjectVersion,
  sliceBytes,
  sliceCount,
  slicedObjectKey,
  sliceKey,
  sliceLength,
  slicesFor,
  spanBytes,
  spansOf,
  wholeCopyKey,
} from '../../../shared/slices/slice-plan.ts';

const MIB = 1024 * 1024;
const VERSION: ObjectVersion = { size: 10 * MIB + 1, etag: '"v1"' };

/** Strong entity-tags for keys (their grammar is tested in test/shared/http/etag.test.ts). */
const strongEtag = fc
  .string({ unit: fc.constantFrom('a', 'b', '0', '-', '~'), maxLength: 20 })
  .map((tag) => `"${tag}"`);

/** The path segments of a URL, as the WHATWG URL parser splits them. */
function segments(url: string): string[] {
  return new URL(url).pathname.slice(1).split('/');
}

describe('sliceCount', () => {
  it('counts no slices for an empty object', () => {
    expect(sliceCount(0, MIB)).toBe(0);
  });

  it('counts one slice for an object of up to one slice size', () => {
    expect(sliceCount(1, MIB)).toBe(1);
    expect(sliceCount(MIB, MIB)).toBe(1);
  });

  it('counts a short last slice as a slice of its own', () => {
    expect(sliceCount(MIB + 1, MIB)).toBe(2);
    expect(sliceCount(10 * MIB + 1, MIB)).toBe(11);
  });
});

describe('sliceBytes', () => {
  it('gives every slice but the last exactly one slice size, aligned to it', () => {
    expect(sliceBytes(0, 4, 10)).toEqual({ start: 0, end: 3 });
    expect(sliceBytes(1, 4, 10)).toEqual({ start: 4, end: 7 });
  });

  it('cuts the last slice short at the end of the object', () => {
    expect(sliceBytes(2, 4, 10)).toEqual({ start: 8, end: 9 });
    expect(sliceBytes(10, MIB, 10 * MIB + 1)).toEqual({ start: 10 * MIB, end: 10 * MIB });
  });

  it('gives the last slice a full slice size when the object is a whole number of slices', () => {
    expect(sliceBytes(2, 4, 12)).toEqual({ start: 8, end: 11 });
  });

  it('tiles the whole object, slice after slice, with no gap and no overlap', () => {
    // At most ~1000 slices per case, so that the walk stays quick.
    const object = fc
      .integer({ min: 1, max: 10_000_000 })
      .chain((size) =>
        fc.record({ size: fc.constant(size), sliceSize: fc.integer({ min: Math.ceil(size / 1000), max: size + 10 }) }),
      );
    fc.assert(
      fc.property(object, ({ size, sliceSize }) => {
        const count = sliceCount(size, sliceSize);
        let next = 0;
        for (let index = 0; index < count; index++) {
          const bytes = sliceBytes(index, sliceSize, size);
          expect(bytes.start).toBe(next);
          expect(bytes.end - bytes.start + 1).toBe(index < count - 1 ? sliceSize : size - (count - 1) * sliceSize);
          next = bytes.end + 1;
        }
        expect(next).toBe(size);
      }),
    );
  });
});

describe('slicesFor', () => {
  it('finds the one slice a range inside it touches', () => {
    expect(slicesFor({ start: 0, end: 0 }, 4)).toEqual({ first: 0, last: 0 });
    expect(slicesFor({ start: 4, end: 7 }, 4)).toEqual({ first: 1, last: 1 });
  });

  it('finds both slices a range across a slice boundary touches', () => {
    expect(slicesFor({ start: 3, end: 4 }, 4)).toEqual({ first: 0, last: 1 });
  });

  it('finds every slice from the first byte to the last', () => {
    expect(slicesFor({ start: 5 * MIB - 1, end: 9 * MIB }, MIB)).toEqual({ first: 4, last: 9 });
  });
});

describe('spanBytes', () => {
  it('holds the bytes from the first slice of the span to the last', () => {
    expect(spanBytes({ first: 1, last: 1 }, 4, 10)).toEqual({ start: 4, end: 7 });
    expect(spanBytes({ first: 0, last: 1 }, 4, 10)).toEqual({ start: 0, end: 7 });
  });

  it('ends at the end of the object when the span holds the short last slice', () => {
    expect(spanBytes({ first: 0, last: 2 }, 4, 10)).toEqual({ start: 0, end: 9 });
    expect(spanBytes({ first: 2, last: 2 }, 4, 10)).toEqual({ start: 8, end: 9 });
  });
});

describe('slices of a byte range', () => {
  /** A size, a slice size, and a range within the object. */
  const rangeOfObject = fc
    .record({ size: fc.integer({ min: 1, max: 10_000_000 }), sliceSize: fc.integer({ min: 1, max: 100_000 }) })
    .chain(({ size, sliceSize }) =>
      fc.tuple(fc.integer({ min: 0, max: size - 1 }), fc.integer({ min: 0, max: size - 1 })).map(([a, b]) => ({
        size,
        sliceSize,
        range: { start: Math.min(a, b), end: Math.max(a, b) } satisfies ByteRange,
      })),
    );

  it('cover exactly the range: consecutive slices, the first holding its first byte and the last its last', () => {
    fc.assert(
      fc.property(rangeOfObject, ({ size, sliceSize, range }) => {
        const span = slicesFor(range, sliceSize);
        expect(span.first).toBeLessThanOrEqual(span.last);
        expect(span.last).toBeLessThan(sliceCount(size, sliceSize));
        const first = sliceBytes(span.first, sliceSize, size);
        const last = sliceBytes(span.last, sliceSize, size);
        // The first slice holds the range's first byte, the last its last byte: no slice too many.
        expect(first.start).toBeLessThanOrEqual(range.start);
        expect(first.end).toBeGreaterThanOrEqual(range.start);
        expect(last.start).toBeLessThanOrEqual(range.end);
        expect(last.end).toBeGreaterThanOrEqual(range.end);
        // And the span's bytes are exactly those of its slices, end to end.
        expect(spanBytes(span, sliceSize, size)).toEqual({ start: first.start, end: last.end });
      }),
    );
  });
});

describe('spansOf', () => {
  it('asks for nothing when no slice is missing', () => {
    expect(spansOf([], 4)).toEqual([]);
  });

  it('groups consecutive missing slices into one span', () => {
    expect(spansOf([3, 4, 5], 8)).toEqual([{ first: 3, last: 5 }]);
  });

  it('starts a new span at every gap', () => {
    expect(spansOf([0, 1, 3, 7, 8], 8)).toEqual([
      { first: 0, last: 1 },
      { first: 3, last: 3 },
      { first: 7, last: 8 },
    ]);
  });

  it('starts a new span when one reaches the most slices a request may carry', () => {
    expect(spansOf([0, 1, 2, 3, 4], 2)).toEqual([
      { first: 0, last: 1 },
      { first: 2, last: 3 },
      { first: 4, last: 4 },
    ]);
    expect(spansOf([0, 1, 2], 1)).toEqual([
      { first: 0, last: 0 },
      { first: 1, last: 1 },
      { first: 2, last: 2 },
    ]);
  });

  it('covers exactly the missing slices with as few spans as gaps and the length limit allow', () => {
    const missing = fc
      .uniqueArray(fc.integer({ min: 0, max: 200 }), { maxLength: 60 })
      .map((indices) => indices.sort((a, b) => a - b));
    fc.assert(
      fc.property(missing, fc.integer({ min: 1, max: 10 }), (indices, maxSlices) => {
        const spans = spansOf(indices, maxSlices);
        const covered = spans.flatMap((span) =>
          Array.from({ length: span.last - span.first + 1 }, (_, i) => span.first + i),
        );
        expect(covered).toEqual(indices);
        for (const [i, span] of spans.entries()) {
          expect(span.last - span.first + 1).toBeLessThanOrEqual(maxSlices);
          const previous = spans[i - 1];
          // A span follows its predecessor directly only when that one is full.
          if (previous !== undefined && previous.last + 1 === span.first)
            expect(previous.last - previous.first + 1).toBe(maxSlices);
        }
      }),
    );
  });
});

describe('slicedObjectKey', () => {
  it('reads back the object key of every slice and whole-copy key, and no other', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 60 }),
        strongEtag,
        fc.nat(10 * MIB),
        fc.nat(1000),
        (objectKey, etag, size, index) => {
          const version = { etag, size };
          for (const key of [sliceKey(objectKey, version, MIB, index), wholeCopyKey(objectKey, version, MIB)]) {
            expect(isSliceKey(key)).toBe(true);
            expect(slicedObjectKey(key)).toBe(objectKey);
          }
        },
      ),
    );
    for (const other of ['https://r2.tiercache.internal/h/a', 'https://slice.tiercache.internal/%E0%A4%A/1', 'x'])
      expect(slicedObjectKey(other)).toBeUndefined();
  });
});

describe('sliceKey', () => {
  it('lives on a host of its own that no client URL can name', () => {
    expect(new URL(sliceKey('photos/cat.jpg', VERSION, MIB, 0)).host).toBe('slice.tiercache.internal');
    expect(sliceKey('photos/cat.jpg', VERSION, MIB, 3)).toBe(
      `https://slice.tiercache.internal/photos%2Fcat.jpg/%22v1%22/${10 * MIB + 1}/${MIB}/3`,
    );
  });

  it('differs for every slice of a version', () => {
    const keys = Array.from({ length: 11 }, (_, index) => sliceKey('k', VERSION, MIB, index));
    expect(new Set(keys).size).toBe(11);
  });

  it('differs between two versions of one object, by ETag or by size', () => {
    const key = sliceKey('k', VERSION, MIB, 0);
    expect(sliceKey('k', { ...VERSION, etag: '"v2"' }, MIB, 0)).not.toBe(key);
    expect(sliceKey('k', { ...VERSION, size: VERSION.size + 1 }, MIB, 0)).not.toBe(key);
  });

  it('differs between two slicings of one version', () => {
    expect(sliceKey('k', VERSION, 2 * MIB, 0)).not.toBe(sliceKey('k', VERSION, MIB, 0));
  });

  it('differs between objects, even when their keys look like other fields', () => {
    expect(sliceKey('a/"v1"', VERSION, MIB, 0)).not.toBe(sliceKey('a', VERSION, MIB, 0));
    expect(sliceKey('a', VERSION, MIB, 0)).not.toBe(sliceKey('A', VERSION, MIB, 0));
  });

  it('keeps an object key with odd characters inside one path segment', () => {
    for (const key of [
      'a/b/c',
      'what?x=1#frag',
      '100%',
      'two words',
      '%2F',
      'ünïcødé/😀',
      'back\\slash',
      'a;b,c',
      '..a',
      '.hidden',
    ]) {
      const url = sliceKey(key, VERSION, MIB, 7);
      const parts = segments(url);
      expect(parts).toHaveLength(5);
      expect(decodeURIComponent(parts[0] ?? '')).toBe(key);
      expect(parts.slice(1)).toEqual(['%22v1%22', String(VERSION.size), String(MIB), '7']);
      expect(new URL(url).search).toBe('');
      expect(new URL(url).hash).toBe('');
    }
  });

  it('keeps any object key and any strong ETag each inside its own path segment', () => {
    // "." and ".." are dot segments the URL parser would remove; objectKeyFromPath never
    // yields either as a key (shared/request/object-key.ts), so they cannot reach sliceKey.
    const objectKey = fc
      .string({ unit: 'grapheme', minLength: 1, maxLength: 30 })
      .filter((key) => key !== '.' && key !== '..');
    fc.assert(
      fc.property(objectKey, strongEtag, fc.nat(), (key, etag, index) => {
        const url = sliceKey(key, { size: 123, etag }, 4, index);
        const parts = segments(url);
        expect(parts).toHaveLength(5);
        expect(decodeURIComponent(parts[0] ?? '')).toBe(key);
        expect(decodeURIComponent(parts[1] ?? '')).toBe(etag);
        expect(parts.slice(2)).toEqual(['123', '4', String(index)]);
      }),
    );
  });
});

describe('isSliced', () => {
  it('slices an object at or above the threshold', () => {
    expect(isSliced(8 * MIB, 8 * MIB)).toBe(true);
    expect(isSliced(8 * MIB + 1, 8 * MIB)).toBe(true);
  });

  it('serves an object below the threshold whole', () => {
    expect(isSliced(8 * MIB - 1, 8 * MIB)).toBe(false);
  });

  it('never slices an empty object, whatever the threshold', () => {
    expect(isSliced(0, 0)).toBe(false);
    expect(isSliced(0, 1)).toBe(false);
  });
});

describe('sliceLength', () => {
  it('is the slice size but for the last slice, and the lengths add up to the object', () => {
    expect(sliceLength(0, 8, 20)).toBe(8);
    expect(sliceLength(2, 8, 20)).toBe(4);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e6 }), fc.integer({ min: 1, max: 4096 }), (size, sliceSize) => {
        const lengths = Array.from({ length: sliceCount(size, sliceSize) }, (_, index) =>
          sliceLength(index, sliceSize, size),
        );
        expect(lengths.reduce((sum, n) => sum + n, 0)).toBe(size);
        expect(lengths.every((n, i) => n === (i < lengths.length - 1 ? sliceSize : size - sliceSize * i))).toBe(true);
      }),
    );
  });
});
