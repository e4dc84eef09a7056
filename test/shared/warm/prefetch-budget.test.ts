import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PREFETCH_LIMITS, PrefetchBudget } from '../../../shared/warm/prefetch-budget.ts';

describe('PrefetchBudget', () => {
  it('lets so many be under way at once, and one more once one ends', () => {
    const budget = new PrefetchBudget({ underWay: 2, perMinute: 100 });
    expect(budget.begin('a', 0)).toBe(true);
    expect(budget.begin('b', 0)).toBe(true);
    expect(budget.room(0)).toBe(0);
    expect(budget.begin('c', 0)).toBe(false);
    budget.end('a');
    expect(budget.has('a')).toBe(false);
    expect(budget.begin('c', 0)).toBe(true);
    expect(budget.has('c')).toBe(true);
  });

  it('never starts two prefetches of one segment', () => {
    const budget = new PrefetchBudget(PREFETCH_LIMITS);
    expect(budget.begin('a', 0)).toBe(true);
    expect(budget.begin('a', 0)).toBe(false);
    budget.end('a');
    expect(budget.begin('a', 0)).toBe(true);
  });

  it('starts no more in any minute than its limit, and more once a minute has passed', () => {
    const budget = new PrefetchBudget({ underWay: 100, perMinute: 3 });
    for (const [n, at] of [0, 10_000, 20_000].entries()) {
      expect(budget.begin(`k${n}`, at)).toBe(true);
      budget.end(`k${n}`);
    }
    expect(budget.begin('k3', 59_999)).toBe(false);
    expect(budget.room(60_000)).toBe(1);
    expect(budget.begin('k3', 60_000)).toBe(true);
    expect(budget.room(60_000)).toBe(0);
    expect(budget.room(80_000)).toBe(2);
  });

  it('whatever is begun and ended, never has more under way or started in a minute than its limits', () => {
    const limits = { underWay: 3, perMinute: 5 };
    fc.assert(
      fc.property(
        fc.array(fc.record({ begin: fc.boolean(), key: fc.integer({ min: 0, max: 6 }), gap: fc.nat(30_000) }), {
          maxLength: 60,
        }),
        (steps) => {
          const budget = new PrefetchBudget(limits);
          const underWay = new Set<number>();
          const started: number[] = [];
          let now = 0;
          for (const step of steps) {
            now += step.gap;
            if (step.begin) {
              if (budget.begin(`k${step.key}`, now)) {
                expect(underWay.has(step.key)).toBe(false);
                underWay.add(step.key);
                started.push(now);
              }
            } else {
              budget.end(`k${step.key}`);
              underWay.delete(step.key);
            }
            expect(underWay.size).toBeLessThanOrEqual(limits.underWay);
            expect(started.filter((at) => at > now - 60_000).length).toBeLessThanOrEqual(limits.perMinute);
            expect(budget.room(now)).toBeGreaterThanOrEqual(0);
          }
        },
      ),
    );
  });
});
