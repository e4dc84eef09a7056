// What tiercache costs and which platform limit binds first as it grows (docs/costs.md, "At scale"; `npm run cost --
// --scale`): 10 to 10,000 edge isolates at 1k to 100k requests a second, priced for two ways of keeping the purge list
// and the stats, today's (before) and issue 37's (after). Each design is a value, so a third is one more constant.

import {
  DURABLE_OBJECT_REQUESTS_PER_SECOND,
  KV_WRITES_PER_KEY_PER_SECOND,
  type PlatformLimit,
} from '../config/platform-limits.ts';
import { type CostEstimate, costOf } from './cost-model.ts';
import { FLUSH_STORAGE, operationsPerPeriod } from './platform-operations.ts';
import type { PriceTable } from './prices.ts';
import { EXAMPLE_MIXES, type Intervals, mixTraffic, type TrafficMix } from './traffic-mix.ts';
import { MONTH_MS, type Operations, type Traffic, usageOf } from './usage.ts';

/** How the isolates learn of purges and where their stats go. */
export interface RefreshDesign {
  name: string;
  /**
   * Who reads the purge head key (one KV get) each REFRESH_MS while requests come: nobody (no head key), each location
   * once (its isolates share the last read through the Cache API for REFRESH_MS), or each isolate (where the Cache API
   * does not work: a Worker on workers.dev).
   */
  headReaders: 'none' | 'location' | 'isolate';
  /** When an isolate lists the purge namespace (one KV list): every refresh, or only when the head it read changed. */
  listing: 'every-refresh' | 'on-head-change';
  /** A safety list each isolate makes at most this often whatever the head says; undefined = none. */
  safetyListMs?: number;
  /** Durable Objects the stats batches spread over (each isolate flushes to one of them). */
  statsShards: number;
}

/** Today's code: every isolate lists the purge namespace every REFRESH_MS it serves; one stats object for everything. */
export const BEFORE: RefreshDesign = { name: 'before', headReaders: 'none', listing: 'every-refresh', statsShards: 1 };

/**
 * Issue 37's design: a head key written with each purge batch, read with a get once per location per refresh (shared
 * through the Cache API), a list only when it changed; the stats batches spread over 16 Durable Objects.
 */
export const AFTER: RefreshDesign = {
  name: 'after',
  headReaders: 'location',
  listing: 'on-head-change',
  statsShards: 16,
};

/** The after design where the Cache API does not work (workers.dev): each isolate reads the head itself. */
export const AFTER_WITHOUT_CACHE_API: RefreshDesign = { ...AFTER, name: 'after, workers.dev', headReaders: 'isolate' };

/** Where the traffic runs and how much of it there is. */
export interface ScaleScenario {
  /** Edge isolates the requests spread over. */
  isolates: number;
  requestsPerSecond: number;
  /** Locations (data centers) those isolates are in. */
  locations: number;
  /** The shield's isolates, and the locations they are in (it is placed by its origin: one, usually). */
  shieldIsolates: number;
  shieldLocations: number;
  /** Purge requests a month: each a batch written to KV, and after, the head key written with it. */
  purgesPerMonth: number;
}

/** One limit's load: 1 is the limit, above it the platform refuses, queues or cannot run the traffic. */
export interface LimitLoad {
  name: 'stats object' | 'isolate CPU' | 'KV head key';
  /** The load against the limit (0.5 = half of it). */
  load: number;
  limit: PlatformLimit | { value: number; unit: string; source: string };
}

export interface ScalePoint {
  scenario: ScaleScenario;
  design: RefreshDesign;
  operations: Operations;
  kvWrites: number;
  estimate: CostEstimate;
  /** Every limit's load, highest first: the first is the one that binds first. */
  limits: LimitLoad[];
}

/** The grid of the issue: isolates by requests a second. */
export const SCALE_ISOLATES = [10, 100, 1_000, 10_000] as const;
export const SCALE_REQUESTS_PER_SECOND = [1_000, 10_000, 100_000] as const;

