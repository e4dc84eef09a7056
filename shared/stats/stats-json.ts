// The shape of GET /__tiercache/stats.json (docs/operating.md), what the page shows and `npm run stats` prints: exact
// sums of the records (record.ts) the tiers flushed in the window, and ratios derived from them.

import type { CostEstimate, CostLine } from '../cost/cost-model.ts';
import type { TierName } from '../tiers/tiers.ts';
import type { Outcome } from './record.ts';
import type { HedgeCounts, PrefetchCounts, R2Counts } from './store-operations.ts';

/** Sums over a set of records. */
export interface Totals {
  requests: number;
  bytesSent: number;
  bytesFromNextHop: number;
  bytesFromOrigin: number;
  /** Sum of the records' time to first byte (ms): divide by requests for the mean. */
  ttfbMsSum: number;
  durationMsSum: number;
  slicesHit: number;
  slicesMissed: number;
  /** Requests whose client went away before the answer's body ended (record.ts `departed`). */
  departed: number;
}

export interface TierStats {
  totals: Totals;
  /**
   * Requests answered without fetching the object from the next hop (hit, stale, revalidated, collapsed) over all; null
   * with no requests.
   */
  hitRatio: number | null;
  /**
   * Bytes sent that were not fetched from the next hop, over bytes sent (1 − fetched/sent, at least 0); null with none
   * sent.
   */
  byteHitRatio: number | null;
  /** Mean time to first byte (ms); null with no requests. */
  ttfbMsMean: number | null;
  outcomes: Record<Outcome, Totals>;
}

/** One minute of the window (its start, ISO 8601), per tier. */
export interface MinuteStats {
  minute: string;
  tiers: Record<TierName, { requests: number; hits: number; bytesSent: number; bytesFromNextHop: number }>;
}

export interface StatsJson {
  /** ISO 8601. */
  generatedAt: string;
  windowMinutes: number;
  tiers: Record<TierName, TierStats>;
  /** What the origin was spared: the edge's bytes sent minus the bytes the shield fetched from the origin. */
  egress: {
    originBytes: number;
    servedBytes: number;
    savedBytes: number;
    /** EGRESS_PRICE_PER_TB (USD per 10^12 bytes). */
    pricePerTB: number;
    savedUSD: number;
    /** What the origin bytes cost. */
    spentUSD: number;
  };
  /** Oldest first, every minute of the window (zeros where nothing happened). */
  minutes: MinuteStats[];
  /** By requests at the edge, most first (bounded). */
  hosts: { host: string; requests: number; bytesSent: number }[];
  /** Keys the edge missed most, most first (bounded). */
  topMisses: { key: string; misses: number }[];
  /** Why requests bypassed the cache, per tier, most first. */
  bypassReasons: { tier: TierName; reason: string; requests: number }[];
  /** Why requests failed, per tier, most first. */
  errors: { tier: TierName; reason: string; requests: number }[];
  /** Latest first (bounded). */
  recentPurges: { kind: string; value: string; at: string }[];
  /** What the window's traffic costs on Cloudflare at its rate for a month (stats-cost.ts, docs/costs.md). */
  cost: StatsCost;
  /**
   * STATS_FLUSH_MS as the answering edge reads it: each isolate of each tier writes its counts at most this long after
   * a request, so a request's counts are in the sums within it (`npm run verify` waits that long for them).
   */
  flushMs?: number;
}

/** A line of the month's bill, as the cost model prices it (without the price's source). */
type StatsCostLine = Omit<CostLine, 'item' | 'source'> & { item: string };

/** The month's sums, as the cost model makes them (shared/cost/cost-model.ts). */
type MonthSums = Pick<
  CostEstimate,
  'subscriptionUSD' | 'platformUSD' | 'originEgressUSD' | 'egressAloneUSD' | 'totalUSD' | 'savedUSD'
>;

export interface StatsCost {
  /**
   * What the stats store counted in the window: its own requests and rows, the isolates' KV requests, the shield's
   * hedges (store-operations.ts HedgeCounts: priced as origin requests and, their bytes, origin egress), its
   * prefetched segments (PrefetchCounts: priced as the origin requests, subrequests and egress they were) and its R2
   * tier's operations (R2Counts: gets as Class B, puts and lists as Class A, the byte-seconds its puts commit to as
   * storage; zeros where there is no R2 tier).
   */
  windowOperations: {
    durableObjectRequests: number;
    durableObjectRowsRead: number;
    durableObjectRowsWritten: number;
    kvListRequests: number;
    kvReadRequests: number;
    kvWriteRequests: number;
  } & HedgeCounts &
    PrefetchCounts &
    R2Counts;
  /** The window's length in months (the month below is the window's counts over this). */
  monthsPerWindow: number;
  /** 30 days at the window's rate, at the published prices, the plan's allowances applied. */
  month: MonthSums & {
    lines: StatsCostLine[];
    /** Estimated Workers CPU ms at each tier (an upper bound: measured on the local runtime). */
    cpuMs: { edge: number; shield: number };
    /**
     * Cloudflare's cache in front of the origin instead, an estimate (shared/cost/alternatives.ts): its origin egress
     * with every object under 512 MB, and with every sliced object over it.
     */
    cloudflareCache: { lowUSD: number; highUSD: number };
  };
  pricesReadAt: string;
}
