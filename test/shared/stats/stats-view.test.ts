import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type MinuteBucket, mergeBatch } from '../../../shared/stats/minute-bucket.ts';
import { OUTCOMES } from '../../../shared/stats/record.ts';
import type { StatsJson } from '../../../shared/stats/stats-json.ts';
import {
  MAX_VIEW_HOSTS,
  MAX_VIEW_MISSES,
  MAX_VIEW_PURGES,
  MAX_VIEW_REASONS,
  statsView,
} from '../../../shared/stats/stats-view.ts';
import { MAX_WINDOW_MINUTES, MINUTE_MS, minuteOf } from '../../../shared/stats/stats-window.ts';
import { emptyTotals, TOTAL_FIELDS } from '../../../shared/stats/totals.ts';
import { perTier, TIER_NAMES } from '../../../shared/tiers/tiers.ts';
import { BASE, batchArb, batchOf, record } from './arbitraries.ts';

const NOW = BASE + 2 * MINUTE_MS + 30_000;
const bucketsOf = (...records: Parameters<typeof record>[0][]): MinuteBucket[] => [
  ...mergeBatch(new Map(), batchOf(records.map(record))).values(),
];
const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0);

function isRanked<T>(items: readonly T[], count: (item: T) => number, name: (item: T) => string): boolean {
  return items.every(
    (item, i) =>
      i === 0 ||
      count(items[i - 1]!) > count(item) ||
      (count(items[i - 1]!) === count(item) && name(items[i - 1]!) < name(item)),
  );
}

