import { describe, expect, it } from 'vitest';
import { OUTCOMES, type Outcome } from '../../../shared/stats/record.ts';
import { hitsOf, minuteTier, outcomeTotals, tierStats } from '../../../shared/stats/tier-stats.ts';
import { emptyTotals } from '../../../shared/stats/totals.ts';

const row = (outcome: Outcome, requests: number, bytesSent = 0, bytesFromNextHop = 0) => ({
  outcome,
  ...emptyTotals(),
  requests,
  bytesSent,
  bytesFromNextHop,
  ttfbMsSum: requests * 2,
});

describe('tierStats', () => {
  it('has every outcome, zeros where none', () => {
    expect(Object.keys(outcomeTotals([]))).toEqual([...OUTCOMES]);
    expect(outcomeTotals([row('miss', 2)]).hit).toEqual(emptyTotals());
  });

  it('counts hit, stale, revalidated and collapsed as hits; miss, bypass and error not', () => {
    const outcomes = outcomeTotals(OUTCOMES.map((outcome, i) => row(outcome, 10 ** i)));
    expect(hitsOf(outcomes)).toBe(1 + 100 + 1000 + 10_000);
  });

  it('derives the ratios and the mean, null over nothing', () => {
    expect(tierStats([row('hit', 3, 300), row('miss', 1, 100, 100)])).toMatchObject({
      hitRatio: 0.75,
      byteHitRatio: 0.75,
      ttfbMsMean: 2,
    });
    expect(tierStats([])).toMatchObject({
      hitRatio: null,
      byteHitRatio: null,
      ttfbMsMean: null,
      totals: emptyTotals(),
    });
    expect(tierStats([row('bypass', 1)])).toMatchObject({ hitRatio: 0, byteHitRatio: null });
  });

  it('never gives a byte hit ratio below 0 (more fetched than sent: a slice for a small range)', () => {
    expect(tierStats([row('miss', 1, 10, 8_000_000)]).byteHitRatio).toBe(0);
  });

  it('sums a minute for the charts', () => {
    expect(minuteTier([row('hit', 2, 20), row('miss', 1, 5, 5)])).toEqual({
      requests: 3,
      hits: 2,
      bytesSent: 25,
      bytesFromNextHop: 5,
    });
  });
});
