// The R2 tier's puts per hour (shared/store/write-budget.ts): a minute's burst, then the hour's rate, whatever the
// order of the calls.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WriteBudget } from '../../../shared/store/write-budget.ts';

const T0 = Date.parse('2026-12-04T12:00:00Z');

describe('WriteBudget', () => {
  it("spends a minute's writes at once, then one per interval of the hour's rate", () => {
    const budget = new WriteBudget(3600);
    let taken = 0;
    while (budget.take(T0)) taken++;
    expect(taken).toBe(60);
    expect(budget.take(T0 + 999)).toBe(false);
    expect(budget.take(T0 + 1000)).toBe(true);
    expect(budget.take(T0 + 1000)).toBe(false);
  });

  it('allows no put at all with a budget of 0, and at least one with any budget above it', () => {
    expect(new WriteBudget(0).take(T0)).toBe(false);
    const one = new WriteBudget(1);
    expect(one.take(T0)).toBe(true);
    expect(one.take(T0 + 1000)).toBe(false);
    expect(one.take(T0 + 3_600_000)).toBe(true);
  });

  it("never allows more over any span than its burst and the span's share of the hour", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000 }),
        fc.array(fc.integer({ min: 0, max: 600_000 }), { maxLength: 500 }),
        (perHour, gaps) => {
          const budget = new WriteBudget(perHour);
          let at = T0;
          let taken = 0;
          for (const gap of gaps) {
            at += gap;
            if (budget.take(at)) taken++;
          }
          const burst = Math.max(1, perHour / 60);
          expect(taken).toBeLessThanOrEqual(Math.floor(burst + ((at - T0) / 3_600_000) * perHour) + 1e-9);
        },
      ),
    );
  });

  it('does not refill when the clock steps back', () => {
    const budget = new WriteBudget(3600);
    while (budget.take(T0 + 60_000));
    expect(budget.take(T0)).toBe(false);
    expect(budget.take(T0 + 60_000)).toBe(false);
  });
});
