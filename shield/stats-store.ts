// One shard of the stats store: STATS_SHARDS Durable Objects of this class (shared/stats/store-shards.ts), each flush of
// every isolate of every tier to one of them, one bucket per minute in each; the reader merges them. Reached only
// through the STATS binding, defined in the shield's script.

import { emptyBucket, type MinuteBucket, mergeBatch, withOperations } from '../shared/stats/minute-bucket.ts';
import { DEFAULT_WINDOW_MINUTES, MINUTE_MS } from '../shared/stats/stats-window.ts';
import { mergeOperations, prefetchesOf, r2CountsOf } from '../shared/stats/store-operations.ts';
import {
  BATCH_PATH,
  BUCKETS_PATH,
  MINUTES_PARAM,
  parseStatsBatch,
  type StatsBatchJson,
} from '../shared/stats/store-protocol.ts';

/** What the store keeps: a little more than the page shows, so a late flush still finds its minute. */
const KEPT_MINUTES = 65;
const PREFIX = 'minute:';

export class StatsStore implements DurableObject {
  private readonly storage: DurableObjectStorage;

  constructor(state: DurableObjectState) {
    this.storage = state.storage;
  }

  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (request.method === 'POST' && url.pathname === BATCH_PATH) {
      const parsed = parseStatsBatch(await request.json().catch(() => undefined));
      if (!parsed.ok) return new Response(`400 not a stats batch: ${parsed.reason}\n`, { status: 400 });
      await this.merge(parsed.batch, Date.now());
      return new Response(null, { status: 204 });
    }
    if (request.method === 'GET' && url.pathname === BUCKETS_PATH) {
      const minutes = Math.min(
        KEPT_MINUTES,
        Math.max(1, Number(url.searchParams.get(MINUTES_PARAM)) || DEFAULT_WINDOW_MINUTES),
      );
      return Response.json(await this.buckets(Date.now() - minutes * MINUTE_MS));
    }
    return new Response('404 no such stats call\n', { status: 404 });
  }

  /**
   * Folds a batch into the buckets of its minutes, and drops the buckets past the window. What
   * this request cost (itself, the rows it reads and writes, the sender's KV requests) is added
   * to the bucket of the minute it is merged in (store-operations.ts).
   */
  private async merge(batch: StatsBatchJson, now: number): Promise<void> {
    const oldest = now - KEPT_MINUTES * MINUTE_MS;
    const minutes = new Set(
      [...batch.rows.map((row) => row.minute), ...batch.misses.map((miss) => miss.minute)].filter(
        (minute) => minute >= oldest,
      ),
    );
    const arrival = now - (now % MINUTE_MS);
    const keys = [...new Set([...minutes, arrival])].map(keyOf);
    const stored = await this.storage.get<MinuteBucket>(keys);
    const current = new Map<number, MinuteBucket>();
    for (const [key, bucket] of stored) current.set(minuteOf(key), bucket);
    const merged = mergeBatch(current, {
      rows: batch.rows.filter((row) => minutes.has(row.minute)),
      misses: batch.misses.filter((miss) => minutes.has(miss.minute)),
    });
    const expired = [...(await this.storage.list({ prefix: PREFIX, end: keyOf(oldest) })).keys()];
    const written = new Set([...merged.keys(), arrival]).size;
    // SQLite-backed storage bills its key-value calls as rows: a get or list reads a row per key, a put or delete
    // writes one.
    const rows = { read: keys.length + expired.length, written: written + expired.length };
    const tier = batch.operations?.tier ?? batch.rows[0]?.tier ?? 'edge';
    const operations = mergeOperations(
      tier,
      {
        kvLists: batch.operations?.kvLists ?? 0,
        kvWrites: batch.operations?.kvWrites ?? 0,
        kvReads: batch.operations?.kvReads ?? 0,
      },
      rows,
      {
        hedgesStarted: batch.operations?.hedgesStarted ?? 0,
        hedgesWon: batch.operations?.hedgesWon ?? 0,
        hedgesLost: batch.operations?.hedgesLost ?? 0,
        hedgeBytes: batch.operations?.hedgeBytes ?? 0,
      },
      prefetchesOf(batch.operations),
      r2CountsOf(batch.operations),
    );
    merged.set(
      arrival,
      withOperations(merged.get(arrival) ?? current.get(arrival) ?? emptyBucket(arrival), operations),
    );
    const changed: Record<string, MinuteBucket> = {};
    for (const [minute, bucket] of merged) changed[keyOf(minute)] = bucket;
    await this.storage.put(changed);
    if (expired.length > 0) await this.storage.delete(expired);
  }

  private async buckets(since: number): Promise<MinuteBucket[]> {
    const listed = await this.storage.list<MinuteBucket>({ prefix: PREFIX, start: keyOf(since - (since % MINUTE_MS)) });
    return [...listed.values()];
  }
}

/** Keys sort as their minutes do (fixed width). */
function keyOf(minute: number): string {
  return `${PREFIX}${String(Math.max(0, minute)).padStart(15, '0')}`;
}

function minuteOf(key: string): number {
  return Number(key.slice(PREFIX.length));
}
