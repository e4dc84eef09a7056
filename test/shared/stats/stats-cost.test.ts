import { describe, expect, it } from 'vitest';
import { MEMORY_HIT_CPU_MS, WARM_REQUEST_CPU_MS } from '../../../shared/cost/measured-cpu.ts';
import { PUBLISHED_PRICES } from '../../../shared/cost/prices.ts';
import { mergeBatch } from '../../../shared/stats/minute-bucket.ts';
import { DEFAULT_COST_DEPLOYMENT, windowCost } from '../../../shared/stats/stats-cost.ts';
import { statsView } from '../../../shared/stats/stats-view.ts';
import { MINUTE_MS } from '../../../shared/stats/stats-window.ts';
import {
  addOperations,
  emptyOperations,
  mergeOperations,
  noHedges,
  noPrefetches,
  noR2,
} from '../../../shared/stats/store-operations.ts';
import { BASE, batchOf, record } from './arbitraries.ts';

const NOW = BASE + 90_000;
const MONTH_PER_HOUR = 720;

function tiersOf(...records: Parameters<typeof record>[0][]) {
  return statsView([...mergeBatch(new Map(), batchOf(records.map(record))).values()], [], NOW, 7).tiers;
}

const line = (cost: ReturnType<typeof windowCost>, item: string) => cost.month.lines.find((one) => one.item === item);

