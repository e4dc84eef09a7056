// stats.json (stats-json.ts) from the stored minute buckets and the purge records: only the window's buckets count
// (not an older one not yet dropped, nor a later one from a clock ahead); every list bounded, most first, ties by name.

import { perTier, TIER_NAMES, type TierName } from '../tiers/tiers.ts';
import { weightsBy } from './fold-other.ts';
import type { MinuteBucket, ReasonRow } from './minute-bucket.ts';
import { compareNames, rankBy } from './ranking.ts';
import { type CostDeployment, DEFAULT_COST_DEPLOYMENT, windowCost } from './stats-cost.ts';
import type { StatsJson, TierStats } from './stats-json.ts';
import { DEFAULT_WINDOW_MINUTES, inWindow, windowLength, windowMinuteStarts } from './stats-window.ts';
import { addOperations, emptyOperations } from './store-operations.ts';
import { minuteTier, tierStats } from './tier-stats.ts';

/** A purge as the view is handed it (shared/purge's PurgeRecord fits). */
export interface PurgeSeen {
  kind: string;
  value: string;
  /** ms epoch. */
  at: number;
}

export const MAX_VIEW_HOSTS = 20;
export const MAX_VIEW_MISSES = 20;
export const MAX_VIEW_PURGES = 20;
/** Per tier, in each of bypassReasons and errors. */
export const MAX_VIEW_REASONS = 20;

/** Dates a JavaScript Date can hold (ECMA-262 §21.4.1.22): beyond them toISOString throws. */
const MAX_DATE_MS = 8.64e15;

/**
 * The stats of the window ending with `now`'s minute; money at `pricePerTB` USD per 10^12 bytes
 * (0 when it is no price), and the window's cost priced for a deployment like `deployment`.
 */
export function statsView(
  buckets: readonly MinuteBucket[],
  purges: readonly PurgeSeen[],
  now: number,
  pricePerTB: number,
  windowMinutes: number = DEFAULT_WINDOW_MINUTES,
  deployment: CostDeployment = DEFAULT_COST_DEPLOYMENT,
): StatsJson {
  const length = windowLength(windowMinutes);
  const shown = buckets.filter((bucket) => inWindow(bucket.minute, now, length));
  const rows = shown.flatMap((bucket) => bucket.rows);
  const tiers = perTier((name) => tierStats(rows.filter((row) => row.tier === name)));
  const reasons = shown.flatMap((bucket) => bucket.reasons);
  const price = Number.isFinite(pricePerTB) && pricePerTB >= 0 ? pricePerTB : 0;
  const operations = shown.reduce((sum, bucket) => addOperations(sum, bucket.operations), emptyOperations());
  return {
    generatedAt: new Date(now).toISOString(),
    windowMinutes: length,
    tiers,
    egress: egressOf(tiers, price),
    minutes: minutesOf(shown, now, length),
    hosts: hostsOf(shown),
    topMisses: topMisses(shown),
    bypassReasons: reasonsOf(reasons, 'bypass'),
    errors: reasonsOf(reasons, 'error'),
    recentPurges: recentPurges(purges),
    cost: windowCost(tiers, operations, length, price, deployment),
  };
}

/** Origin egress and what the tiers spared it: the edge's bytes sent against the shield's bytes from the origin. */
function egressOf(tiers: Record<TierName, TierStats>, pricePerTB: number): StatsJson['egress'] {
  const originBytes = tiers.shield.totals.bytesFromOrigin;
  const servedBytes = tiers.edge.totals.bytesSent;
  const savedBytes = Math.max(0, servedBytes - originBytes);
  return {
    originBytes,
    servedBytes,
    savedBytes,
    pricePerTB,
    savedUSD: (savedBytes / 1e12) * pricePerTB,
    spentUSD: (originBytes / 1e12) * pricePerTB,
  };
}

/** Every minute of the window, oldest first, zeros where no bucket is. */
function minutesOf(shown: readonly MinuteBucket[], now: number, length: number): StatsJson['minutes'] {
  return windowMinuteStarts(now, length).map((minute) => {
    const rows = shown.filter((bucket) => bucket.minute === minute).flatMap((bucket) => bucket.rows);
    return {
      minute: new Date(minute).toISOString(),
      tiers: perTier((name) => minuteTier(rows.filter((row) => row.tier === name))),
    };
  });
}

/** Hosts by the edge's requests (what clients asked for; the shield sees the same hosts again). */
function hostsOf(shown: readonly MinuteBucket[]): StatsJson['hosts'] {
  const hosts = new Map<string, { host: string; requests: number; bytesSent: number }>();
  for (const row of shown.flatMap((bucket) => bucket.rows)) {
    if (row.tier !== 'edge') continue;
    const into = hosts.get(row.host) ?? { host: row.host, requests: 0, bytesSent: 0 };
    into.requests += row.requests;
    into.bytesSent += row.bytesSent;
    hosts.set(row.host, into);
  }
  return rankBy(
    hosts.values(),
    (host) => host.requests,
    (host) => host.host,
  ).slice(0, MAX_VIEW_HOSTS);
}

/** The keys the edge missed most over the window's buckets. */
function topMisses(shown: readonly MinuteBucket[]): StatsJson['topMisses'] {
  const misses = weightsBy(
    shown.flatMap((bucket) => bucket.misses),
    (row) => row.key,
    (row) => row.misses,
  );
  return rankBy(
    misses,
    ([, count]) => count,
    ([key]) => key,
  )
    .slice(0, MAX_VIEW_MISSES)
    .map(([key, count]) => ({ key, misses: count }));
}

/** The reasons of one outcome, grouped by tier (edge first, the order a request goes), most first within each. */
function reasonsOf(reasons: readonly ReasonRow[], outcome: 'bypass' | 'error'): StatsJson['bypassReasons'] {
  return TIER_NAMES.flatMap((tier) => {
    const ofTier = reasons.filter((row) => row.tier === tier && row.outcome === outcome);
    const ranked = rankBy(
      weightsBy(
        ofTier,
        (row) => row.reason,
        (row) => row.requests,
      ),
      ([, requests]) => requests,
      ([reason]) => reason,
    );
    return ranked.slice(0, MAX_VIEW_REASONS).map(([reason, requests]) => ({ tier, reason, requests }));
  });
}

/** The latest purges first (ties by kind, then value); records whose time is no date are left out. */
function recentPurges(purges: readonly PurgeSeen[]): StatsJson['recentPurges'] {
  const dated = purges.filter((purge) => Number.isFinite(purge.at) && Math.abs(purge.at) <= MAX_DATE_MS);
  const sorted = [...dated].sort(
    (a, b) => b.at - a.at || compareNames(a.kind, b.kind) || compareNames(a.value, b.value),
  );
  return sorted
    .slice(0, MAX_VIEW_PURGES)
    .map((purge) => ({ kind: purge.kind, value: purge.value, at: new Date(purge.at).toISOString() }));
}
