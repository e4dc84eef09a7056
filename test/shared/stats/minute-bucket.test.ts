import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OTHER } from '../../../shared/stats/fold-other.ts';
import {
  batchMinutes,
  emptyBucket,
  MAX_BUCKET_HOSTS,
  MAX_BUCKET_MISS_KEYS,
  MAX_BUCKET_REASONS,
  type MinuteBucket,
  mergeBatch,
  mergeBuckets,
  withOperations,
} from '../../../shared/stats/minute-bucket.ts';
import { OUTCOMES } from '../../../shared/stats/record.ts';
import { mergeOperations } from '../../../shared/stats/store-operations.ts';
import type { StatsBatchJson } from '../../../shared/stats/store-protocol.ts';
import { sumTotals, TOTAL_FIELDS } from '../../../shared/stats/totals.ts';
import { TIER_NAMES } from '../../../shared/tiers/tiers.ts';
import { BASE, batchArb, batchOf, record } from './arbitraries.ts';

const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0);
const named = (values: readonly string[]): Set<string> => new Set(values.filter((value) => value !== OTHER));

/** Every batch folded in, in order, into buckets keyed by minute. */
function foldAll(batches: readonly StatsBatchJson[]): Map<number, MinuteBucket> {
  const buckets = new Map<number, MinuteBucket>();
  for (const batch of batches) for (const [minute, bucket] of mergeBatch(buckets, batch)) buckets.set(minute, bucket);
  return buckets;
}

/** What must never depend on folding or order: totals per tier and outcome, reasons per tier and outcome, misses. */
function invariants(buckets: Iterable<MinuteBucket>): Record<string, number> {
  const all = [...buckets];
  const sums: Record<string, number> = {};
  for (const tier of TIER_NAMES) {
    for (const outcome of OUTCOMES) {
      const totals = sumTotals(
        all.flatMap((bucket) => bucket.rows).filter((row) => row.tier === tier && row.outcome === outcome),
      );
      for (const field of TOTAL_FIELDS) sums[`${tier} ${outcome} ${field}`] = totals[field];
      sums[`${tier} ${outcome} reasons`] = sum(
        all
          .flatMap((bucket) => bucket.reasons)
          .filter((row) => row.tier === tier && row.outcome === outcome)
          .map((row) => row.requests),
      );
    }
  }
  sums.misses = sum(all.flatMap((bucket) => bucket.misses).map((row) => row.misses));
  return sums;
}

function batchInvariants(batches: readonly StatsBatchJson[]): Record<string, number> {
  const rows = batches.flatMap((batch) => batch.rows);
  const sums: Record<string, number> = {};
  for (const tier of TIER_NAMES) {
    for (const outcome of OUTCOMES) {
      const of = rows.filter((row) => row.tier === tier && row.outcome === outcome);
      const totals = sumTotals(of);
      for (const field of TOTAL_FIELDS) sums[`${tier} ${outcome} ${field}`] = totals[field];
      sums[`${tier} ${outcome} reasons`] = sum(of.filter((row) => row.reason !== undefined).map((row) => row.requests));
    }
  }
  sums.misses = sum(batches.flatMap((batch) => batch.misses).map((row) => row.misses));
  return sums;
}

/** One bucket of BASE's minute from a batch of records in that minute. */
const bucketArb = (hosts: number, keys: number, reasons: number): fc.Arbitrary<MinuteBucket> =>
  batchArb({ hosts, keys, reasons, minutes: 1 }, 80).map(
    (batch) => mergeBatch(new Map(), batch).get(BASE) ?? emptyBucket(BASE),
  );

