import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type MinuteBucket, mergeBatch } from '../../../shared/stats/minute-bucket.ts';
import { OUTCOMES } from '../../../shared/stats/record.ts';
import { STATS_OBJECT_NAME, type StatsBatchJson } from '../../../shared/stats/store-protocol.ts';
import { firstShard, mergeShards, nextShard, STATS_SHARDS, shardName } from '../../../shared/stats/store-shards.ts';
import { sumTotals, TOTAL_FIELDS } from '../../../shared/stats/totals.ts';
import { TIER_NAMES } from '../../../shared/tiers/tiers.ts';
import { batchArb } from './arbitraries.ts';

/** Batches folded, in order, into one store's buckets (shield/stats-store.ts's merge, without its storage). */
function store(batches: readonly StatsBatchJson[]): MinuteBucket[] {
  const buckets = new Map<number, MinuteBucket>();
  for (const batch of batches) for (const [minute, bucket] of mergeBatch(buckets, batch)) buckets.set(minute, bucket);
  return [...buckets.values()];
}

/** Every total per minute, tier and outcome, and the misses per minute: what must not depend on the shards. */
function sums(buckets: readonly MinuteBucket[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const bucket of buckets) {
    for (const tier of TIER_NAMES) {
      for (const outcome of OUTCOMES) {
        const totals = sumTotals(bucket.rows.filter((row) => row.tier === tier && row.outcome === outcome));
        for (const field of TOTAL_FIELDS) out[`${bucket.minute} ${tier} ${outcome} ${field}`] = totals[field];
      }
    }
    out[`${bucket.minute} misses`] = bucket.misses.reduce((total, row) => total + row.misses, 0);
  }
  return out;
}

describe('the shards a flush goes to', () => {
  it(`walks every one of the ${STATS_SHARDS} shards in turn from wherever an isolate starts`, () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (random) => {
        let shard = firstShard(random);
        const seen = new Set([shard]);
        for (let i = 1; i < STATS_SHARDS; i++) {
          shard = nextShard(shard);
          seen.add(shard);
        }
        expect(seen.size).toBe(STATS_SHARDS);
        expect(nextShard(shard)).toBe(firstShard(random));
      }),
    );
  });

  it('names shard 0 as the single store was named, so the counts stored before sharding are still read', () => {
    expect(shardName(0)).toBe(STATS_OBJECT_NAME);
    const names = Array.from({ length: STATS_SHARDS }, (_, i) => shardName(i));
    expect(new Set(names).size).toBe(STATS_SHARDS);
  });
});

describe('mergeShards, whatever the batches and whichever shard each went to', () => {
  const spread = fc.array(
    fc.tuple(batchArb({ hosts: 40, keys: 40, reasons: 10, minutes: 3 }, 60), fc.nat({ max: STATS_SHARDS - 1 })),
    { maxLength: 10 },
  );

  it('sums to exactly what one store holding every batch sums to, per minute, tier and outcome', () => {
    fc.assert(
      fc.property(spread, (given) => {
        const perShard = Array.from({ length: STATS_SHARDS }, (_, shard) =>
          store(given.filter(([, to]) => to === shard).map(([batch]) => batch)),
        );
        const merged = mergeShards(perShard);
        const one = store(given.map(([batch]) => batch));
        expect(sums(merged.buckets)).toEqual(sums(one));
        expect(merged.buckets.map((bucket) => bucket.minute)).toEqual(
          one.map((bucket) => bucket.minute).sort((a, b) => a - b),
        );
        expect(merged.shardsWithCounts).toBe(perShard.filter((buckets) => buckets.length > 0).length);
      }),
      { numRuns: 100 },
    );
  });

  it('is nothing from shards that hold nothing', () => {
    expect(mergeShards(Array.from({ length: STATS_SHARDS }, () => []))).toEqual({ buckets: [], shardsWithCounts: 0 });
  });
});