describe('statsView', () => {
  it('is all zeros and nulls, every outcome and minute present, for no buckets', () => {
    const view = statsView([], [], NOW, 7);
    expect(view.generatedAt).toBe(new Date(NOW).toISOString());
    expect(view.windowMinutes).toBe(60);
    for (const tier of TIER_NAMES) {
      expect(view.tiers[tier]).toEqual({
        totals: emptyTotals(),
        hitRatio: null,
        byteHitRatio: null,
        ttfbMsMean: null,
        outcomes: Object.fromEntries(OUTCOMES.map((outcome) => [outcome, emptyTotals()])),
      });
    }
    expect(view.egress).toEqual({
      originBytes: 0,
      servedBytes: 0,
      savedBytes: 0,
      pricePerTB: 7,
      savedUSD: 0,
      spentUSD: 0,
    });
    expect(view.minutes).toHaveLength(60);
    expect(view.minutes.at(-1)).toEqual({
      minute: new Date(minuteOf(NOW)).toISOString(),
      tiers: perTier(() => ({ requests: 0, hits: 0, bytesSent: 0, bytesFromNextHop: 0 })),
    });
    expect([view.hosts, view.topMisses, view.bypassReasons, view.errors, view.recentPurges]).toEqual([
      [],
      [],
      [],
      [],
      [],
    ]);
  });

  it('counts hit, stale, revalidated and collapsed as hits, over every request of the tier', () => {
    const view = statsView(
      bucketsOf(
        { outcome: 'hit' },
        { outcome: 'stale' },
        { outcome: 'revalidated' },
        { outcome: 'collapsed' },
        { outcome: 'miss' },
        { outcome: 'bypass' },
        { outcome: 'error' },
        { outcome: 'miss' },
      ),
      [],
      NOW,
      7,
    );
    expect(view.tiers.edge.hitRatio).toBe(4 / 8);
    expect(view.tiers.shield.hitRatio).toBeNull();
    expect(view.minutes.find((minute) => minute.minute === new Date(BASE).toISOString())?.tiers.edge).toEqual({
      requests: 8,
      hits: 4,
      bytesSent: 800,
      bytesFromNextHop: 0,
    });
  });

  it('takes the byte hit ratio as 1 − fetched/sent, never below 0', () => {
    expect(statsView(bucketsOf({ bytesSent: 1000, bytesFromNextHop: 250 }), [], NOW, 7).tiers.edge.byteHitRatio).toBe(
      0.75,
    );
    expect(statsView(bucketsOf({ bytesSent: 10, bytesFromNextHop: 400 }), [], NOW, 7).tiers.edge.byteHitRatio).toBe(0);
    expect(
      statsView(bucketsOf({ bytesSent: 0, bytesFromNextHop: 400 }), [], NOW, 7).tiers.edge.byteHitRatio,
    ).toBeNull();
  });

  it('takes the mean time to first byte over the requests', () => {
    expect(statsView(bucketsOf({ ttfbMs: 3 }, { ttfbMs: 8 }), [], NOW, 7).tiers.edge.ttfbMsMean).toBe(5.5);
  });

  it('prices origin egress and what the edge spared it, per 10^12 bytes', () => {
    const view = statsView(
      bucketsOf(
        { tier: 'edge', bytesSent: 5e12 },
        { tier: 'shield', outcome: 'miss', bytesSent: 1e12, bytesFromNextHop: 1e12, bytesFromOrigin: 1e12 },
      ),
      [],
      NOW,
      7,
    );
    expect(view.egress).toEqual({
      originBytes: 1e12,
      servedBytes: 5e12,
      savedBytes: 4e12,
      pricePerTB: 7,
      savedUSD: 28,
      spentUSD: 7,
    });
    expect(statsView(bucketsOf({ tier: 'shield', bytesFromOrigin: 9 }), [], NOW, 7).egress.savedBytes).toBe(0);
    expect(statsView(bucketsOf({ bytesSent: 1e12 }), [], NOW, Number.NaN).egress).toMatchObject({
      pricePerTB: 0,
      savedUSD: 0,
    });
    expect(statsView(bucketsOf({ bytesSent: 1e12 }), [], NOW, -3).egress.pricePerTB).toBe(0);
  });

  it('ends the window with the minute holding now, oldest first, and counts no bucket outside it', () => {
    const old = BASE - 60 * MINUTE_MS;
    const view = statsView(
      bucketsOf({ at: old }, { at: old + MINUTE_MS }, { at: BASE + 3 * MINUTE_MS }, { at: NOW }),
      [],
      NOW,
      60,
    );
    expect(view.minutes[0]?.minute).toBe(new Date(old + MINUTE_MS + 2 * MINUTE_MS).toISOString());
    expect(view.tiers.edge.totals.requests).toBe(1);
    expect(statsView(bucketsOf({ at: old + 3 * MINUTE_MS }), [], NOW, 60).tiers.edge.totals.requests).toBe(1);
    expect(statsView(bucketsOf({ at: old + 2 * MINUTE_MS }), [], NOW, 60).tiers.edge.totals.requests).toBe(0);
  });

  it('adds up two buckets of the same minute', () => {
    const twice = [...bucketsOf({ bytesSent: 1 }), ...bucketsOf({ bytesSent: 2 })];
    const view = statsView(twice, [], NOW, 7, 5);
    expect(view.tiers.edge.totals.bytesSent).toBe(3);
    expect(view.minutes.find((minute) => minute.minute === new Date(BASE).toISOString())?.tiers.edge.bytesSent).toBe(3);
  });

  it('has exactly as many minutes as the window asks, within 1 and a day', () => {
    expect(statsView([], [], NOW, 7, 5).minutes).toHaveLength(5);
    expect(statsView([], [], NOW, 7, 0).minutes).toHaveLength(1);
    expect(statsView([], [], NOW, 7, 10 ** 9).minutes).toHaveLength(MAX_WINDOW_MINUTES);
    expect(statsView([], [], NOW, 7, Number.NaN).windowMinutes).toBe(60);
  });

  it('lists hosts by edge requests, most first, ties by name, leaving the shield out', () => {
    const view = statsView(
      bucketsOf({ host: 'b' }, { host: 'a' }, { host: 'c' }, { host: 'c' }, { host: 'z', tier: 'shield' }),
      [],
      NOW,
      7,
    );
    expect(view.hosts).toEqual([
      { host: 'c', requests: 2, bytesSent: 200 },
      { host: 'a', requests: 1, bytesSent: 100 },
      { host: 'b', requests: 1, bytesSent: 100 },
    ]);
  });

  it('lists the keys missed most across the window', () => {
    const view = statsView(
      bucketsOf(
        { outcome: 'miss', keyPrefix: '/b' },
        { outcome: 'miss', keyPrefix: '/a' },
        { outcome: 'miss', keyPrefix: '/b', at: BASE + MINUTE_MS },
      ),
      [],
      NOW,
      7,
    );
    expect(view.topMisses).toEqual([
      { key: '/b', misses: 2 },
      { key: '/a', misses: 1 },
    ]);
  });

  it('lists bypass reasons and errors per tier, the edge first, most first within each', () => {
    const view = statsView(
      bucketsOf(
        { tier: 'shield', outcome: 'bypass', reason: 'method' },
        { outcome: 'bypass', reason: 'no-store' },
        { outcome: 'bypass', reason: 'method' },
        { outcome: 'bypass', reason: 'method' },
        { outcome: 'error', reason: 'status-502' },
        { outcome: 'stale', reason: 'stale-while-revalidate' },
      ),
      [],
      NOW,
      7,
    );
    expect(view.bypassReasons).toEqual([
      { tier: 'edge', reason: 'method', requests: 2 },
      { tier: 'edge', reason: 'no-store', requests: 1 },
      { tier: 'shield', reason: 'method', requests: 1 },
    ]);
    expect(view.errors).toEqual([{ tier: 'edge', reason: 'status-502', requests: 1 }]);
  });

  it('lists the latest purges first, their times as ISO 8601, leaving out times that are no date', () => {
    const purges = [
      { kind: 'url', value: '/a', at: BASE },
      { kind: 'tag', value: 'blog', at: BASE + 5 },
      { kind: 'prefix', value: '/img/', at: BASE + 5 },
      { kind: 'url', value: '/bad', at: Number.NaN },
      { kind: 'url', value: '/far', at: 9e15 },
    ];
    expect(statsView([], purges, NOW, 7).recentPurges).toEqual([
      { kind: 'prefix', value: '/img/', at: new Date(BASE + 5).toISOString() },
      { kind: 'tag', value: 'blog', at: new Date(BASE + 5).toISOString() },
      { kind: 'url', value: '/a', at: new Date(BASE).toISOString() },
    ]);
    const many = Array.from({ length: 50 }, (_, i) => ({ kind: 'url', value: `/${i}`, at: BASE + i }));
    expect(statsView([], many, NOW, 7).recentPurges.map((purge) => purge.value)).toEqual(
      Array.from({ length: MAX_VIEW_PURGES }, (_, i) => `/${49 - i}`),
    );
  });
});