describe('mergeBatch', () => {
  it('makes one bucket per minute of the batch, from empty, the reasons in their own table', () => {
    const batch = batchOf([
      record({ bytesSent: 5 }),
      record({ outcome: 'bypass', reason: 'method', bytesSent: 0 }),
      record({ outcome: 'miss', keyPrefix: '/a', at: BASE + 60_000 }),
    ]);
    const merged = mergeBatch(new Map(), batch);
    expect([...merged.keys()]).toEqual([BASE, BASE + 60_000]);
    expect(merged.get(BASE)).toEqual({
      minute: BASE,
      rows: [
        {
          tier: 'edge',
          host: 'cdn.example',
          outcome: 'bypass',
          requests: 1,
          bytesSent: 0,
          bytesFromNextHop: 0,
          bytesFromOrigin: 0,
          ttfbMsSum: 2,
          durationMsSum: 3,
          slicesHit: 0,
          slicesMissed: 0,
          departed: 0,
        },
        {
          tier: 'edge',
          host: 'cdn.example',
          outcome: 'hit',
          requests: 1,
          bytesSent: 5,
          bytesFromNextHop: 0,
          bytesFromOrigin: 0,
          ttfbMsSum: 2,
          durationMsSum: 3,
          slicesHit: 0,
          slicesMissed: 0,
          departed: 0,
        },
      ],
      reasons: [{ tier: 'edge', outcome: 'bypass', reason: 'method', requests: 1 }],
      misses: [],
    });
    expect(merged.get(BASE + 60_000)?.misses).toEqual([{ key: '/a', misses: 1 }]);
  });

  it('adds a batch to the stored bucket of its minute, and returns only the buckets it changed', () => {
    const stored = mergeBatch(new Map(), batchOf([record({ at: BASE }), record({ at: BASE - 60_000 })]));
    const merged = mergeBatch(
      stored,
      batchOf([record({ bytesSent: 1 }), record({ outcome: 'miss', keyPrefix: '/b' })]),
    );
    expect([...merged.keys()]).toEqual([BASE]);
    expect(merged.get(BASE)?.rows.find((row) => row.outcome === 'hit')).toMatchObject({ requests: 2, bytesSent: 101 });
    expect(merged.get(BASE)?.misses).toEqual([{ key: '/b', misses: 1 }]);
  });

  it('leaves the buckets it was given as they were', () => {
    const stored = mergeBatch(
      new Map(),
      batchOf([record(), record({ outcome: 'miss' }), record({ outcome: 'error', reason: 'x' })]),
    );
    const before = structuredClone([...stored]);
    mergeBatch(stored, batchOf([record(), record({ outcome: 'miss' }), record({ outcome: 'error', reason: 'x' })]));
    expect([...stored]).toEqual(before);
  });

  it('changes nothing for an empty batch', () => {
    expect(mergeBatch(new Map([[BASE, emptyBucket(BASE)]]), { rows: [], misses: [] }).size).toBe(0);
  });

  it(`keeps the ${MAX_BUCKET_HOSTS} hosts of most requests (ties by name) and adds the others into ${OTHER}`, () => {
    const records = Array.from({ length: MAX_BUCKET_HOSTS + 20 }, (_, i) =>
      Array.from({ length: i % 7 === 0 ? 3 : 1 }, () =>
        record({ host: `h${String(i).padStart(3, '0')}`, bytesSent: 1 }),
      ),
    ).flat();
    // Three batches of 40 hosts each (within a batch's own bound) make 120 hosts in one minute.
    const batches = [0, 1, 2].map((part) =>
      batchOf(records.filter((one) => Math.floor(Number(one.host.slice(1)) / 40) === part)),
    );
    const bucket = foldAll(batches).get(BASE);
    const hosts = bucket?.rows.map((row) => row.host) ?? [];
    expect(named(hosts).size).toBe(MAX_BUCKET_HOSTS);
    // Every host with 3 requests is kept; of the ones with 1, the first by name.
    for (let i = 0; i < MAX_BUCKET_HOSTS + 20; i += 7) expect(hosts).toContain(`h${String(i).padStart(3, '0')}`);
    expect(sum(bucket?.rows.map((row) => row.bytesSent) ?? [])).toBe(records.length);
    expect(bucket?.rows.find((row) => row.host === OTHER)?.requests).toBe(20);
  });

  it(`keeps the ${MAX_BUCKET_MISS_KEYS} most-missed keys and adds the rest into ${OTHER}`, () => {
    const batch: StatsBatchJson = {
      rows: [],
      misses: Array.from({ length: 150 }, (_, i) => ({
        minute: BASE,
        key: `/k/${String(i).padStart(3, '0')}`,
        misses: i + 1,
      })),
    };
    const misses = mergeBatch(new Map(), batch).get(BASE)?.misses ?? [];
    expect(misses).toHaveLength(MAX_BUCKET_MISS_KEYS + 1);
    expect(misses.find((row) => row.key === '/k/149')?.misses).toBe(150);
    expect(misses.find((row) => row.key === '/k/049')).toBeUndefined();
    expect(misses.find((row) => row.key === OTHER)?.misses).toBe(sum(Array.from({ length: 50 }, (_, i) => i + 1)));
  });

  it(`keeps ${MAX_BUCKET_REASONS} reasons per tier and outcome, the most frequent`, () => {
    const batch: StatsBatchJson = {
      rows: [
        ...Array.from({ length: 30 }, (_, i) => ({
          ...batchOf([record({ outcome: 'bypass', reason: `r${i}` })]).rows[0]!,
          requests: i + 1,
        })),
        ...batchOf([record({ outcome: 'error', reason: 'e' })]).rows,
      ],
      misses: [],
    };
    const reasons = mergeBatch(new Map(), batch).get(BASE)?.reasons ?? [];
    const bypass = reasons.filter((row) => row.outcome === 'bypass');
    expect(named(bypass.map((row) => row.reason)).size).toBe(MAX_BUCKET_REASONS);
    expect(bypass.find((row) => row.reason === 'r0')).toBeUndefined();
    expect(bypass.find((row) => row.reason === OTHER)?.requests).toBe(sum(Array.from({ length: 10 }, (_, i) => i + 1)));
    expect(reasons.filter((row) => row.outcome === 'error')).toEqual([
      { tier: 'edge', outcome: 'error', reason: 'e', requests: 1 },
    ]);
  });

  it('ignores what a row carries beyond its fields (a newer sender)', () => {
    const [row] = batchOf([record()]).rows;
    const bucket = mergeBatch(new Map(), {
      rows: [{ ...row!, extra: 'x' } as typeof row & { extra: string }],
      misses: [],
    }).get(BASE);
    expect(Object.keys(bucket?.rows[0] ?? {})).not.toContain('extra');
  });
});

