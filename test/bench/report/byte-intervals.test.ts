// The egress bench's interval folding (bench/report/byte-intervals.ts): by examples, and against a byte-by-byte count
// on random intervals.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coverage, describeIntervals, servedInterval } from '../../../bench/report/byte-intervals.ts';

describe('coverage', () => {
  it('counts nothing twice when each byte is sent once, adjacent intervals included (half-open)', () => {
    expect(
      coverage([
        { start: 0, end: 5 },
        { start: 5, end: 9 },
      ]),
    ).toEqual({ sentBytes: 9, distinctBytes: 9, repeatedBytes: 0, excessBytes: 0 });
  });

  it('a slice fetched again after a cut: the part sent before the cut is sent twice', () => {
    const mib = 2 ** 20;
    expect(
      coverage([
        { start: 0, end: mib },
        { start: 0, end: 8 * mib },
      ]),
    ).toEqual({ sentBytes: 9 * mib, distinctBytes: 8 * mib, repeatedBytes: mib, excessBytes: mib });
  });

  it('three times over: repeated once, in excess twice', () => {
    const same = { start: 10, end: 20 };
    expect(coverage([same, same, same])).toEqual({
      sentBytes: 30,
      distinctBytes: 10,
      repeatedBytes: 10,
      excessBytes: 20,
    });
  });

  it('ignores empty and inverted intervals', () => {
    expect(
      coverage([
        { start: 4, end: 4 },
        { start: 9, end: 2 },
        { start: 0, end: 1 },
      ]),
    ).toEqual({
      sentBytes: 1,
      distinctBytes: 1,
      repeatedBytes: 0,
      excessBytes: 0,
    });
  });

  it('agrees with counting each byte, on any intervals', () => {
    const interval = fc.tuple(fc.nat(60), fc.nat(60)).map(([start, length]) => ({ start, end: start + length }));
    fc.assert(
      fc.property(fc.array(interval, { maxLength: 12 }), (intervals) => {
        const depth = new Array<number>(121).fill(0);
        for (const { start, end } of intervals) for (let at = start; at < end; at++) depth[at] = (depth[at] ?? 0) + 1;
        const result = coverage(intervals);
        expect(result.sentBytes).toBe(depth.reduce((sum, d) => sum + d, 0));
        expect(result.distinctBytes).toBe(depth.filter((d) => d >= 1).length);
        expect(result.repeatedBytes).toBe(depth.filter((d) => d >= 2).length);
        expect(result.excessBytes).toBe(result.sentBytes - result.distinctBytes);
      }),
    );
  });
});

describe('describeIntervals', () => {
  it('merges what overlaps or touches and names inclusive positions', () => {
    expect(
      describeIntervals([
        { start: 10, end: 20 },
        { start: 0, end: 5 },
        { start: 5, end: 8 },
        { start: 15, end: 30 },
      ]),
    ).toBe('0–7, 10–29');
    expect(describeIntervals([])).toBe('none');
  });
});

describe('servedInterval', () => {
  it('places a 200 at 0 and a 206 at its Content-Range, as long as what was sent', () => {
    expect(servedInterval(200, undefined, 500)).toEqual({ start: 0, end: 500 });
    expect(servedInterval(206, 'bytes 8388608-16777215/25165824', 1000)).toEqual({ start: 8388608, end: 8389608 });
    expect(servedInterval(206, 'bytes 5-9/*', 5)).toEqual({ start: 5, end: 10 });
  });

  it('none for other answers or a range it cannot place', () => {
    expect(servedInterval(304, undefined, 0)).toBeUndefined();
    expect(servedInterval(404, undefined, 120)).toBeUndefined();
    expect(servedInterval(206, undefined, 10)).toBeUndefined();
    expect(servedInterval(206, 'bytes */100', 0)).toBeUndefined();
  });
});
