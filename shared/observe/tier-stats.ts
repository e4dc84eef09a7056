// A tier's records (shared/stats/record.ts), told: logged as one JSON line (sampled, errors
// always), written to Workers Analytics Engine when bound, and counted into this isolate's
// batch, which is flushed to the stats store (shield/stats-store.ts) at most every
// STATS_FLUSH_MS, in waitUntil: a request never waits for any of it.

import type { ObservabilityConfig } from '../config/observability.ts';
import { takeKvOperations } from '../purge/purge-store.ts';
import type { StatsTier, TierRecord } from '../stats/record.ts';
import { StatsBatch, type StatsBatchJson } from '../stats/stats-batch.ts';

/** The part of the STATS Durable Object namespace used here (one object holds every tier's counts). */
export interface StatsStoreNamespace {
  idFromName(name: string): unknown;
  get(id: never): { fetch(url: string, init?: RequestInit): Promise<Response> };
}

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

/** The one object every tier flushes to, and the edge reads back. */
export const STATS_OBJECT_NAME = 'tiercache-stats';
const STORE_ORIGIN = 'https://stats.tiercache.internal';

/** This isolate's records not yet flushed (module state: one batch per isolate). */
const batch = new StatsBatch();
/** The tier this isolate runs (its records say which): its batches carry its KV operations under it. */
let isolateTier: StatsTier = 'edge';
let lastFlush = 0;
let flushing: Promise<void> | undefined;
/** A flush is set for when the interval ends. */
let scheduled = false;

export function tellRecord(
  record: TierRecord,
  sinks: StatsSinks,
  keepAlive: (promise: Promise<unknown>) => void,
): void {
  const { observability } = sinks;
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
  // Now, not when the request came: a record that settled late (a long fill) is due as any other.
  const wait = observability.flushMs - (Date.now() - lastFlush);
  if (flushing === undefined && wait <= 0) keepAlive(flushStats(sinks.store, observability.flushMs));
  else if (!scheduled && observability.flushMs > 0) {
    // Not due yet (with 0, the flush under way drains it): flushed when it is, even if no other
    // request comes (waitUntil keeps the invocation that long; STATS_FLUSH_MS is a few seconds).
    scheduled = true;
    const store = sinks.store;
    keepAlive(
      new Promise((resolve) => setTimeout(resolve, Math.max(0, wait))).then(() => {
        scheduled = false;
        return flushStats(store, 0);
      }),
    );
  }
}

/**
 * Writes this isolate's batch to the store; one flush at a time per isolate, going on while
 * records keep arriving and the interval has passed again (with 0, until none is left). The
 * stats page flushes its own isolate (interval 0) before it reads.
 */
export async function flushStats(store: StatsStoreNamespace, flushMs: number): Promise<void> {
  // After the flush under way (which may stop at its own interval), with this one's.
  while (flushing !== undefined) await flushing;
  if (batch.size === 0) return;
  flushing = drain(store, flushMs).finally(() => {
    flushing = undefined;
  });
  await flushing;
}

async function drain(store: StatsStoreNamespace, flushMs: number): Promise<void> {
  while (batch.size > 0) {
    lastFlush = Date.now();
    // The purge list's KV requests since the last flush go with it: the stats page prices them.
    await send(store, { ...batch.take(), operations: { tier: isolateTier, ...takeKvOperations() } });
    if (Date.now() - lastFlush < flushMs) return;
  }
}

/** The store's buckets of the last `minutes` minutes (StatsStore answers them as JSON). */
export async function readStats(store: StatsStoreNamespace, minutes: number): Promise<unknown> {
  const answer = await storeStub(store).fetch(`${STORE_ORIGIN}/buckets?minutes=${minutes}`);
  if (!answer.ok) throw new Error(`the stats store answered ${answer.status}`);
  return answer.json();
}

async function send(store: StatsStoreNamespace, taken: StatsBatchJson): Promise<void> {
  try {
    const answer = await storeStub(store).fetch(`${STORE_ORIGIN}/batch`, {
      method: 'POST',
      body: JSON.stringify(taken),
    });
    await answer.body?.cancel();
    if (!answer.ok)
      console.error(`tiercache stats: the store answered ${answer.status}; ${taken.rows.length} rows lost`);
  } catch (error) {
    // Counts are not worth a failed request: say so and go on.
    console.error(
      `tiercache stats: cannot reach the store (${error instanceof Error ? error.message : String(error)}); ${taken.rows.length} rows lost`,
    );
  }
}

function storeStub(store: StatsStoreNamespace): ReturnType<StatsStoreNamespace['get']> {
  return store.get(store.idFromName(STATS_OBJECT_NAME) as never);
}

/**
 * Analytics Engine's shape (docs/operating.md has the SQL): index1 the host, blob1–7
 * tier, outcome, reason, host, key prefix, method, whole|sliced; double1–8 status, bytes sent,
 * from the next hop, from the origin, TTFB, duration, slices hit, slices missed.
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
    ],
  };
}