describe('batchMinutes', () => {
  it('is every minute with a row or a miss, oldest first, once each', () => {
    const batch = batchOf([
      record({ at: BASE + 120_000 }),
      record({ at: BASE }),
      record({ outcome: 'miss', at: BASE + 60_000 }),
    ]);
    expect(batchMinutes(batch)).toEqual([BASE, BASE + 60_000, BASE + 120_000]);
    expect(batchMinutes({ rows: [], misses: [{ minute: BASE, key: '/a', misses: 1 }] })).toEqual([BASE]);
  });
});

describe('merging, whatever the batches', () => {
  const batches = fc.array(batchArb({ hosts: 160, keys: 160, reasons: 30, minutes: 3 }, 120), { maxLength: 6 });

  it('never loses a request or a byte: the buckets sum to the batches, per tier and outcome', () => {
    fc.assert(
      fc.property(batches, (given) => {
        expect(invariants(foldAll(given).values())).toEqual(batchInvariants(given));
      }),
      { numRuns: 100 },
    );
  });

  it('gives the same totals whatever order the batches arrive in', () => {
    fc.assert(
      fc.property(
        batches.chain((given) =>
          fc.tuple(
            fc.constant(given),
            fc.shuffledSubarray(given, { minLength: given.length, maxLength: given.length }),
          ),
        ),
        ([given, shuffled]) => {
          expect(invariants(foldAll(shuffled).values())).toEqual(invariants(foldAll(given).values()));
        },
      ),
      { numRuns: 100 },
    );
  });

  it('holds its bounds in every bucket', () => {
    fc.assert(
      fc.property(batches, (given) => {
        for (const bucket of foldAll(given).values()) {
          expect(named(bucket.rows.map((row) => row.host)).size).toBeLessThanOrEqual(MAX_BUCKET_HOSTS);
          expect(named(bucket.misses.map((row) => row.key)).size).toBeLessThanOrEqual(MAX_BUCKET_MISS_KEYS);
          for (const tier of TIER_NAMES) {
            for (const outcome of OUTCOMES) {
              expect(
                named(
                  bucket.reasons.filter((row) => row.tier === tier && row.outcome === outcome).map((row) => row.reason),
                ).size,
              ).toBeLessThanOrEqual(MAX_BUCKET_REASONS);
            }
          }
          expect(new Set(bucket.rows.map((row) => JSON.stringify([row.tier, row.host, row.outcome]))).size).toBe(
            bucket.rows.length,
          );
          expect(new Set(bucket.misses.map((row) => row.key)).size).toBe(bucket.misses.length);
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('mergeBuckets', () => {
  const wide = bucketArb(90, 90, 25);
  const narrow = bucketArb(10, 10, 5);

  it('is commutative and associative on totals, whatever it folds', () => {
    fc.assert(
      fc.property(wide, wide, wide, (a, b, c) => {
        expect(invariants([mergeBuckets(a, b)])).toEqual(invariants([mergeBuckets(b, a)]));
        expect(invariants([mergeBuckets(mergeBuckets(a, b), c)])).toEqual(
          invariants([mergeBuckets(a, mergeBuckets(b, c))]),
        );
        expect(invariants([mergeBuckets(a, b)])).toEqual(invariants([a, b]));
      }),
      { numRuns: 100 },
    );
  });

  it('is commutative and associative row for row while within its bounds (nothing folded)', () => {
    fc.assert(
      fc.property(narrow, narrow, narrow, (a, b, c) => {
        expect(mergeBuckets(a, b)).toEqual(mergeBuckets(b, a));
        expect(mergeBuckets(mergeBuckets(a, b), c)).toEqual(mergeBuckets(a, mergeBuckets(b, c)));
      }),
      { numRuns: 100 },
    );
  });

  it('has the empty bucket as identity', () => {
    fc.assert(
      fc.property(narrow, (a) => {
        expect(mergeBuckets(a, emptyBucket(BASE))).toEqual(a);
        expect(mergeBuckets(emptyBucket(BASE), a)).toEqual(a);
      }),
      { numRuns: 50 },
    );
  });

  it('keeps each bucket as it was', () => {
    fc.assert(
      fc.property(wide, wide, (a, b) => {
        const before = structuredClone([a, b]);
        mergeBuckets(a, b);
        expect([a, b]).toEqual(before);
      }),
      { numRuns: 50 },
    );
  });

  it('adds the platform operations of both buckets, and leaves them out when neither has any', () => {
    const one = withOperations(
      emptyBucket(BASE),
      mergeOperations('edge', { kvLists: 2, kvWrites: 1, kvReads: 4 }, { read: 3, written: 2 }),
    );
    const two = withOperations(
      emptyBucket(BASE),
      mergeOperations('shield', { kvLists: 1, kvWrites: 0, kvReads: 1 }, { read: 2, written: 2 }),
    );
    expect(mergeBuckets(one, two).operations).toEqual({
      flushes: { edge: 1, shield: 1, r2: 0 },
      rowsRead: 5,
      rowsWritten: 4,
      kvLists: { edge: 2, shield: 1, r2: 0 },
      kvWrites: 1,
      kvReads: { edge: 4, shield: 1, r2: 0 },
      hedges: { hedgesStarted: 0, hedgesWon: 0, hedgesLost: 0, hedgeBytes: 0 },
      prefetches: { prefetched: 0, prefetchesUsed: 0, prefetchesWasted: 0, prefetchBytes: 0, prefetchWastedBytes: 0 },
      r2: { r2Gets: 0, r2Puts: 0, r2PutBytes: 0, r2Lists: 0, r2StoredByteSeconds: 0 },
    });
    expect(mergeBuckets(one, emptyBucket(BASE)).operations).toEqual(one.operations);
    expect('operations' in mergeBuckets(emptyBucket(BASE), emptyBucket(BASE))).toBe(false);
  });

  it('survives JSON (what the Durable Object stores) unchanged', () => {
    fc.assert(
      fc.property(wide, (a) => {
        expect(JSON.parse(JSON.stringify(a))).toEqual(a);
      }),
      { numRuns: 50 },
    );
  });
});
