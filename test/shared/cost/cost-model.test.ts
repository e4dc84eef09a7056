import { describe, expect, it } from 'vitest';
import { costOf } from '../../../shared/cost/cost-model.ts';
import {
  COLD_REQUEST_CPU_MS,
  COLD_WHOLE_CPU_MS_PER_MIB,
  MEMORY_HIT_CPU_MS,
  WARM_REQUEST_CPU_MS,
  WARM_WHOLE_CPU_MS_PER_MIB,
} from '../../../shared/cost/measured-cpu.ts';
import { SUBREQUESTS } from '../../../shared/cost/platform-operations.ts';
import { PUBLISHED_PRICES } from '../../../shared/cost/prices.ts';
import { DAY_MS, MONTH_MS, type Operations, type Traffic, usageOf } from '../../../shared/cost/usage.ts';

const MIB = 1024 * 1024;
const NO_OPERATIONS: Operations = {
  flushes: 0,
  durableObjectRowsRead: 0,
  durableObjectRowsWritten: 0,
  kvLists: 0,
  kvReads: 0,
};
const none = { requests: 0, bytes: 0 };

function traffic(overrides: Partial<Traffic> = {}): Traffic {
  return {
    periodMs: MONTH_MS,
    edge: { memoryHits: none, cacheHits: none, misses: none, other: none },
    shield: { hits: none, misses: none, other: none },
    sliceRequests: 0,
    slicedShare: 0,
    originBytes: 0,
    purgeWrites: 0,
    logSample: 0,
    analytics: false,
    ...overrides,
  };
}

describe('usageOf', () => {
  it("bills the edge's requests only: the shield is reached by a service binding, which Workers do not bill", () => {
    const used = usageOf(
      traffic({
        edge: {
          memoryHits: { requests: 3, bytes: 0 },
          cacheHits: { requests: 4, bytes: 0 },
          misses: { requests: 2, bytes: 0 },
          other: { requests: 1, bytes: 0 },
        },
        shield: { hits: none, misses: { requests: 2, bytes: 0 }, other: none },
      }),
      NO_OPERATIONS,
    );
    expect(used.workersRequests).toBe(10);
  });

  it('charges each request its measured CPU by where it was answered, and each MiB by whether it was stored or came from the origin', () => {
    const used = usageOf(
      traffic({
        edge: {
          memoryHits: { requests: 10, bytes: 10 * MIB },
          cacheHits: { requests: 4, bytes: 4 * MIB },
          misses: { requests: 2, bytes: 2 * MIB },
          other: none,
        },
        shield: { hits: none, misses: { requests: 2, bytes: 2 * MIB }, other: none },
        originBytes: 2 * MIB,
      }),
      NO_OPERATIONS,
    );
    // A memory hit's bytes are in its measured cost (a stored Blob handed to the response).
    const edge =
      10 * MEMORY_HIT_CPU_MS +
      4 * WARM_REQUEST_CPU_MS +
      4 * WARM_WHOLE_CPU_MS_PER_MIB +
      2 * (COLD_REQUEST_CPU_MS / 2) +
      2 * (COLD_WHOLE_CPU_MS_PER_MIB / 2);
    const shield = 2 * (COLD_REQUEST_CPU_MS / 2) + 2 * (COLD_WHOLE_CPU_MS_PER_MIB / 2);
    expect(used.cpuMs.edge).toBeCloseTo(edge, 9);
    expect(used.cpuMs.shield).toBeCloseTo(shield, 9);
    expect([used.servedBytes, used.originBytes]).toEqual([16 * MIB, 2 * MIB]);
  });

  it("adds the shield's prefetches: their bytes to the origin's egress, a shield miss's subrequests and CPU each, no request", () => {
    const plain = usageOf(traffic({ originBytes: 4 * MIB }), NO_OPERATIONS);
    const prefetching = usageOf(
      traffic({ originBytes: 4 * MIB, prefetches: { requests: 3, bytes: 3 * MIB } }),
      NO_OPERATIONS,
    );
    expect(prefetching.originBytes).toBe(7 * MIB);
    expect(prefetching.subrequests - plain.subrequests).toBe(3 * SUBREQUESTS.shieldMiss);
    expect(prefetching.cpuMs.shield - plain.cpuMs.shield).toBeCloseTo(
      3 * (COLD_REQUEST_CPU_MS / 2) + 3 * (COLD_WHOLE_CPU_MS_PER_MIB / 2),
      9,
    );
    expect([prefetching.workersRequests, prefetching.servedBytes]).toEqual([plain.workersRequests, plain.servedBytes]);
  });

  it('counts one Analytics Engine point per counted request at each tier, only when bound', () => {
    const counted = traffic({
      edge: { memoryHits: none, cacheHits: { requests: 7, bytes: 0 }, misses: { requests: 3, bytes: 0 }, other: none },
      shield: { hits: { requests: 1, bytes: 0 }, misses: { requests: 2, bytes: 0 }, other: none },
    });
    expect(usageOf({ ...counted, analytics: true }, NO_OPERATIONS).analyticsDataPoints).toBe(13);
    expect(usageOf(counted, NO_OPERATIONS).analyticsDataPoints).toBe(0);
  });

  it('takes the Durable Object and KV operations as given, with the stats object active a few ms for each request', () => {
    const used = usageOf(traffic(), {
      flushes: 1_000,
      durableObjectRowsRead: 3_000,
      durableObjectRowsWritten: 2_000,
      kvLists: 900,
      kvReads: 40,
    });
    expect([
      used.durableObjectRequests,
      used.durableObjectRowsRead,
      used.durableObjectRowsWritten,
      used.kvListRequests,
      used.kvReadRequests,
    ]).toEqual([1_000, 3_000, 2_000, 900, 40]);
    expect(used.durableObjectGbSeconds).toBeGreaterThan(0);
  });
});

