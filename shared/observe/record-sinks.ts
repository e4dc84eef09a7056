// Where a tier's records go: one JSON log line (sampled, errors always), Analytics Engine when bound, and this
// isolate's batch, flushed to one of the stats store's shards at most every STATS_FLUSH_MS in waitUntil (no request
// waits). The isolate's operations (its purge list's KV requests, the shield's hedges, prefetches and R2 operations) go
// with each flush; work that counts some after the last record (a prefetch, the R2 tier's walk) has them flushed too.

import type { ObservabilityConfig } from '../config/observability.ts';
import { isolatePurges } from '../purge/purge-store.ts';
import type { TierRecord } from '../stats/record.ts';
import { StatsBatch } from '../stats/stats-batch.ts';
import { firstShard, nextShard } from '../stats/store-shards.ts';
import type { TierName } from '../tiers/tiers.ts';
import { isolateHedges } from './hedge-tally.ts';
import { isolatePrefetches } from './prefetch-tally.ts';
import { isolateR2 } from './r2-tally.ts';
import { type StatsStoreNamespace, sendBatch } from './stats-store-client.ts';

/** The part of a Workers Analytics Engine dataset used here. */
export interface AnalyticsSink {
  writeDataPoint(point: AnalyticsPoint): void;
}

export interface AnalyticsPoint {
  indexes: string[];
  blobs: string[];
  doubles: number[];
}

/** Where a tier's records go; each part absent = not told there. */
export interface StatsSinks {
  observability: ObservabilityConfig;
  store: StatsStoreNamespace | undefined;
  analytics: AnalyticsSink | undefined;
}

/** This isolate's records not yet flushed (module state: one batch per isolate). */
const batch = new StatsBatch();
/** The tier this isolate runs (its records say which): its batches carry its KV operations under it. */
let isolateTier: TierName = 'edge';
let lastFlush = 0;
/** The shard this isolate's last flush went to; undefined until its first (chosen then: no randomness at start-up). */
let lastShard: number | undefined;
let flushing: Promise<void> | undefined;
/** A flush is set for when the interval ends. */
let scheduled = false;
/** Operations were counted (tellOperations) since the last flush took them: a flush goes out for them alone. */
let operationsPending = false;

export function tellRecord(
  record: TierRecord,
  sinks: StatsSinks,
  keepAlive: (promise: Promise<unknown>) => void,
): void {
  const { observability } = sinks;
  // A client that went away is normal (its record says `departed`, its outcome what the tier did): only a failure of
  // ours is logged whatever the sample.
  if (record.outcome === 'error' || (observability.logSample > 0 && Math.random() < observability.logSample)) {
    console.log(JSON.stringify({ tiercache: record.tier, ...record }));
  }
  try {
    sinks.analytics?.writeDataPoint(dataPoint(record));
  } catch (error) {
    // A data point is not worth a failed request.
    console.error(
      `tiercache stats: Analytics Engine refused a data point (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (sinks.store === undefined) return;
  isolateTier = record.tier;
  batch.add(record);
  scheduleFlush(sinks.store, observability.flushMs, keepAlive);
}

/**
 * Work of `tier`'s that runs past the record of the request that started it (a prefetch, the R2 tier's puts and walk)
 * counted operations: they are flushed when a record would be, within the interval, even if no request comes after
 * them. `keepAlive` is that work's own invocation's (waitUntil): workerd runs a timer only within the invocation that
 * set it.
 */
export function tellOperations(
  tier: TierName,
  sinks: StatsSinks,
  keepAlive: (promise: Promise<unknown>) => void,
): void {
  if (sinks.store === undefined) return;
  isolateTier = tier;
  operationsPending = true;
  scheduleFlush(sinks.store, sinks.observability.flushMs, keepAlive);
}

/** A flush now when one is due (and none is under way), else one set for when the interval ends, unless one is set. */
function scheduleFlush(
  store: StatsStoreNamespace,
  flushMs: number,
  keepAlive: (promise: Promise<unknown>) => void,
): void {
  // Now, not when the request came: a record that settled late (a long fill) is due as any other.
  const wait = flushMs - (Date.now() - lastFlush);
  if (flushing === undefined && wait <= 0) keepAlive(flushStats(store, flushMs));
  else if (!scheduled && flushMs > 0) {
    // Not due yet (with 0, the flush under way drains it): flushed when it is, even if no other
    // request comes (waitUntil keeps the invocation that long; STATS_FLUSH_MS is a few seconds).
    scheduled = true;
    keepAlive(
      new Promise((resolve) => setTimeout(resolve, Math.max(0, wait))).then(() => {
        scheduled = false;
        return flushStats(store, 0);
      }),
    );
  }
}

/**
 * Writes this isolate's batch to the store, and its operations with it; one flush at a time per isolate, going on while
 * records (or operations told) keep arriving and the interval has passed again (with 0, until none is left). A batch of
 * no records goes only for operations told (tellOperations). The stats page flushes its own isolate (interval 0) before
 * it reads.
 */
export async function flushStats(store: StatsStoreNamespace, flushMs: number): Promise<void> {
  // After the flush under way (which may stop at its own interval), with this one's.
  while (flushing !== undefined) await flushing;
  if (batch.size === 0 && !operationsPending) return;
  flushing = drain(store, flushMs).finally(() => {
    flushing = undefined;
  });
  await flushing;
}

async function drain(store: StatsStoreNamespace, flushMs: number): Promise<void> {
  while (batch.size > 0 || operationsPending) {
    operationsPending = false;
    lastFlush = Date.now();
    // Each flush to the next shard (store-shards.ts): the deployment's flushes spread over every shard.
    lastShard = lastShard === undefined ? firstShard(Math.random()) : nextShard(lastShard);
    // The purge list's KV requests and the shield's hedges, prefetches and R2 operations since the last flush go with
    // it: the stats page prices them.
    const operations = {
      tier: isolateTier,
      ...isolatePurges.takeKvOperations(),
      ...isolateHedges.take(),
      ...isolatePrefetches.take(),
      ...isolateR2.take(),
    };
    await sendBatch(store, { ...batch.take(), operations }, lastShard);
    if (Date.now() - lastFlush < flushMs) return;
  }
}

/**
 * Analytics Engine's shape (docs/operating.md has the SQL): index1 the host, blob1–7
 * tier, outcome, reason, host, key prefix, method, whole|sliced; double1–9 status, bytes sent,
 * from the next hop, from the origin, TTFB, duration, slices hit, slices missed, departed (1 or 0). New
 * doubles go last: the dataset's earlier rows keep their columns.
 */
function dataPoint(record: TierRecord): AnalyticsPoint {
  return {
    indexes: [record.host],
    blobs: [
      record.tier,
      record.outcome,
      record.reason ?? '',
      record.host,
      record.keyPrefix,
      record.method,
      record.sliced ? 'sliced' : 'whole',
    ],
    doubles: [
      record.status,
      record.bytesSent,
      record.bytesFromNextHop,
      record.bytesFromOrigin,
      record.ttfbMs,
      record.durationMs,
      record.slicesHit,
      record.slicesMissed,
      record.departed ? 1 : 0,
    ],
  };
}