/**
 * Locations an edge's isolates spread over at most: an assumption (Cloudflare runs in over 300 cities; how many of them
 * serve a given Worker, and with how many machines each, is Cloudflare's to decide and not published).
 */
export const EDGE_LOCATIONS_MAX = 300;
/** The shield's isolates against the edge's: as in the examples (100 edge, 4 shield). An assumption. */
export const SHIELD_ISOLATES_PER_EDGE = 4 / 100;
/** Purges a month for the grid: a hundred a day. An assumption; `--purges` gives another. */
export const SCALE_PURGES_PER_MONTH = 3_000;

/** The traffic the grid's requests are made of: the 10 TB example's (1 MB objects, 95 % edge hits). */
export const SCALE_MIX = EXAMPLE_MIXES[1] as TrafficMix;

/** An isolate is one thread: a second of CPU time each second is all it has. */
const ISOLATE_THREAD: LimitLoad['limit'] = {
  value: 1_000,
  unit: 'CPU ms per second per isolate (one thread)',
  source: 'https://developers.cloudflare.com/workers/reference/how-workers-works/',
};

/** The grid's scenario for `isolates` and `requestsPerSecond`, under the assumptions above. */
export function scenarioOf(
  isolates: number,
  requestsPerSecond: number,
  options: { locations?: number; purgesPerMonth?: number } = {},
): ScaleScenario {
  const shieldIsolates = Math.max(1, Math.round(isolates * SHIELD_ISOLATES_PER_EDGE));
  return {
    isolates,
    requestsPerSecond,
    locations: Math.max(1, Math.min(isolates, options.locations ?? EDGE_LOCATIONS_MAX)),
    shieldIsolates,
    shieldLocations: 1,
    purgesPerMonth: options.purgesPerMonth ?? SCALE_PURGES_PER_MONTH,
  };
}

/** A month of `scenario` under `design`: its operations, its bill, and its limits' loads. */
export function scalePoint(
  scenario: ScaleScenario,
  design: RefreshDesign,
  prices: PriceTable,
  intervals: Intervals,
  mix: TrafficMix = SCALE_MIX,
): ScalePoint {
  const traffic = mixTraffic({
    ...mix,
    bytesPerMonth: scenario.requestsPerSecond * (MONTH_MS / 1000) * mix.responseBytes,
    isolates: { edge: scenario.isolates, shield: scenario.shieldIsolates },
    purgesPerMonth: scenario.purgesPerMonth,
  });
  const { operations, kvWrites } = scaleOperations(traffic, scenario, design, intervals);
  const usage = usageOf({ ...traffic, purgeWrites: kvWrites }, operations);
  const estimate = costOf(usage, prices);
  const edgeRequests = usage.workersRequests;
  const seconds = MONTH_MS / 1000;
  const limits: LimitLoad[] = [
    {
      name: 'stats object',
      load: operations.flushes / seconds / design.statsShards / DURABLE_OBJECT_REQUESTS_PER_SECOND.value,
      limit: DURABLE_OBJECT_REQUESTS_PER_SECOND,
    },
    {
      // Each edge isolate's share of the edge's CPU time, against the one thread it runs on.
      name: 'isolate CPU',
      load: edgeRequests > 0 ? usage.cpuMs.edge / seconds / scenario.isolates / ISOLATE_THREAD.value : 0,
      limit: ISOLATE_THREAD,
    },
  ];
  if (design.headReaders !== 'none')
    limits.push({
      name: 'KV head key',
      load: scenario.purgesPerMonth / seconds / KV_WRITES_PER_KEY_PER_SECOND.value,
      limit: KV_WRITES_PER_KEY_PER_SECOND,
    });
  limits.sort((a, b) => b.load - a.load);
  return { scenario, design, operations, kvWrites, estimate, limits };
}