describe('windowCost', () => {
  it("estimates Cloudflare's cache in front as a month: from tiercache's origin egress to that plus every sliced byte the edge sent", () => {
    const SLICE = DEFAULT_COST_DEPLOYMENT.sliceBytes;
    const tiers = tiersOf(
      { bytesSent: 4 * SLICE, sliced: true, slicesHit: 4 },
      { bytesSent: 1e9, outcome: 'miss', bytesFromNextHop: 1e9 },
      { tier: 'shield', outcome: 'miss', bytesSent: 1e9, bytesFromNextHop: 1e9, bytesFromOrigin: 1e9 },
    );
    const cost = windowCost(tiers, emptyOperations(), 60, 7, DEFAULT_COST_DEPLOYMENT);
    // 1 GB an hour from the origin: 720 GB a month at $7 per TB; the 4 slices' bytes an hour on top at most.
    expect(cost.month.cloudflareCache.lowUSD).toBeCloseTo(0.72 * 7, 9);
    expect(cost.month.cloudflareCache.highUSD).toBeCloseTo(((1e9 + 4 * SLICE) * MONTH_PER_HOUR * 7) / 1e12, 9);
  });

  it('prices the window as 30 days at its rate: an hour is a 720th of a month', () => {
    const cost = windowCost(tiersOf({ bytesSent: 1e9 }), emptyOperations(), 60, 7, DEFAULT_COST_DEPLOYMENT);
    expect(cost.monthsPerWindow).toBeCloseTo(1 / MONTH_PER_HOUR, 12);
    expect(line(cost, 'Workers requests')?.quantity).toBe(MONTH_PER_HOUR);
    // 1 GB an hour from the edge's cache: 720 GB a month the origin would have sent alone.
    expect(cost.month.egressAloneUSD).toBeCloseTo(0.72 * 7, 9);
    expect(cost.month.originEgressUSD).toBe(0);
  });

  it('prices every edge hit as a Cache API hit (the counts do not tell memory hits apart): an upper bound', () => {
    const cost = windowCost(tiersOf({ bytesSent: 0 }), emptyOperations(), 60, 7, DEFAULT_COST_DEPLOYMENT);
    expect(cost.month.cpuMs.edge).toBeCloseTo(MONTH_PER_HOUR * WARM_REQUEST_CPU_MS, 6);
    expect(cost.month.cpuMs.edge).toBeGreaterThan(MONTH_PER_HOUR * MEMORY_HIT_CPU_MS);
  });

  it('takes the Durable Object and KV requests the stats store counted, not a model of them', () => {
    const operations = addOperations(
      mergeOperations('edge', { kvLists: 5, kvWrites: 2, kvReads: 3 }, { read: 3, written: 2 }),
      mergeOperations('shield', { kvLists: 0, kvWrites: 0, kvReads: 1 }, { read: 0, written: 0 }),
    );
    const cost = windowCost(tiersOf({}), operations, 60, 7, DEFAULT_COST_DEPLOYMENT);
    expect(cost.windowOperations).toEqual({
      durableObjectRequests: 2,
      durableObjectRowsRead: 3,
      durableObjectRowsWritten: 2,
      kvListRequests: 5,
      kvReadRequests: 4,
      kvWriteRequests: 2,
      // No hedge, prefetch or R2 operation in these windows.
      ...noHedges(),
      ...noPrefetches(),
      ...noR2(),
    });
    expect(line(cost, 'Durable Object requests')?.quantity).toBe(2 * MONTH_PER_HOUR);
    expect(line(cost, 'KV list requests')?.quantity).toBe(5 * MONTH_PER_HOUR);
    expect(line(cost, 'KV read requests')?.quantity).toBe(4 * MONTH_PER_HOUR);
    expect(line(cost, 'KV write requests')?.quantity).toBe(2 * MONTH_PER_HOUR);
  });

  it("counts the shield's hedges and prices their bytes as origin egress", () => {
    const hedges = { hedgesStarted: 10, hedgesWon: 7, hedgesLost: 3, hedgeBytes: 5e9 };
    const hedged = mergeOperations('shield', { kvLists: 0, kvWrites: 0, kvReads: 0 }, { read: 0, written: 0 }, hedges);
    const none = mergeOperations('shield', { kvLists: 0, kvWrites: 0, kvReads: 0 }, { read: 0, written: 0 });
    const cost = windowCost(tiersOf({}), hedged, 60, 7, DEFAULT_COST_DEPLOYMENT);
    const without = windowCost(tiersOf({}), none, 60, 7, DEFAULT_COST_DEPLOYMENT);
    expect(cost.windowOperations).toMatchObject(hedges);
    // 5 GB an hour is 3.6 TB a month at $7/TB.
    expect(cost.month.originEgressUSD - without.month.originEgressUSD).toBeCloseTo(5e9 * MONTH_PER_HOUR * 7e-12, 6);
  });

  it("counts the shield's prefetches and prices them as origin egress and the subrequests of a shield miss", () => {
    const prefetches = {
      prefetched: 1000,
      prefetchesUsed: 900,
      prefetchesWasted: 100,
      prefetchBytes: 2e9,
      prefetchWastedBytes: 2e8,
    };
    const kv = { kvLists: 0, kvWrites: 0, kvReads: 0 };
    const rows = { read: 0, written: 0 };
    const counted = mergeOperations('shield', kv, rows, undefined, prefetches);
    const cost = windowCost(tiersOf({}), counted, 60, 7, DEFAULT_COST_DEPLOYMENT);
    const without = windowCost(tiersOf({}), mergeOperations('shield', kv, rows), 60, 7, DEFAULT_COST_DEPLOYMENT);
    expect(cost.windowOperations).toMatchObject(prefetches);
    // 2 GB an hour is 1.44 TB a month at $7/TB; each prefetch a lookup, the origin's fetch and a put.
    expect(cost.month.originEgressUSD - without.month.originEgressUSD).toBeCloseTo(2e9 * MONTH_PER_HOUR * 7e-12, 6);
    expect(cost.month.cpuMs.shield).toBeGreaterThan(without.month.cpuMs.shield);
  });

  it("prices the R2 tier's counted operations: puts and lists as Class A, gets as Class B, its puts' byte-seconds as GB-months", () => {
    const kv = { kvLists: 0, kvWrites: 0, kvReads: 0 };
    const rows = { read: 0, written: 0 };
    // An hour: 10,000 gets, 2,000 puts of 1 MB each kept a day, 60 lists (one a minute).
    const r2 = { r2Gets: 10_000, r2Puts: 2_000, r2PutBytes: 2e9, r2Lists: 60, r2StoredByteSeconds: 2e9 * 86_400 };
    const counted = mergeOperations('shield', kv, rows, undefined, undefined, r2);
    const cost = windowCost(tiersOf({}), counted, 60, 7, DEFAULT_COST_DEPLOYMENT);
    expect(cost.windowOperations).toMatchObject(r2);
    expect(line(cost, 'R2 Class A operations')?.quantity).toBeCloseTo((2_000 + 60) * MONTH_PER_HOUR, 6);
    expect(line(cost, 'R2 Class B operations')?.quantity).toBeCloseTo(10_000 * MONTH_PER_HOUR, 6);
    // 2 GB committed for a day each hour: 2 GB-days an hour, 2 × 720 / 30 = 48 GB-months a month.
    expect(line(cost, 'R2 storage')?.quantity).toBeCloseTo(48, 9);
  });

  it('prices the R2 tier where it is (its records or operations in the window), and adds no R2 line where it is not', () => {
    const r2Lines = (cost: ReturnType<typeof windowCost>) =>
      cost.month.lines.filter((one) => one.item.startsWith('R2 ')).map((one) => one.item);
    const none = windowCost(tiersOf({}, { tier: 'shield' }), emptyOperations(), 60, 7, DEFAULT_COST_DEPLOYMENT);
    expect(r2Lines(none)).toEqual([]);
    // Its answers to the shield in the window, no operation counted (a bucket stored before they were): priced at 0.
    const answered = windowCost(
      tiersOf({ tier: 'r2', outcome: 'hit', bytesSent: 1e6 }),
      emptyOperations(),
      60,
      7,
      DEFAULT_COST_DEPLOYMENT,
    );
    expect(r2Lines(answered)).toEqual(['R2 storage', 'R2 Class A operations', 'R2 Class B operations']);
    // Only its walk of the index: the lists priced.
    const kv = { kvLists: 0, kvWrites: 0, kvReads: 0 };
    const walked = mergeOperations('shield', kv, { read: 0, written: 0 }, undefined, undefined, {
      ...emptyOperations().r2,
      r2Lists: 1,
    });
    const listed = windowCost(tiersOf({}), walked, 60, 7, DEFAULT_COST_DEPLOYMENT);
    expect(line(listed, 'R2 Class A operations')?.quantity).toBe(MONTH_PER_HOUR);
  });

  it("prices the origin's egress at EGRESS_PRICE_PER_TB, the Workers lines at the published prices", () => {
    const tiers = tiersOf(
      { bytesSent: 1e9, outcome: 'miss', bytesFromNextHop: 1e9 },
      { tier: 'shield', outcome: 'miss', bytesSent: 1e9, bytesFromNextHop: 1e9, bytesFromOrigin: 1e9 },
    );
    const at10 = windowCost(tiers, emptyOperations(), 60, 10, DEFAULT_COST_DEPLOYMENT);
    expect(at10.month.originEgressUSD).toBeCloseTo(0.72 * 10, 9);
    expect(at10.month.egressAloneUSD).toBeCloseTo(0.72 * 10, 9);
    expect(at10.month.subscriptionUSD).toBe(PUBLISHED_PRICES.subscription.usdPerMonth);
    expect(at10.pricesReadAt).toBe(PUBLISHED_PRICES.readAt);
  });

  it('counts Analytics Engine points only for a deployment that writes them', () => {
    const tiers = tiersOf({}, { tier: 'shield', outcome: 'miss' });
    expect(
      line(
        windowCost(tiers, emptyOperations(), 60, 7, { ...DEFAULT_COST_DEPLOYMENT, analytics: true }),
        'Analytics Engine data points',
      )?.quantity,
    ).toBe(2 * MONTH_PER_HOUR);
    expect(
      line(windowCost(tiers, emptyOperations(), 60, 7, DEFAULT_COST_DEPLOYMENT), 'Analytics Engine data points')
        ?.quantity,
    ).toBe(0);
  });
});

