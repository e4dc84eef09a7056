// What the window's traffic costs (stats.json's `cost`, docs/costs.md): its counts and the store's own operations in
// the cost model's terms (shared/cost/usage.ts), priced as a 30-day month at its rate against the origin's egress,
// and Cloudflare's cache in front of the origin estimated from the same counts (shared/cost/alternatives.ts). The R2
// tier is priced where it is: its records or its operations in the window.

import { cloudflareCacheBounds } from '../cost/alternatives.ts';
import { costOf } from '../cost/cost-model.ts';
import { PUBLISHED_PRICES } from '../cost/prices.ts';
import { MONTH_MS, type R2Traffic, type Traffic, usageOf, type Volume } from '../cost/usage.ts';
import { TIER_NAMES, type TierName } from '../tiers/tiers.ts';
import { HIT_OUTCOMES, OUTCOMES, type Outcome } from './record.ts';
import type { StatsCost, TierStats } from './stats-json.ts';
import { MINUTE_MS } from './stats-window.ts';
import { anyR2, noHedges, noPrefetches, noR2, type StoreOperations } from './store-operations.ts';

/** What the view needs to know of the deployment to price its counts. */
export interface CostDeployment {
  /** SLICE_SIZE: how many bytes a slice request carries. */
  sliceBytes: number;
  /** Whether the tiers write to Analytics Engine. */
  analytics: boolean;
  /** LOG_SAMPLE. */
  logSample: number;
}

export const DEFAULT_COST_DEPLOYMENT: CostDeployment = { sliceBytes: 8 * 1024 * 1024, analytics: false, logSample: 0 };

export function windowCost(
  tiers: Record<TierName, TierStats>,
  operations: StoreOperations,
  windowMinutes: number,
  pricePerTB: number,
  deployment: CostDeployment,
): StatsCost {
  const periodMs = windowMinutes * MINUTE_MS;
  const traffic = windowTraffic(tiers, periodMs, operations, deployment);
  const flushes = sumOverTiers(operations.flushes);
  const kvLists = sumOverTiers(operations.kvLists);
  const kvReads = sumOverTiers(operations.kvReads);
  const usage = usageOf(traffic, {
    flushes,
    durableObjectRowsRead: operations.rowsRead,
    durableObjectRowsWritten: operations.rowsWritten,
    kvLists,
    kvReads,
  });
  const month = costOf(usage, {
    ...PUBLISHED_PRICES,
    originEgressPerTB: { ...PUBLISHED_PRICES.originEgressPerTB, usd: pricePerTB },
  });
  const edge = tiers.edge.totals;
  const perMonth = MONTH_MS / periodMs;
  const cloudflareCache = cloudflareCacheBounds({
    servedBytes: month.usage.servedBytes,
    originBytes: month.usage.originBytes,
    // The edge looks its slices up whole: their count times the slice size, what its sliced answers carried at most.
    slicedServedBytes: (edge.slicesHit + edge.slicesMissed) * deployment.sliceBytes * perMonth,
    pricePerTB,
  });
  return {
    windowOperations: {
      durableObjectRequests: flushes,
      durableObjectRowsRead: operations.rowsRead,
      durableObjectRowsWritten: operations.rowsWritten,
      kvListRequests: kvLists,
      kvReadRequests: kvReads,
      kvWriteRequests: operations.kvWrites,
      // A bucket stored before hedges were counted has none.
      ...(operations.hedges ?? noHedges()),
      // And before prefetches were.
      ...(operations.prefetches ?? noPrefetches()),
      // And before the R2 tier's were.
      ...(operations.r2 ?? noR2()),
    },
    monthsPerWindow: periodMs / MONTH_MS,
    month: {
      lines: month.lines.map(({ item, quantity, unit, included, usd }) => ({ item, quantity, unit, included, usd })),
      cpuMs: month.usage.cpuMs,
      subscriptionUSD: month.subscriptionUSD,
      platformUSD: month.platformUSD,
      originEgressUSD: month.originEgressUSD,
      egressAloneUSD: month.egressAloneUSD,
      totalUSD: month.totalUSD,
      savedUSD: month.savedUSD,
      cloudflareCache,
    },
    pricesReadAt: month.pricesReadAt,
  };
}

/** A count of every tier's. */
function sumOverTiers(counts: Record<TierName, number>): number {
  return TIER_NAMES.reduce((sum, name) => sum + counts[name], 0);
}

/** The window's counts as the cost model's traffic. */
function windowTraffic(
  tiers: Record<TierName, TierStats>,
  periodMs: number,
  operations: StoreOperations,
  deployment: CostDeployment,
): Traffic {
  const of = (tier: TierName, outcomes: readonly Outcome[]): Volume => volumeOf(tiers[tier], outcomes);
  const shield = tiers.shield.totals;
  const sliceRequests = shield.slicesHit + shield.slicesMissed;
  return {
    periodMs,
    edge: {
      // Every edge hit priced as a Cache API hit: the counts do not tell memory hits apart, and those cost less.
      memoryHits: { requests: 0, bytes: 0 },
      cacheHits: of('edge', HITS),
      misses: of('edge', ['miss']),
      other: of('edge', ['bypass', 'error']),
    },
    shield: { hits: of('shield', HITS), misses: of('shield', ['miss']), other: of('shield', ['bypass', 'error']) },
    sliceRequests,
    slicedShare: shield.bytesSent > 0 ? Math.min(1, (sliceRequests * deployment.sliceBytes) / shield.bytesSent) : 0,
    originBytes: shield.bytesFromOrigin,
    hedges: { requests: operations.hedges?.hedgesStarted ?? 0, bytes: operations.hedges?.hedgeBytes ?? 0 },
    prefetches: { requests: operations.prefetches?.prefetched ?? 0, bytes: operations.prefetches?.prefetchBytes ?? 0 },
    purgeWrites: operations.kvWrites,
    logSample: deployment.logSample,
    analytics: deployment.analytics,
    ...r2Traffic(tiers, operations),
  };
}

/** Every outcome that is a hit (record.ts HIT_OUTCOMES). */
const HITS = OUTCOMES.filter((outcome) => HIT_OUTCOMES.has(outcome));

/** Requests and bytes sent by a tier's `outcomes`. */
function volumeOf(stats: TierStats, outcomes: readonly Outcome[]): Volume {
  const totals = outcomes.map((outcome) => stats.outcomes[outcome]);
  return {
    requests: totals.reduce((sum, one) => sum + one.requests, 0),
    bytes: totals.reduce((sum, one) => sum + one.bytesSent, 0),
  };
}

/**
 * The R2 tier's part of the traffic, where it is (records or operations counted in the window): its answers to the
 * shield by outcome, and exactly what it did to its bucket (store-operations.ts R2Counts), its storage the storage the
 * window's puts commit to.
 */
function r2Traffic(tiers: Record<TierName, TierStats>, operations: StoreOperations): { r2?: R2Traffic } {
  // A bucket stored before the R2 tier's operations were counted has none.
  const counts = operations.r2 ?? noR2();
  if (tiers.r2.totals.requests === 0 && !anyR2(counts)) return {};
  return {
    r2: {
      hits: volumeOf(tiers.r2, HITS),
      misses: volumeOf(tiers.r2, ['miss']),
      lookups: counts.r2Gets,
      writes: counts.r2Puts,
      lists: counts.r2Lists,
      storedByteSeconds: counts.r2StoredByteSeconds,
    },
  };
}