/**
 * The operations a month of `traffic` makes under `design`. Flushes are the same in both designs (one per isolate per
 * STATS_FLUSH_MS at most, to whichever shard): only how many objects they spread over changes. The purge list:
 * - every-refresh: each isolate lists every REFRESH_MS it serves (the reread of platform-operations.ts);
 * - on-head-change: the head is read with a get by each reader (a location, or an isolate) every REFRESH_MS while its
 *   requests come, and each isolate lists once per head change it sees, at most once per refresh; plus its safety list.
 * KV writes: a purge batch each, and after, the head key rewritten with it (at most once a second: KV's per-key limit).
 */
export function scaleOperations(
  traffic: Traffic,
  scenario: ScaleScenario,
  design: RefreshDesign,
  intervals: Intervals,
): { operations: Operations; kvWrites: number } {
  const { periodMs } = traffic;
  const edgeRequests =
    traffic.edge.memoryHits.requests +
    traffic.edge.cacheHits.requests +
    traffic.edge.misses.requests +
    traffic.edge.other.requests;
  const shieldRecords = traffic.shield.hits.requests + traffic.shield.misses.requests + traffic.shield.other.requests;
  // Every shield invocation reads the list, the copy of a slice read ahead among them.
  const shieldInvocations = shieldRecords + traffic.sliceRequests;
  const tiers = [
    { requests: edgeRequests, flushed: edgeRequests, isolates: scenario.isolates, locations: scenario.locations },
    {
      requests: shieldInvocations,
      flushed: shieldRecords,
      isolates: scenario.shieldIsolates,
      locations: scenario.shieldLocations,
    },
  ];
  const per = (interval: number, readers: (tier: (typeof tiers)[number]) => number): number =>
    tiers.reduce(
      (sum, tier) => sum + operationsPerPeriod('reread', tier.requests, periodMs, readers(tier), interval),
      0,
    );
  const flushes = tiers.reduce(
    (sum, tier) => sum + operationsPerPeriod('flush', tier.flushed, periodMs, tier.isolates, intervals.flushMs),
    0,
  );
  const refreshes = per(intervals.refreshMs, (tier) => tier.isolates);
  // The head is written at most once a second whatever the purges: KV refuses a key written faster.
  const headWrites =
    design.headReaders === 'none'
      ? 0
      : Math.min(scenario.purgesPerMonth, (periodMs / 1000) * KV_WRITES_PER_KEY_PER_SECOND.value);
  const isolates = scenario.isolates + scenario.shieldIsolates;
  const kvLists =
    design.listing === 'every-refresh'
      ? refreshes
      : Math.min(refreshes, isolates * headWrites) +
        (design.safetyListMs === undefined ? 0 : per(design.safetyListMs, (tier) => tier.isolates));
  const kvReads =
    design.headReaders === 'none'
      ? 0
      : design.headReaders === 'isolate'
        ? refreshes
        : per(intervals.refreshMs, (tier) => tier.locations);
  return {
    operations: {
      flushes,
      durableObjectRowsRead: flushes * FLUSH_STORAGE.rowsRead,
      durableObjectRowsWritten: flushes * FLUSH_STORAGE.rowsWritten,
      kvLists,
      kvReads,
    },
    kvWrites: scenario.purgesPerMonth + headWrites,
  };
}

/** The grid: every isolates × requests-a-second point, under each design. */
export function scaleGrid(
  designs: readonly RefreshDesign[],
  prices: PriceTable,
  intervals: Intervals,
  options: { locations?: number; purgesPerMonth?: number; mix?: TrafficMix } = {},
): { scenario: ScaleScenario; points: ScalePoint[] }[] {
  return SCALE_ISOLATES.flatMap((isolates) =>
    SCALE_REQUESTS_PER_SECOND.map((rate) => {
      const scenario = scenarioOf(isolates, rate, options);
      return {
        scenario,
        points: designs.map((design) => scalePoint(scenario, design, prices, intervals, options.mix)),
      };
    }),
  );
}