describe('statsView cost', () => {
  it("sums the operations of the window's buckets only, as it does their requests", () => {
    const inside = {
      ...mergeBatch(new Map(), batchOf([record({})])).get(BASE)!,
      operations: mergeOperations('edge', { kvLists: 2, kvWrites: 0, kvReads: 1 }, { read: 3, written: 2 }),
    };
    const outside = {
      minute: BASE - 90 * MINUTE_MS,
      rows: [],
      reasons: [],
      misses: [],
      operations: mergeOperations('shield', { kvLists: 100, kvWrites: 0, kvReads: 50 }, { read: 9, written: 9 }),
    };
    const view = statsView([inside, outside], [], NOW, 7);
    expect(view.cost.windowOperations).toEqual({
      durableObjectRequests: 1,
      durableObjectRowsRead: 3,
      durableObjectRowsWritten: 2,
      kvListRequests: 2,
      kvReadRequests: 1,
      kvWriteRequests: 0,
      // No hedge, prefetch or R2 operation in these windows.
      ...noHedges(),
      ...noPrefetches(),
      ...noR2(),
    });
  });

  it('with nothing counted, is the Workers Paid subscription alone', () => {
    const view = statsView([], [], NOW, 7);
    expect(view.cost.month.platformUSD).toBe(5);
    expect([view.cost.month.originEgressUSD, view.cost.month.egressAloneUSD]).toEqual([0, 0]);
  });
});
