// A month of traffic described the way a user would (docs/costs.md, `npm run cost`), turned into the
// stats' vocabulary and the operations its isolates make under the design the code runs (refresh-design.ts
// DEPLOYED_DESIGN); three example mixes make the docs' table.

import { DEFAULT_FLUSH_MS } from '../config/observability.ts';
import { REFRESH_MS } from '../purge/purge-rules.ts';
import { type Comparison, compareAlternatives } from './alternatives.ts';
import { type CostEstimate, costOf } from './cost-model.ts';
import { R2_SWEEP_EVERY_MS } from './platform-operations.ts';
import type { PriceTable } from './prices.ts';
import {
  DEPLOYED_DESIGN,
  EDGE_LOCATIONS_MAX,
  type Intervals,
  type RefreshDesign,
  refreshOperations,
  tierLoads,
} from './refresh-design.ts';
import { MONTH_MS, type Operations, type R2Traffic, type Traffic, type Usage, usageOf, type Volume } from './usage.ts';

const MIB = 1024 * 1024;

export interface TrafficMix {
  name: string;
  /** Body bytes the edge sends in a month (SI: 10 TB = 10^13). */
  bytesPerMonth: number;
  /** Mean body bytes per response: an object, or the range a player asks for. */
  responseBytes: number;
  /** Share of the edge's requests answered from its caches. */
  edgeHitRatio: number;
  /**
   * Of those, the share from the isolate's memory layer (small, hot objects: at most MEMORY_OBJECT_MAX, 32 MiB in all).
   */
  memoryShare: number;
  /** Share of what the edge asks the shield for that the shield has stored. */
  shieldHitRatio: number;
  /** The slice size when the objects move as slices (at least SLICE_THRESHOLD); absent = cached whole. */
  sliceBytes?: number;
  /** How many isolates the requests spread over at each tier (locations × machines that serve them). */
  isolates: { edge: number; shield: number };
  /**
   * The locations those isolates are in (a location's edge isolates share their reads of the purge head); absent: each
   * edge isolate in a location of its own up to EDGE_LOCATIONS_MAX (the costlier case), the shield in one.
   */
  locations?: { edge: number; shield: number };
  purgesPerMonth: number;
  analytics: boolean;
  /** LOG_SAMPLE. */
  logSample: number;
  /**
   * Share of the bytes sent that belong to objects over Cloudflare's cacheable limit (512 MB on Free, Pro and Business):
   * what Cloudflare's cache in front of the origin can never serve (alternatives.ts). tiercache caches them as slices.
   */
  overCacheLimitShare: number;
  /** The R2 tier behind the shield (docs/costs.md "The R2 tier"); absent: off. */
  r2?: R2Mix;
}

/** What the R2 tier does for a mix. */
export interface R2Mix {
  /** Of the shield's misses, the share R2 answers from what it keeps. */
  hitRatio: number;
  /** Bytes it keeps, on average over the month. */
  storedBytes: number;
  /** Of what it fetches from the origin, the share its admission keeps (a put each). */
  writeShare: number;
}

export type { Intervals };

/** A deployment's intervals when nothing is set: STATS_FLUSH_MS's default, and the purge list's REFRESH_MS. */
export const DEPLOYED_INTERVALS: Intervals = { flushMs: DEFAULT_FLUSH_MS, refreshMs: REFRESH_MS };

/** The month a mix describes, as the stats would count it. */
export function mixTraffic(mix: TrafficMix): Traffic {
  const edgeRequests = mix.bytesPerMonth / mix.responseBytes;
  const hits = edgeRequests * clamp(mix.edgeHitRatio);
  const memory = hits * clamp(mix.memoryShare);
  const misses = edgeRequests - hits;
  const sliced = mix.sliceBytes !== undefined && mix.sliceBytes > 0;
  // The edge asks for whole slices: a response of L bytes covers at least ceil(L / slice) of them.
  const perMiss = sliced ? Math.max(1, Math.ceil(mix.responseBytes / (mix.sliceBytes ?? 1))) : 1;
  const askedBytes = sliced ? (mix.sliceBytes ?? 0) : mix.responseBytes;
  const shieldRequests = misses * perMiss;
  const shieldHits = shieldRequests * clamp(mix.shieldHitRatio);
  const volume = (requests: number, bytesEach: number): Volume => ({ requests, bytes: requests * bytesEach });
  const shieldMisses = volume(shieldRequests - shieldHits, askedBytes);
  const r2 = mix.r2 === undefined ? undefined : r2Traffic(mix.r2, shieldMisses, sliced, mix.isolates.shield);
  return {
    periodMs: MONTH_MS,
    edge: {
      memoryHits: volume(memory, mix.responseBytes),
      cacheHits: volume(hits - memory, mix.responseBytes),
      misses: volume(misses, mix.responseBytes),
      other: volume(0, 0),
    },
    shield: { hits: volume(shieldHits, askedBytes), misses: shieldMisses, other: volume(0, 0) },
    sliceRequests: sliced ? shieldRequests : 0,
    slicedShare: sliced ? 1 : 0,
    // Behind the R2 tier, what it missed; else every miss of the shield's.
    originBytes: r2 === undefined ? shieldMisses.bytes : r2.misses.bytes,
    // The purge requests, one batch each however many targets it names; the writes the design adds to each (the head,
    // the snapshots) are refreshOperations'.
    purgeWrites: mix.purgesPerMonth,
    logSample: mix.logSample,
    analytics: mix.analytics,
    ...(r2 === undefined ? {} : { r2 }),
  };
}

