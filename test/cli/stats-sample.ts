// A realistic stats.json (shared/stats/stats-json.ts) of an hour's traffic, its sums consistent
// the way the edge derives them: the edge's outcomes add up to its totals, hit ratio 1050/1200,
// byte hit ratio 1 − 420 MB / 3.5 GB, egress saved = served − origin, at $7 per TB.

import type { Outcome } from '../../shared/stats/record.ts';
import { DEFAULT_COST_DEPLOYMENT, windowCost } from '../../shared/stats/stats-cost.ts';
import type { MinuteStats, StatsJson, TierStats, Totals } from '../../shared/stats/stats-json.ts';
import type { StoreOperations } from '../../shared/stats/store-operations.ts';
import type { TierName } from '../../shared/tiers/tiers.ts';

function totals(requests: number, bytesSent: number, bytesFromNextHop = 0, bytesFromOrigin = 0, ttfbMsSum = 0): Totals {
  return {
    requests,
    bytesSent,
    bytesFromNextHop,
    bytesFromOrigin,
    ttfbMsSum,
    durationMsSum: ttfbMsSum * 2,
    slicesHit: 0,
    slicesMissed: 0,
    departed: 0,
  };
}

const EDGE_OUTCOMES: Record<Outcome, Totals> = {
  hit: totals(1020, 3_000_000_000, 0, 0, 1020),
  miss: totals(130, 480_000_000, 420_000_000, 400_000_000, 2600),
  stale: totals(10, 10_000_000, 0, 0, 20),
  revalidated: totals(10, 5_000_000, 0, 0, 100),
  collapsed: totals(10, 5_000_000, 0, 0, 60),
  bypass: totals(15, 0, 0, 0, 30),
  error: totals(5, 0, 0, 0, 10),
};

const SHIELD_OUTCOMES: Record<Outcome, Totals> = {
  hit: totals(20, 20_000_000, 0, 0, 100),
  miss: totals(120, 400_000_000, 400_000_000, 400_000_000, 5800),
  stale: totals(0, 0),
  revalidated: totals(0, 0),
  collapsed: totals(0, 0),
  bypass: totals(5, 0, 0, 0, 50),
  error: totals(5, 0, 0, 0, 200),
};

const MINUTE_MS = 60_000;
const LAST_MINUTE = Date.parse('2026-01-30T10:15:00.000Z');

/** A minute without traffic at a tier (the R2 tier's, off in this sample, every minute). */
const IDLE = { requests: 0, hits: 0, bytesSent: 0, bytesFromNextHop: 0 };

/** 60 minutes, 09:16 to 10:15; traffic in the last three. */
function minutes(): MinuteStats[] {
  const busy: Record<number, MinuteStats['tiers']> = {
    57: {
      edge: { requests: 200, hits: 150, bytesSent: 600_000_000, bytesFromNextHop: 100_000_000 },
      shield: { requests: 50, hits: 5, bytesSent: 100_000_000, bytesFromNextHop: 95_000_000 },
      r2: IDLE,
    },
    58: {
      edge: { requests: 400, hits: 350, bytesSent: 1_200_000_000, bytesFromNextHop: 120_000_000 },
      shield: { requests: 50, hits: 5, bytesSent: 120_000_000, bytesFromNextHop: 115_000_000 },
      r2: IDLE,
    },
    59: {
      edge: { requests: 600, hits: 550, bytesSent: 1_700_000_000, bytesFromNextHop: 200_000_000 },
      shield: { requests: 50, hits: 10, bytesSent: 200_000_000, bytesFromNextHop: 190_000_000 },
      r2: IDLE,
    },
  };
  return Array.from({ length: 60 }, (_, i) => ({
    minute: new Date(LAST_MINUTE - (59 - i) * MINUTE_MS).toISOString(),
    tiers: busy[i] ?? { edge: IDLE, shield: IDLE, r2: IDLE },
  }));
}

