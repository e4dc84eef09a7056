import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PrefetchTally } from '../../../shared/observe/prefetch-tally.ts';
import { noPrefetches } from '../../../shared/stats/store-operations.ts';

describe('PrefetchTally', () => {
  it('counts a prefetch read within its window as used, one read after it or never as wasted', () => {
    const tally = new PrefetchTally();
    tally.stored('a', 100, 0, 10_000);
    tally.stored('b', 200, 0, 10_000);
    tally.stored('c', 300, 0, 10_000);
    tally.read('a', 5_000);
    tally.read('b', 10_001);
    tally.expire(10_001);
    expect(tally.take()).toEqual({
      prefetched: 3,
      prefetchesUsed: 1,
      prefetchesWasted: 2,
      prefetchBytes: 600,
      prefetchWastedBytes: 500,
    });
    expect(tally.take()).toEqual(noPrefetches());
  });

  it('counts a read once: a second read of a used prefetch, or a read of what was never prefetched, counts nothing', () => {
    const tally = new PrefetchTally();
    tally.stored('a', 10, 0, 1000);
    tally.read('a', 1);
    tally.read('a', 2);
    tally.read('z', 3);
    expect(tally.take()).toMatchObject({ prefetched: 1, prefetchesUsed: 1, prefetchesWasted: 0 });
  });

  it('keeps those still in their window pending across a take, and looks them over at most once a second', () => {
    const tally = new PrefetchTally();
    tally.stored('a', 10, 0, 1000);
    expect(tally.take()).toMatchObject({ prefetched: 1, prefetchesWasted: 0 });
    tally.expire(500);
    // Past its window, but within a second of the last look: not looked over yet.
    tally.expire(1200);
    expect(tally.take()).toMatchObject({ prefetched: 0, prefetchesWasted: 0 });
    tally.expire(1501);
    expect(tally.take()).toMatchObject({ prefetchesWasted: 1, prefetchWastedBytes: 10 });
  });

  it('accounts every prefetch once, as used, wasted or still pending, whatever the order of events', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            kind: fc.constantFrom('stored', 'read', 'expire'),
            key: fc.integer({ min: 0, max: 5 }),
            gap: fc.nat(3000),
          }),
          { maxLength: 50 },
        ),
        (events) => {
          const tally = new PrefetchTally();
          let now = 0;
          let totals = noPrefetches();
          const add = () => {
            const taken = tally.take();
            totals = {
              ...totals,
              ...Object.fromEntries(Object.entries(taken).map(([k, v]) => [k, totals[k as keyof typeof totals] + v])),
            };
          };
          for (const event of events) {
            now += event.gap;
            if (event.kind === 'stored') {
              tally.stored(`k${event.key}`, 7, now, 2000);
            } else if (event.kind === 'read') tally.read(`k${event.key}`, now);
            else tally.expire(now);
            add();
          }
          tally.expire(now + 10_000);
          add();
          expect(totals.prefetchesUsed + totals.prefetchesWasted).toBe(totals.prefetched);
          expect(totals.prefetchBytes).toBe(7 * totals.prefetched);
          expect(totals.prefetchWastedBytes).toBe(7 * totals.prefetchesWasted);
        },
      ),
    );
  });
});
