// The stats store (shield/stats-store.ts) as a tier reaches it: STATS_SHARDS Durable Objects behind the STATS binding,
// by the calls shared/stats/store-protocol.ts names; a flush goes to one shard, a read asks them all and merges
// (shared/stats/store-shards.ts). A failure to reach it costs the counts, never the request.

import type { MinuteBucket } from '../stats/minute-bucket.ts';
import { batchUrl, bucketsUrl, type StatsBatchJson } from '../stats/store-protocol.ts';
import { type MergedShards, mergeShards, STATS_SHARDS, shardName } from '../stats/store-shards.ts';

/** The part of the STATS Durable Object namespace used here (STATS_SHARDS objects hold every tier's counts). */
export interface StatsStoreNamespace {
  idFromName(name: string): unknown;
  get(id: never): { fetch(url: string, init?: RequestInit): Promise<Response> };
}

/**
 * Every shard's buckets of the last `minutes` minutes, merged (StatsStore answers each as JSON): STATS_SHARDS Durable
 * Object requests, in parallel. One shard that cannot be read fails the whole read: a sum missing a shard would be a
 * wrong number, not a smaller exact one.
 */
export async function readStats(store: StatsStoreNamespace, minutes: number): Promise<MergedShards> {
  const perShard = await Promise.all(
    Array.from({ length: STATS_SHARDS }, async (_, index) => {
      const answer = await shardStub(store, index).fetch(bucketsUrl(minutes));
      if (!answer.ok) throw new Error(`the stats store's shard ${shardName(index)} answered ${answer.status}`);
      return (await answer.json()) as MinuteBucket[];
    }),
  );
  return mergeShards(perShard);
}

/** POSTs a batch to shard `index`; the store refusing it or out of reach loses its rows, said in the log. */
export async function sendBatch(store: StatsStoreNamespace, taken: StatsBatchJson, index: number): Promise<void> {
  try {
    const answer = await shardStub(store, index).fetch(batchUrl(), {
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

function shardStub(store: StatsStoreNamespace, index: number): ReturnType<StatsStoreNamespace['get']> {
  return store.get(store.idFromName(shardName(index)) as never);
}