export function statsSample(): StatsJson {
  const tiers: Record<TierName, TierStats> = {
    edge: {
      totals: totals(1200, 3_500_000_000, 420_000_000, 400_000_000, 3840),
      hitRatio: 0.875,
      byteHitRatio: 0.88,
      ttfbMsMean: 3.2,
      outcomes: EDGE_OUTCOMES,
    },
    shield: {
      totals: totals(150, 420_000_000, 400_000_000, 400_000_000, 6150),
      hitRatio: 20 / 150,
      byteHitRatio: 1 - 400 / 420,
      ttfbMsMean: 41,
      outcomes: SHIELD_OUTCOMES,
    },
    // The R2 tier is off in this sample: nothing counted.
    r2: {
      totals: totals(0, 0),
      hitRatio: 0,
      byteHitRatio: 0,
      ttfbMsMean: 0,
      outcomes: {
        hit: totals(0, 0),
        miss: totals(0, 0),
        stale: totals(0, 0),
        revalidated: totals(0, 0),
        collapsed: totals(0, 0),
        bypass: totals(0, 0),
        error: totals(0, 0),
      },
    },
  };
  const operations = sampleOperations();
  return {
    generatedAt: '2026-01-30T10:15:42.123Z',
    windowMinutes: 60,
    tiers,
    egress: {
      originBytes: 400_000_000,
      servedBytes: 3_500_000_000,
      savedBytes: 3_100_000_000,
      pricePerTB: 7,
      savedUSD: 0.0217,
      spentUSD: 0.0028,
    },
    minutes: minutes(),
    hosts: [
      { host: 'cdn.example', requests: 1100, bytesSent: 3_400_000_000 },
      { host: 'img.example', requests: 100, bytesSent: 100_000_000 },
    ],
    topMisses: [
      { key: '/video/big.bin', misses: 40 },
      { key: '/index.html', misses: 12 },
    ],
    bypassReasons: [
      { tier: 'edge', reason: 'method', requests: 10 },
      { tier: 'edge', reason: 'no-store', requests: 5 },
      { tier: 'shield', reason: 'no-store', requests: 5 },
    ],
    errors: [
      { tier: 'edge', reason: 'shield-unreachable', requests: 5 },
      { tier: 'shield', reason: 'origin-timeout', requests: 5 },
    ],
    recentPurges: [
      { kind: 'tag', value: 'blog', at: '2026-01-30T10:10:00.000Z' },
      { kind: 'everything', value: '', at: '2026-01-30T09:30:00.000Z' },
    ],
    cost: windowCost(tiers, operations, 60, 7, DEFAULT_COST_DEPLOYMENT),
  };
}

/** The hour's platform operations: the store's, the isolates' KV requests, the shield's hedges and prefetches. */
function sampleOperations(): StoreOperations {
  // Two isolates at each tier flushing every 5 s for the hour, each re-reading the purge list as often and reading one
  // purge batch too large for its key's metadata; the shield hedged a few late first bytes.
  return {
    flushes: { edge: 1440, shield: 1440, r2: 0 },
    rowsRead: 8640,
    rowsWritten: 5760,
    kvLists: { edge: 1440, shield: 1440, r2: 0 },
    kvWrites: 2,
    kvReads: { edge: 2, shield: 2, r2: 0 },
    hedges: { hedgesStarted: 12, hedgesWon: 9, hedgesLost: 3, hedgeBytes: 786_432 },
    prefetches: {
      prefetched: 40,
      prefetchesUsed: 36,
      prefetchesWasted: 2,
      prefetchBytes: 8_000_000,
      prefetchWastedBytes: 400_000,
    },
    // The R2 tier is off: no operations on a bucket.
    r2: { r2Gets: 0, r2Puts: 0, r2PutBytes: 0, r2Lists: 0, r2StoredByteSeconds: 0 },
  };
}

/**
 * The same hour with the R2 tier behind the shield: 100 of the shield's requests asked it, 60 answered from what it
 * kept; its gets, puts and list counted.
 */
export function withR2(stats: StatsJson): StatsJson {
  const r2: TierStats = {
    totals: totals(100, 300_000_000, 100_000_000, 100_000_000, 1200),
    hitRatio: 0.6,
    byteHitRatio: 1 - 100 / 300,
    ttfbMsMean: 12,
    outcomes: {
      ...stats.tiers.r2.outcomes,
      hit: totals(60, 200_000_000, 0, 0, 300),
      miss: totals(40, 100_000_000, 100_000_000, 100_000_000, 900),
    },
  };
  const tiers = { ...stats.tiers, r2 };
  const busy: Record<string, MinuteStats['tiers']['r2']> = {
    '2026-01-30T10:15:00.000Z': { requests: 40, hits: 24, bytesSent: 120_000_000, bytesFromNextHop: 76_000_000 },
  };
  const minutes = stats.minutes.map((minute) => ({
    ...minute,
    tiers: { ...minute.tiers, r2: busy[minute.minute] ?? minute.tiers.r2 },
  }));
  const operations = {
    ...sampleOperations(),
    r2: { r2Gets: 160, r2Puts: 30, r2PutBytes: 90_000_000, r2Lists: 120, r2StoredByteSeconds: 90_000_000 * 86_400 },
  };
  return { ...stats, tiers, minutes, cost: windowCost(tiers, operations, 60, 7, DEFAULT_COST_DEPLOYMENT) };
}
