import { describe, expect, it } from 'vitest';
import { pairedRatios } from '../../../bench/report/paired-ratio.ts';

describe('pairedRatios', () => {
  it('judges each candidate against the mean of the baseline before and after it', () => {
    const result = pairedRatios([{ before: 90, candidates: { a: 110, b: 100 }, after: 110 }]);
    expect(result.a?.perRound).toEqual([1.1]);
    expect(result.b?.median).toBe(1);
  });

  it('cancels a drift of the machine across a round', () => {
    // The machine slows steadily; the candidate costs 5 % more than the baseline throughout.
    const rounds = [0, 1, 2, 3].map((i) => ({
      before: 80 + 10 * i,
      candidates: { signed: 1.05 * (85 + 10 * i) },
      after: 90 + 10 * i,
    }));
    for (const ratio of pairedRatios(rounds).signed?.perRound ?? []) expect(ratio).toBeCloseTo(1.05, 10);
  });

  it('is not moved by one spoiled round', () => {
    const steady = { before: 100, candidates: { rules: 104 }, after: 100 };
    const spoiled = { before: 100, candidates: { rules: 250 }, after: 100 };
    expect(pairedRatios([steady, spoiled, steady]).rules?.median).toBeCloseTo(1.04, 10);
  });

  it('leaves a candidate out of a round it is missing from', () => {
    const result = pairedRatios([
      { before: 100, candidates: { a: 100, b: 120 }, after: 100 },
      { before: 100, candidates: { a: 110 }, after: 100 },
    ]);
    expect(result.a?.perRound).toEqual([1, 1.1]);
    expect(result.b?.perRound).toEqual([1.2]);
  });
});
