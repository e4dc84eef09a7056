// shared/cost/scale-model.ts: what the purge list and the stats cost, and which limit binds first, from 10 to 10,000
// isolates, before and after the purge head key and the stats shards (a head key read once per location, a list per change, 16 shards).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DURABLE_OBJECT_REQUESTS_PER_SECOND,
  KV_WRITES_PER_KEY_PER_SECOND,
} from '../../../shared/config/platform-limits.ts';
import { PUBLISHED_PRICES } from '../../../shared/cost/prices.ts';
import { AFTER, AFTER_WITHOUT_CACHE_API, BEFORE, type RefreshDesign } from '../../../shared/cost/refresh-design.ts';
import {
  SCALE_ISOLATES,
  SCALE_REQUESTS_PER_SECOND,
  scaleGrid,
  scalePoint,
  scenarioOf,
} from '../../../shared/cost/scale-model.ts';
import { DEPLOYED_INTERVALS } from '../../../shared/cost/traffic-mix.ts';
import { MONTH_MS } from '../../../shared/cost/usage.ts';

const SECONDS = MONTH_MS / 1000;
const point = (isolates: number, rate: number, design: RefreshDesign, options = {}) =>
  scalePoint(scenarioOf(isolates, rate, options), design, PUBLISHED_PRICES, DEPLOYED_INTERVALS);

describe('the scale grid', () => {
  it('is every isolates × requests-a-second line of the issue, 10 to 10,000 by 1k to 100k, a point per design', () => {
    const grid = scaleGrid([BEFORE, AFTER], PUBLISHED_PRICES, DEPLOYED_INTERVALS);
    expect(grid.map(({ scenario }) => [scenario.isolates, scenario.requestsPerSecond])).toEqual(
      SCALE_ISOLATES.flatMap((isolates) => SCALE_REQUESTS_PER_SECOND.map((rate) => [isolates, rate])),
    );
    expect(SCALE_ISOLATES).toEqual([10, 100, 1_000, 10_000]);
    expect(SCALE_REQUESTS_PER_SECOND).toEqual([1_000, 10_000, 100_000]);
    for (const { points } of grid) expect(points.map((one) => one.design.name)).toEqual(['before', 'after']);
  });

  it("bills 100k requests a second as Workers requests past the plan's 10 million at $0.30 a million (about $78k)", () => {
    const requests = point(100, 100_000, AFTER).estimate.lines.find((line) => line.item === 'Workers requests');
    expect(requests?.quantity).toBeCloseTo(100_000 * SECONDS, 0);
    expect(requests?.usd).toBeCloseTo(((100_000 * SECONDS - 10e6) / 1e6) * 0.3, 6);
    expect(Math.round((requests?.usd ?? 0) / 1000)).toBe(78);
  });
});

describe('before: every isolate lists the purge namespace every REFRESH_MS, one stats object', () => {
  it('makes KV lists that grow with the isolates, not with the traffic or the purges', () => {
    const lists = (isolates: number, rate: number, purgesPerMonth?: number) =>
      point(isolates, rate, BEFORE, { purgesPerMonth }).operations.kvLists;
    // Busy isolates: one list per isolate (both tiers) per 5 s, whatever the rate.
    const busy = (10_000 + 400) * (SECONDS / 5);
    expect(lists(10_000, 100_000) / busy).toBeGreaterThan(0.95);
    expect(lists(10_000, 100_000) / busy).toBeLessThanOrEqual(1);
    expect(lists(1_000, 100_000)).toBeGreaterThan(9 * lists(100, 100_000));
    expect(lists(100, 100_000, 0)).toBe(lists(100, 100_000, 1_000_000));
  });

  it('saturates the one stats object past its 1,000 requests a second at 10,000 busy isolates: the limit that binds first', () => {
    const saturated = point(10_000, 10_000, BEFORE);
    expect(saturated.limits[0]?.name).toBe('stats object');
    expect(saturated.limits[0]?.load).toBeGreaterThan(1);
    expect(saturated.limits[0]?.limit).toBe(DURABLE_OBJECT_REQUESTS_PER_SECOND);
    expect(saturated.operations.flushes / SECONDS).toBeGreaterThan(DURABLE_OBJECT_REQUESTS_PER_SECOND.value);
  });
});

