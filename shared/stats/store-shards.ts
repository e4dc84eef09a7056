// The stats store as STATS_SHARDS Durable Objects: which one a flush goes to, and the minute buckets of all of them read
// back as one. No I/O. A minute's sums are additions, so a minute split across shards adds up to exactly what one store
// would have held (minute-bucket.ts mergeBuckets): the totals stay exact however the batches were spread.

import { type MinuteBucket, mergeBuckets } from './minute-bucket.ts';
import { STATS_OBJECT_NAME } from './store-protocol.ts';

/**
 * How many objects the store is. "Each individual Object is inherently single-threaded … a soft limit of 1,000
 * requests per second" (https://developers.cloudflare.com/durable-objects/reference/faq/, "How much work can a single Durable Object do?"): one flush is one request,
 * so one object saturates near 1,000 flushes a second (5,000 isolates at STATS_FLUSH_MS 5 s); sixteen carry sixteen
 * times that, and the reader's sixteen requests per stats page stay cheap. Changing it loses sight of the counts in
 * shards past the new number for the window's hour; the flushes land in those below it from then on.
 */
export const STATS_SHARDS = 16;

/**
 * The name of shard `index` (0 ≤ index < STATS_SHARDS). Shard 0 keeps the single store's name, so the hour of counts a
 * deployment stored before the store was sharded is still read.
 */
export function shardName(index: number): string {
  return index === 0 ? STATS_OBJECT_NAME : `${STATS_OBJECT_NAME}-${index}`;
}

/**
 * The shard an isolate's next flush goes to: the one after its last. Each isolate starts at a shard of its own chance
 * and walks them all, so the flushes of a deployment spread evenly over the shards whatever its isolates' number, and no
 * burst of isolates that happened to start alike keeps one shard hot for long.
 */
export function nextShard(last: number): number {
  return (Math.floor(last) + 1) % STATS_SHARDS;
}

/** The shard a new isolate starts at, from `random` in [0, 1) (Math.random: the flushes spread, nothing more). */
export function firstShard(random: number): number {
  return Math.min(STATS_SHARDS - 1, Math.max(0, Math.floor(random * STATS_SHARDS)));
}

/** What the reader saw: every shard's buckets as one list, a bucket per minute, oldest first; and how many held any. */
export interface MergedShards {
  buckets: MinuteBucket[];
  /** Shards that answered with at least one bucket of the window. */
  shardsWithCounts: number;
}

/** The buckets each shard answered (one list per shard), merged minute by minute: exact sums, as one store's. */
export function mergeShards(perShard: readonly (readonly MinuteBucket[])[]): MergedShards {
  const byMinute = new Map<number, MinuteBucket>();
  for (const buckets of perShard) {
    for (const bucket of buckets) {
      const held = byMinute.get(bucket.minute);
      byMinute.set(bucket.minute, held === undefined ? bucket : mergeBuckets(held, bucket));
    }
  }
  return {
    buckets: [...byMinute.values()].sort((a, b) => a.minute - b.minute),
    shardsWithCounts: perShard.filter((buckets) => buckets.length > 0).length,
  };
}