describe('costOf', () => {
  it('with the allowances: the $5 subscription, and nothing more while every use is within what the plan includes', () => {
    const estimate = costOf(
      usageOf(
        traffic({
          edge: { memoryHits: none, cacheHits: { requests: 1_000_000, bytes: 1e9 }, misses: none, other: none },
        }),
        NO_OPERATIONS,
      ),
      PUBLISHED_PRICES,
    );
    expect(estimate.lines.every((line) => line.usd === 0)).toBe(true);
    expect([estimate.subscriptionUSD, estimate.platformUSD]).toEqual([5, 5]);
  });

  it('charges only what passes the allowance, at the published price', () => {
    const used = usageOf(
      traffic({ edge: { memoryHits: { requests: 25_000_000, bytes: 0 }, cacheHits: none, misses: none, other: none } }),
      { flushes: 0, durableObjectRowsRead: 0, durableObjectRowsWritten: 0, kvLists: 3_000_000, kvReads: 0 },
    );
    const estimate = costOf(used, PUBLISHED_PRICES);
    const line = (item: string) => estimate.lines.find((one) => one.item === item);
    // (25M − 10M) / 1M × $0.30, and (3M − 1M) / 1M × $5.00.
    expect(line('Workers requests')?.usd).toBeCloseTo(4.5, 9);
    expect(line('KV list requests')?.usd).toBeCloseTo(10, 9);
  });

  it("prices the KV read requests on a line of their own, past their allowance, at the price table's price", () => {
    const used = usageOf(traffic({ purgeWrites: 3 }), { ...NO_OPERATIONS, kvReads: 14_000_000 });
    const reads = costOf(used, PUBLISHED_PRICES).lines.find((one) => one.item === 'KV read requests');
    const price = PUBLISHED_PRICES.kvReadRequests;
    expect(reads).toEqual({
      item: 'KV read requests',
      quantity: 14_000_000,
      unit: 'requests',
      included: price.includedPerMonth,
      usd: ((14_000_000 - price.includedPerMonth) / price.per) * price.usd,
      source: price.source,
    });
    // (14M − 10M) / 1M × $0.50; the reads are not the writes, which stay the purges'.
    expect(reads?.usd).toBeCloseTo(2, 9);
    const other = { ...PUBLISHED_PRICES, kvReadRequests: { ...price, usd: 1, includedPerMonth: 0 } };
    expect(costOf(used, other).lines.find((one) => one.item === 'KV read requests')?.usd).toBeCloseTo(14, 9);
    expect(costOf(used, PUBLISHED_PRICES).lines.find((one) => one.item === 'KV write requests')?.quantity).toBe(3);
  });

  it("shares the account's CPU allowance between the two workers: the shield gets what the edge left", () => {
    const used = usageOf(
      traffic({
        edge: { memoryHits: { requests: 300_000_000, bytes: 0 }, cacheHits: none, misses: none, other: none },
        shield: { hits: none, misses: { requests: 1_000_000, bytes: 0 }, other: none },
      }),
      NO_OPERATIONS,
    );
    const estimate = costOf(used, PUBLISHED_PRICES);
    const [edge, shield] = ['Workers CPU, edge', 'Workers CPU, shield'].map((item) =>
      estimate.lines.find((one) => one.item === item),
    );
    expect(edge?.included).toBe(30_000_000);
    expect(shield?.included).toBe(Math.max(0, 30_000_000 - used.cpuMs.edge));
    expect((edge?.usd ?? 0) + (shield?.usd ?? 0)).toBeCloseTo(
      ((used.cpuMs.edge + used.cpuMs.shield - 30_000_000) / 1e6) * 0.02,
      9,
    );
  });

  it('without the allowances: every unit at its price and no subscription (an account whose allowances are used elsewhere)', () => {
    const used = usageOf(
      traffic({ edge: { memoryHits: none, cacheHits: { requests: 2_000_000, bytes: 0 }, misses: none, other: none } }),
      NO_OPERATIONS,
    );
    const estimate = costOf(used, PUBLISHED_PRICES, { allowances: false });
    expect(estimate.subscriptionUSD).toBe(0);
    expect(estimate.lines.every((line) => line.included === 0)).toBe(true);
    expect(estimate.lines.find((line) => line.item === 'Workers requests')?.usd).toBeCloseTo(0.6, 9);
  });

  it('scales a shorter period to a 30-day month before pricing it', () => {
    const day = usageOf(
      traffic({
        periodMs: DAY_MS,
        edge: { memoryHits: none, cacheHits: { requests: 1_000_000, bytes: 1e12 }, misses: none, other: none },
        originBytes: 1e11,
      }),
      NO_OPERATIONS,
    );
    const estimate = costOf(day, PUBLISHED_PRICES);
    expect(estimate.usage.workersRequests).toBe(30_000_000);
    expect(estimate.egressAloneUSD).toBeCloseTo(30 * 7, 9);
    expect(estimate.originEgressUSD).toBeCloseTo(3 * 7, 9);
  });

  it('prices egress per TB of 10^12 bytes: every byte served, against the bytes the shield fetched', () => {
    const estimate = costOf(
      usageOf(
        traffic({
          edge: { memoryHits: none, cacheHits: { requests: 1, bytes: 2e12 }, misses: none, other: none },
          originBytes: 5e11,
        }),
        NO_OPERATIONS,
      ),
      PUBLISHED_PRICES,
    );
    expect([estimate.egressAloneUSD, estimate.originEgressUSD]).toEqual([14, 3.5]);
    expect(estimate.totalUSD).toBeCloseTo(estimate.platformUSD + 3.5, 9);
    expect(estimate.savedUSD).toBeCloseTo(14 - estimate.totalUSD, 9);
  });
});