describe('after: a head key read once per location per SHARE_MS, a list while a change settles and once a minute, 16 stats shards', () => {
  it('reads the head with gets that grow with the locations at the edge, not its isolates (the shield reads per isolate)', () => {
    const reads = (isolates: number) => point(isolates, 100_000, AFTER).operations.kvReads;
    // 1,000 and 10,000 edge isolates are both in 300 locations: the edge's gets are the same; the shield's isolates
    // (40 and 400, busy) each read the head every REFRESH_MS, their Cache API not being documented to work.
    const shieldGrowth = (reads(10_000) - reads(1_000)) / ((400 - 40) * (SECONDS / 5));
    expect(shieldGrowth).toBeGreaterThan(0.95);
    expect(shieldGrowth).toBeLessThanOrEqual(1);
    // A location reads it at most once per SHARE_MS (2.5 s): 24 a minute, however many isolates.
    expect(reads(10_000)).toBeLessThanOrEqual(300 * (SECONDS / 2.5) + 400 * (SECONDS / 5));
    // Where the Cache API does not work, each isolate reads it: as many gets as before made lists.
    const alone = point(10_000, 100_000, AFTER_WITHOUT_CACHE_API).operations.kvReads;
    expect(alone).toBeCloseTo(point(10_000, 100_000, BEFORE).operations.kvLists, -3);
  });

  it('lists once a minute per busy isolate without purges (the safety list), and about 14 times per isolate per purge', () => {
    // Model input changed: the safety list (SAFETY_LIST_MS) and the lists while a head change settles were added.
    const quiet = point(10_000, 100_000, AFTER, { purgesPerMonth: 0 }).operations.kvLists;
    expect(quiet / ((10_000 + 400) * (SECONDS / 60))).toBeGreaterThan(0.95);
    expect(quiet / ((10_000 + 400) * (SECONDS / 60))).toBeLessThanOrEqual(1);
    const safety = point(1_000, 100_000, AFTER, { purgesPerMonth: 0 }).operations.kvLists;
    const perPurge = (point(1_000, 100_000, AFTER, { purgesPerMonth: 3_000 }).operations.kvLists - safety) / 3_000;
    expect(perPurge / (1_000 + 40)).toBeGreaterThan(13);
    expect(perPurge / (1_000 + 40)).toBeLessThanOrEqual(14);
  });

  it('writes the head key with each purge, at most once a second (KV refuses one key written faster), and a snapshot every 50', () => {
    // Model input changed: each purge's share of snapshot writes (2 every 50 requests) is counted in both designs.
    expect(point(100, 1_000, AFTER, { purgesPerMonth: 3_000 }).kvWrites).toBeCloseTo(6_120, 9);
    expect(point(100, 1_000, BEFORE, { purgesPerMonth: 3_000 }).kvWrites).toBeCloseTo(3_120, 9);
    const flood = point(100, 1_000, AFTER, { purgesPerMonth: 2 * SECONDS });
    expect(flood.kvWrites).toBeCloseTo(2 * SECONDS * 1.04 + SECONDS * KV_WRITES_PER_KEY_PER_SECOND.value, 3);
    expect(flood.limits[0]?.name).toBe('KV head key');
    expect(flood.limits[0]?.load).toBeCloseTo(2, 6);
  });

  it('makes the same flushes as before, spread over 16 objects: 10,000 busy isolates stay under each one’s limit', () => {
    const before = point(10_000, 10_000, BEFORE);
    const after = point(10_000, 10_000, AFTER);
    expect(after.operations.flushes).toBe(before.operations.flushes);
    const stats = (one: typeof after) => one.limits.find((limit) => limit.name === 'stats object')?.load ?? 0;
    expect(stats(after)).toBeCloseTo(stats(before) / 16, 9);
    expect(stats(after)).toBeLessThan(1);
  });

  it('never lists more than before, and never reads the head more often than an isolate would', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20_000 }),
        fc.integer({ min: 1, max: 200_000 }),
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 0, max: 100_000 }),
        (isolates, rate, locations, purgesPerMonth) => {
          const options = { locations, purgesPerMonth };
          const before = point(isolates, rate, BEFORE, options).operations;
          const after = point(isolates, rate, AFTER, options).operations;
          const alone = point(isolates, rate, AFTER_WITHOUT_CACHE_API, options).operations;
          expect(after.kvLists).toBeLessThanOrEqual(before.kvLists * (1 + 1e-9));
          expect(after.kvReads).toBeLessThanOrEqual(alone.kvReads * (1 + 1e-9));
          expect(alone.kvReads).toBeCloseTo(before.kvLists, 3);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('the isolates themselves', () => {
  it('says when the traffic cannot fit so few isolates: each is one thread, and 100k requests a second over 10 isolates is many seconds of CPU a second', () => {
    const crowded = point(10, 100_000, AFTER);
    expect(crowded.limits[0]?.name).toBe('isolate CPU');
    expect(crowded.limits[0]?.load).toBeGreaterThan(1);
    const cpu = crowded.estimate.usage.cpuMs.edge / SECONDS / 10 / 1000;
    expect(crowded.limits[0]?.load).toBeCloseTo(cpu, 9);
  });
});
