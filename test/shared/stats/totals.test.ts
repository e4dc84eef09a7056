import { describe, expect, it } from 'vitest';
import {
  addInto,
  addRecordInto,
  emptyTotals,
  recordTotals,
  sumTotals,
  TOTAL_FIELDS,
  totalsOf,
} from '../../../shared/stats/totals.ts';
import { record } from './arbitraries.ts';

describe('totals', () => {
  it('names every field of Totals once', () => {
    expect([...TOTAL_FIELDS].sort()).toEqual(Object.keys(emptyTotals()).sort());
  });

  it('counts a record as one request with its bytes, times and slices', () => {
    const one = record({
      bytesSent: 10,
      bytesFromNextHop: 4,
      bytesFromOrigin: 3,
      ttfbMs: 2,
      durationMs: 5,
      slicesHit: 1,
      slicesMissed: 2,
      departed: true,
    });
    const expected = {
      requests: 1,
      bytesSent: 10,
      bytesFromNextHop: 4,
      bytesFromOrigin: 3,
      ttfbMsSum: 2,
      durationMsSum: 5,
      slicesHit: 1,
      slicesMissed: 2,
      departed: 1,
    };
    expect(recordTotals(one)).toEqual(expected);
    const into = emptyTotals();
    addRecordInto(into, one);
    expect(into).toEqual(expected);
  });

  it('adds every field', () => {
    const a = recordTotals(record({ bytesSent: 1 }));
    addInto(a, recordTotals(record({ bytesSent: 2 })));
    expect(a).toMatchObject({ requests: 2, bytesSent: 3, ttfbMsSum: 4, durationMsSum: 6 });
    expect(sumTotals([a, a])).toMatchObject({ requests: 4, bytesSent: 6 });
    expect(sumTotals([])).toEqual(emptyTotals());
  });

  it('counts the requests whose client went away before the body ended, and none for the others', () => {
    const into = emptyTotals();
    for (const departed of [true, false, true]) addRecordInto(into, record({ departed }));
    expect([into.requests, into.departed]).toEqual([3, 2]);
    expect(recordTotals(record({ departed: false })).departed).toBe(0);
  });

  it('adds a bucket the stats store kept from an earlier release, before departures were counted, as none departed', () => {
    const { departed: _, ...earlier } = { ...emptyTotals(), requests: 5 };
    const into = recordTotals(record({ departed: true }));
    addInto(into, earlier as ReturnType<typeof emptyTotals>);
    expect([into.requests, into.departed]).toEqual([6, 1]);
    expect(Number.isNaN(sumTotals([earlier as ReturnType<typeof emptyTotals>]).departed)).toBe(false);
  });

  it('copies only the Totals of a wider row', () => {
    expect(totalsOf({ ...emptyTotals(), requests: 3, host: 'x' } as ReturnType<typeof emptyTotals>)).toEqual({
      ...emptyTotals(),
      requests: 3,
    });
  });
});