describe('statsView, whatever the buckets', () => {
  const window = fc.integer({ min: 1, max: 90 });
  const buckets = fc
    .array(batchArb({ hosts: 40, keys: 40, reasons: 30, minutes: 90 }, 150), { maxLength: 4 })
    .map((batches) => {
      const stored = new Map<number, MinuteBucket>();
      for (const batch of batches) for (const [minute, bucket] of mergeBatch(stored, batch)) stored.set(minute, bucket);
      return [...stored.values()];
    });
  const now = fc.integer({ min: BASE, max: BASE + 120 * MINUTE_MS });
  const purges = fc.array(
    fc.record({
      kind: fc.constantFrom('url', 'prefix', 'tag', 'everything'),
      value: fc.string(),
      at: fc.integer({ min: BASE - 1e9, max: BASE + 1e9 }),
    }),
    { maxLength: 40 },
  );

  it('has every minute of the window, oldest first, a minute apart, the last holding now', () => {
    fc.assert(
      fc.property(buckets, now, window, (given, at, length) => {
        const { minutes } = statsView(given, [], at, 7, length);
        expect(minutes).toHaveLength(length);
        expect(Date.parse(minutes.at(-1)!.minute)).toBe(minuteOf(at));
        minutes.forEach((minute, i) => {
          expect(Date.parse(minute.minute)).toBe(minuteOf(at) - (length - 1 - i) * MINUTE_MS);
        });
      }),
      { numRuns: 60 },
    );
  });

  it('agrees with itself: tier totals are the sums of the outcomes and of the minutes', () => {
    fc.assert(
      fc.property(buckets, now, window, (given, at, length) => {
        const view = statsView(given, [], at, 7, length);
        for (const tier of TIER_NAMES) {
          const stats = view.tiers[tier];
          for (const field of TOTAL_FIELDS)
            expect(sum(OUTCOMES.map((outcome) => stats.outcomes[outcome][field]))).toBe(stats.totals[field]);
          expect(sum(view.minutes.map((minute) => minute.tiers[tier].requests))).toBe(stats.totals.requests);
          expect(sum(view.minutes.map((minute) => minute.tiers[tier].bytesSent))).toBe(stats.totals.bytesSent);
          expect(sum(view.minutes.map((minute) => minute.tiers[tier].hits))).toBe(
            stats.hitRatio === null ? 0 : Math.round(stats.hitRatio * stats.totals.requests),
          );
        }
      }),
      { numRuns: 60 },
    );
  });

  it('counts exactly the buckets of the window', () => {
    fc.assert(
      fc.property(buckets, now, window, (given, at, length) => {
        const inside = given.filter(
          (bucket) => bucket.minute <= minuteOf(at) && bucket.minute > minuteOf(at) - length * MINUTE_MS,
        );
        const view = statsView(given, [], at, 7, length);
        expect(sum(TIER_NAMES.map((tier) => view.tiers[tier].totals.requests))).toBe(
          sum(inside.flatMap((bucket) => bucket.rows.map((row) => row.requests))),
        );
      }),
      { numRuns: 60 },
    );
  });

  it('keeps its ratios between 0 and 1 and its money at least 0', () => {
    fc.assert(
      fc.property(buckets, now, fc.double({ min: 0, max: 1000, noNaN: true }), (given, at, price) => {
        const view = statsView(given, [], at, price);
        for (const stats of Object.values(view.tiers)) {
          for (const ratio of [stats.hitRatio, stats.byteHitRatio])
            if (ratio !== null) expect(ratio >= 0 && ratio <= 1).toBe(true);
        }
        expect(view.egress.savedBytes).toBeGreaterThanOrEqual(0);
        expect(view.egress.savedUSD).toBeGreaterThanOrEqual(0);
        expect(view.egress.spentUSD).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 60 },
    );
  });

  it('bounds and orders every list, most first, ties by name', () => {
    fc.assert(
      fc.property(buckets, purges, now, (given, seen, at) => {
        const view = statsView(given, seen, at, 7, 90);
        expect(view.hosts.length).toBeLessThanOrEqual(MAX_VIEW_HOSTS);
        expect(view.topMisses.length).toBeLessThanOrEqual(MAX_VIEW_MISSES);
        expect(view.recentPurges.length).toBeLessThanOrEqual(MAX_VIEW_PURGES);
        expect(
          isRanked(
            view.hosts,
            (host) => host.requests,
            (host) => host.host,
          ),
        ).toBe(true);
        expect(
          isRanked(
            view.topMisses,
            (miss) => miss.misses,
            (miss) => miss.key,
          ),
        ).toBe(true);
        for (const list of [view.bypassReasons, view.errors]) {
          for (const tier of TIER_NAMES) {
            const ofTier = list.filter((row) => row.tier === tier);
            expect(ofTier.length).toBeLessThanOrEqual(MAX_VIEW_REASONS);
            expect(
              isRanked(
                ofTier,
                (row) => row.requests,
                (row) => row.reason,
              ),
            ).toBe(true);
          }
          // The tiers in the list's order, nearest the client first.
          const order = (row: { tier: string }): number => TIER_NAMES.indexOf(row.tier as (typeof TIER_NAMES)[number]);
          expect(list.map(order)).toEqual(list.map(order).sort((a, b) => a - b));
        }
        expect(view.recentPurges.map((purge) => purge.at)).toEqual(
          [...view.recentPurges.map((purge) => purge.at)].sort().reverse(),
        );
      }),
      { numRuns: 60 },
    );
  });

  it('is the same view whatever order the buckets come in, and plain JSON', () => {
    fc.assert(
      fc.property(
        buckets.chain((given) =>
          fc.tuple(
            fc.constant(given),
            fc.shuffledSubarray(given, { minLength: given.length, maxLength: given.length }),
          ),
        ),
        now,
        ([given, shuffled], at) => {
          const view: StatsJson = statsView(given, [], at, 7);
          expect(statsView(shuffled, [], at, 7)).toEqual(view);
          expect(JSON.parse(JSON.stringify(view))).toEqual(view);
        },
      ),
      { numRuns: 60 },
    );
  });
});