/**
 * The R2 tier asked for every miss of the shield's: what it answers, what it fetches and keeps (its bytes all month);
 * a slice's lookup is two gets (its object's manifest, then the slice), a whole object's one; each shield isolate walks
 * its index a page a minute.
 */
function r2Traffic(mix: R2Mix, shieldMisses: Volume, sliced: boolean, isolates: number): R2Traffic {
  const share = clamp(mix.hitRatio);
  const misses = shieldMisses.requests * (1 - share);
  return {
    hits: { requests: shieldMisses.requests * share, bytes: shieldMisses.bytes * share },
    misses: { requests: misses, bytes: shieldMisses.bytes * (1 - share) },
    lookups: shieldMisses.requests * (sliced ? 2 : 1),
    writes: misses * clamp(mix.writeShare),
    lists: isolates * (MONTH_MS / R2_SWEEP_EVERY_MS),
    storedByteSeconds: Math.max(0, mix.storedBytes) * (MONTH_MS / 1000),
  };
}

/** Where a mix's isolates are: as it says, else each edge isolate in a location of its own (up to 300), the shield in one. */
function mixLocations(mix: TrafficMix): { edge: number; shield: number } {
  return mix.locations ?? { edge: Math.max(1, Math.min(mix.isolates.edge, EDGE_LOCATIONS_MAX)), shield: 1 };
}

/**
 * The flushes, purge-head reads and purge-list lists the mix's isolates make in its month under `design` (the design
 * the code runs unless given), the stats objects' rows, and the KV writes its purges make.
 */
function mixOperations(
  traffic: Traffic,
  mix: TrafficMix,
  intervals: Intervals,
  design: RefreshDesign = DEPLOYED_DESIGN,
): { operations: Operations; kvWrites: number } {
  const tiers = tierLoads(traffic, mix.isolates, mixLocations(mix));
  return refreshOperations(tiers, traffic.periodMs, mix.purgesPerMonth, design, intervals);
}

/** What a mix's month uses of each metered thing under `design`. */
function mixUsage(mix: TrafficMix, intervals: Intervals, design: RefreshDesign = DEPLOYED_DESIGN): Usage {
  const traffic = mixTraffic(mix);
  const { operations, kvWrites } = mixOperations(traffic, mix, intervals, design);
  return usageOf({ ...traffic, purgeWrites: kvWrites }, operations);
}

/** A mix's month at `prices`, under the design the code runs unless `options.design` says otherwise. */
export function mixCost(
  mix: TrafficMix,
  prices: PriceTable,
  intervals: Intervals,
  options: { allowances?: boolean; design?: RefreshDesign } = {},
): CostEstimate {
  return costOf(mixUsage(mix, intervals, options.design), prices, options);
}

/**
 * A mix's month with tiercache beside what its user has without it: the origin alone, and Cloudflare's cache in front
 * with, at each location, the hit ratio tiercache's edge has (both are Cloudflare's per-location caches), and behind
 * them, with Tiered Cache on (the default: Smart Tiered Cache comes with Smart Shield's free package), an upper tier
 * that holds what tiercache's shield holds.
 */
export function mixComparison(
  mix: TrafficMix,
  prices: PriceTable,
  intervals: Intervals,
  options: { allowances?: boolean; tieredCache?: boolean; design?: RefreshDesign } = {},
): { estimate: CostEstimate; comparison: Comparison } {
  const estimate = mixCost(mix, prices, intervals, options);
  const tieredCache = options.tieredCache ?? true;
  const comparison = compareAlternatives(estimate, {
    servedBytes: estimate.usage.servedBytes,
    overLimitShare: mix.overCacheLimitShare,
    locationHitRatio: mix.edgeHitRatio,
    upperTierHitRatio: tieredCache ? mix.shieldHitRatio : 0,
    pricePerTB: prices.originEgressPerTB.usd,
    tieredCache,
  });
  return { estimate, comparison };
}

const TB = 1e12;
const EVERY_FEW = { analytics: true, logSample: 0.01 } as const;

/** The docs' three examples (docs/costs.md says why each number is what it is). */
export const EXAMPLE_MIXES: readonly TrafficMix[] = [
  {
    name: 'small static site: 50 GB of 25 kB assets',
    bytesPerMonth: 50e9,
    responseBytes: 25_000,
    edgeHitRatio: 0.98,
    memoryShare: 0.7,
    shieldHitRatio: 0.5,
    isolates: { edge: 20, shield: 2 },
    purgesPerMonth: 300,
    overCacheLimitShare: 0,
    ...EVERY_FEW,
  },
  {
    name: '10 TB of 1 MB objects at a 95 % hit ratio',
    bytesPerMonth: 10 * TB,
    responseBytes: 1_000_000,
    edgeHitRatio: 0.95,
    memoryShare: 0,
    shieldHitRatio: 0,
    isolates: { edge: 100, shield: 4 },
    purgesPerMonth: 0,
    overCacheLimitShare: 0,
    ...EVERY_FEW,
  },
  {
    name: 'video: 50 TB in 16 MiB ranges of sliced objects',
    bytesPerMonth: 50 * TB,
    responseBytes: 16 * MIB,
    edgeHitRatio: 0.9,
    memoryShare: 0,
    shieldHitRatio: 0.8,
    sliceBytes: 8 * MIB,
    isolates: { edge: 100, shield: 4 },
    purgesPerMonth: 30,
    // Assumed: most of a video library's bytes are in files over 512 MB (a feature-length film is several GB).
    overCacheLimitShare: 0.8,
    ...EVERY_FEW,
  },
];

function clamp(ratio: number): number {
  return Number.isFinite(ratio) ? Math.min(1, Math.max(0, ratio)) : 0;
}
