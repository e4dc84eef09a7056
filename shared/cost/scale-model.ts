// What tiercache costs and which platform limit binds first as it grows (docs/costs.md, "At scale"; `npm run cost --
// --scale`): 10 to 10,000 edge isolates at 1k to 100k requests a second, priced for two ways of keeping the purge list
// and the stats, the former (before) and the code's (after). Each design is a value, so a third is one more constant.

import {
  DURABLE_OBJECT_REQUESTS_PER_SECOND,
  KV_WRITES_PER_KEY_PER_SECOND,
  type PlatformLimit,
} from '../config/platform-limits.ts';
import { type CostEstimate, costOf } from './cost-model.ts';
import type { PriceTable } from './prices.ts';
import {
  EDGE_LOCATIONS_MAX,
  type Intervals,
  type RefreshDesign,
  refreshOperations,
  tierLoads,
} from './refresh-design.ts';
import { EXAMPLE_MIXES, mixTraffic, type TrafficMix } from './traffic-mix.ts';
import { MONTH_MS, type Operations, type Traffic, usageOf } from './usage.ts';

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

/** The shield's isolates against the edge's: as in the examples (100 edge, 4 shield). An assumption. */
const SHIELD_ISOLATES_PER_EDGE = 4 / 100;
/** Purges a month for the grid: a hundred a day. An assumption; `--purges` gives another. */
const SCALE_PURGES_PER_MONTH = 3_000;

/** The traffic the grid's requests are made of: the 10 TB example's (1 MB objects, 95 % edge hits). */
const SCALE_MIX = EXAMPLE_MIXES[1] as TrafficMix;

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
  if (design.listing === 'on-head-change')
    limits.push({
      name: 'KV head key',
      load: scenario.purgesPerMonth / seconds / KV_WRITES_PER_KEY_PER_SECOND.value,
      limit: KV_WRITES_PER_KEY_PER_SECOND,
    });
  limits.sort((a, b) => b.load - a.load);
  return { scenario, design, operations, kvWrites, estimate, limits };
}

/** The operations a month of `traffic` makes under `design` where `scenario` runs (refresh-design.ts). */
function scaleOperations(
  traffic: Traffic,
  scenario: ScaleScenario,
  design: RefreshDesign,
  intervals: Intervals,
): { operations: Operations; kvWrites: number } {
  const tiers = tierLoads(
    traffic,
    { edge: scenario.isolates, shield: scenario.shieldIsolates },
    { edge: scenario.locations, shield: scenario.shieldLocations },
  );
  return refreshOperations(tiers, traffic.periodMs, scenario.purgesPerMonth, design, intervals);
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
