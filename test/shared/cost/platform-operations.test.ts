import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { operationsPerPeriod } from '../../../shared/cost/platform-operations.ts';

const HOUR = 3_600_000;

describe('operationsPerPeriod', () => {
  it('is none without requests, and one per request without an interval', () => {
    for (const kind of ['flush', 'reread'] as const) {
      expect(operationsPerPeriod(kind, 0, HOUR, 10, 5_000)).toBe(0);
      expect(operationsPerPeriod(kind, 1_000, HOUR, 10, 0)).toBe(1_000);
    }
  });

  it('is about one per interval per isolate when requests come far faster than the interval', () => {
    // 1,000 requests a second over 4 isolates: each makes one every 5 s, 720 each an hour.
    for (const kind of ['flush', 'reread'] as const) {
      const made = operationsPerPeriod(kind, 3_600_000, HOUR, 4, 5_000);
      expect(made).toBeLessThanOrEqual(4 * 720);
      expect(made).toBeGreaterThan(4 * 720 * 0.99);
    }
  });

  it('is about one per request when each isolate sees a request far less often than the interval', () => {
    // 100 requests an hour over 50 isolates: two an hour each, minutes apart.
    for (const kind of ['flush', 'reread'] as const)
      expect(operationsPerPeriod(kind, 100, HOUR, 50, 5_000)).toBeGreaterThan(99);
  });

  it('a re-read waits for the first request after its interval (Poisson arrivals: rate λ/(1 + λ·interval))', () => {
    // One isolate, one request a second, a 5 s interval: one re-read every 6 s on average.
    expect(operationsPerPeriod('reread', 3_600, HOUR, 1, 5_000)).toBeCloseTo(HOUR / 6_000, 6);
  });

  it('a flush goes when its interval ends if a request came within it, else with the next request', () => {
    // One request a second, 5 s: a request almost always came, so the mean cycle is 5 s + e^-5 s.
    expect(operationsPerPeriod('flush', 3_600, HOUR, 1, 5_000)).toBeCloseTo(HOUR / (5_000 + Math.exp(-5) * 1_000), 6);
  });

  it('never exceeds the requests, nor one per interval per isolate, and grows with requests and isolates', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('flush', 'reread' as const),
        fc.integer({ min: 1, max: 1e9 }),
        fc.integer({ min: 1, max: 1e9 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 600_000 }),
        (kind, requests, more, isolates, interval) => {
          const made = operationsPerPeriod(kind as 'flush' | 'reread', requests, HOUR, isolates, interval);
          expect(made).toBeLessThanOrEqual(requests);
          expect(made).toBeLessThanOrEqual((isolates * HOUR) / interval + 1e-6);
          expect(
            operationsPerPeriod(kind as 'flush' | 'reread', requests + more, HOUR, isolates, interval),
          ).toBeGreaterThanOrEqual(made - 1e-6);
          expect(
            operationsPerPeriod(kind as 'flush' | 'reread', requests, HOUR, isolates + 1, interval),
          ).toBeGreaterThanOrEqual(made - 1e-6);
        },
      ),
    );
  });
});
