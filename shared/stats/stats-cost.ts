// What the window's traffic costs (stats.json's `cost`, docs/costs.md): its counts and the store's own operations in
// the cost model's terms (shared/cost/usage.ts), priced as a 30-day month at its rate against the origin's egress,
// and Cloudflare's cache in front of the origin estimated from the same counts (shared/cost/alternatives.ts).

import { cloudflareCacheBounds } from '../cost/alternatives.ts';
import { costOf } from '../cost/cost-model.ts';
import { PUBLISHED_PRICES } from '../cost/prices.ts';
import { MONTH_MS, type Traffic, usageOf, type Volume } from '../cost/usage.ts';
import { TIER_NAMES, type TierName } from '../tiers/tiers.ts';
import { HIT_OUTCOMES, OUTCOMES, type Outcome } from './record.ts';
import type { StatsCost, TierStats } from './stats-json.ts';
import { MINUTE_MS } from './stats-window.ts';
import { noHedges, noPrefetches, type StoreOperations } from './store-operations.ts';

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
  const of = (tier: TierName, outcomes: readonly Outcome[]): Volume => ({
    requests: outcomes.reduce((sum, outcome) => sum + tiers[tier].outcomes[outcome].requests, 0),
    bytes: outcomes.reduce((sum, outcome) => sum + tiers[tier].outcomes[outcome].bytesSent, 0),
  });
  const hits = OUTCOMES.filter((outcome) => HIT_OUTCOMES.has(outcome));
  const shield = tiers.shield.totals;
  const sliceRequests = shield.slicesHit + shield.slicesMissed;
  return {
    periodMs,
    edge: {
      // Every edge hit priced as a Cache API hit: the counts do not tell memory hits apart, and those cost less.
      memoryHits: { requests: 0, bytes: 0 },
      cacheHits: of('edge', hits),
      misses: of('edge', ['miss']),
      other: of('edge', ['bypass', 'error']),
    },
    shield: { hits: of('shield', hits), misses: of('shield', ['miss']), other: of('shield', ['bypass', 'error']) },
    sliceRequests,
    slicedShare: shield.bytesSent > 0 ? Math.min(1, (sliceRequests * deployment.sliceBytes) / shield.bytesSent) : 0,
    originBytes: shield.bytesFromOrigin,
    hedges: { requests: operations.hedges?.hedgesStarted ?? 0, bytes: operations.hedges?.hedgeBytes ?? 0 },
    prefetches: { requests: operations.prefetches?.prefetched ?? 0, bytes: operations.prefetches?.prefetchBytes ?? 0 },
    purgeWrites: operations.kvWrites,
    logSample: deployment.logSample,
    analytics: deployment.analytics,
  };
}
