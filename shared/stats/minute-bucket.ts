// One minute of the stats as the Durable Object stores it (JSON): every batch's rows of that minute added, in three
// bounded tables (per tier, host and outcome; reasons per tier and outcome; the keys the edge missed).

import type { TierName } from '../tiers/tiers.ts';
import { OTHER, topNames, weightsBy } from './fold-other.ts';
import { compareNames } from './ranking.ts';
import type { Outcome } from './record.ts';
import type { Totals } from './stats-json.ts';
import { addOperations, type StoreOperations } from './store-operations.ts';
import type { BatchRow, MissRow, StatsBatchJson } from './store-protocol.ts';
import { addInto, totalsOf } from './totals.ts';

type HostRow = { tier: TierName; host: string; outcome: Outcome } & Totals;
export interface ReasonRow {
  tier: TierName;
  outcome: Outcome;
  reason: string;
  requests: number;
}
interface MissCount {
  key: string;
  misses: number;
}

export interface MinuteBucket {
  /** The minute's start (ms epoch). */
  minute: number;
  /** Sorted by tier, host, outcome. */
  rows: HostRow[];
  /** Sorted by tier, outcome, reason. */
  reasons: ReasonRow[];
  /** Sorted by key. */
  misses: MissCount[];
  /**
   * What the store and the isolates did for the batches merged in this minute (absent: none, or stored before they were
   * counted).
   */
  operations?: StoreOperations;
}

/**
 * The bounds, whatever the batches hold: three tables rather than the batch's one, so that they multiply less. The
 * names of most requests (or misses) are kept, ties by name, the others added to their OTHER row: the totals per
 * tier and outcome are exact, and never depend on what was folded nor on the order batches came in.
 */
export const MAX_BUCKET_HOSTS = 100;
export const MAX_BUCKET_MISS_KEYS = 100;
export const MAX_BUCKET_REASONS = 20;

export function emptyBucket(minute: number): MinuteBucket {
  return { minute, rows: [], reasons: [], misses: [] };
}

/** The minutes a batch has rows for, oldest first: the buckets to read before mergeBatch. */
export function batchMinutes(batch: StatsBatchJson): number[] {
  const minutes = new Set([...batch.rows.map((row) => row.minute), ...batch.misses.map((row) => row.minute)]);
  return [...minutes].sort((a, b) => a - b);
}

/**
 * The buckets the batch changes, with the batch added: one per minute of batchMinutes(batch),
 * from the stored bucket of that minute (or an empty one). The ones given are left as they are.
 */
export function mergeBatch(
  buckets: ReadonlyMap<number, MinuteBucket>,
  batch: StatsBatchJson,
): Map<number, MinuteBucket> {
  const changed = new Map<number, MinuteBucket>();
  for (const minute of batchMinutes(batch)) {
    const rows = batch.rows.filter((row) => row.minute === minute);
    const misses = batch.misses.filter((row) => row.minute === minute);
    changed.set(minute, mergeBuckets(buckets.get(minute) ?? emptyBucket(minute), bucketOf(minute, rows, misses)));
  }
  return changed;
}

/** Two buckets of the same minute as one, within the bounds (the first one's minute). */
export function mergeBuckets(a: MinuteBucket, b: MinuteBucket): MinuteBucket {
  const merged: MinuteBucket = {
    minute: a.minute,
    rows: boundHosts([...a.rows, ...b.rows]),
    reasons: boundReasons([...a.reasons, ...b.reasons]),
    misses: boundMisses([...a.misses, ...b.misses]),
  };
  if (a.operations !== undefined || b.operations !== undefined)
    merged.operations = addOperations(a.operations, b.operations);
  return merged;
}

/** The bucket with `operations` added to its own (a copy; the one given is left as it is). */
export function withOperations(bucket: MinuteBucket, operations: StoreOperations): MinuteBucket {
  return { ...bucket, operations: addOperations(bucket.operations, operations) };
}

/** A batch's rows of one minute as a bucket: the reasons taken out into their own table. */
function bucketOf(minute: number, rows: readonly BatchRow[], misses: readonly MissRow[]): MinuteBucket {
  return {
    minute,
    rows: rows.map((row) => ({ tier: row.tier, host: row.host, outcome: row.outcome, ...totalsOf(row) })),
    reasons: rows.flatMap((row) =>
      row.reason === undefined
        ? []
        : [{ tier: row.tier, outcome: row.outcome, reason: row.reason, requests: row.requests }],
    ),
    misses: misses.map((row) => ({ key: row.key, misses: row.misses })),
  };
}

function boundHosts(rows: readonly HostRow[]): HostRow[] {
  const kept = topNames(
    weightsBy(
      rows,
      (row) => row.host,
      (row) => row.requests,
    ),
    MAX_BUCKET_HOSTS,
  );
  const summed = new Map<string, HostRow>();
  for (const row of rows) {
    const host = kept.has(row.host) ? row.host : OTHER;
    const id = JSON.stringify([row.tier, host, row.outcome]);
    const into = summed.get(id);
    if (into === undefined) summed.set(id, { tier: row.tier, host, outcome: row.outcome, ...totalsOf(row) });
    else addInto(into, row);
  }
  return [...summed.values()].sort(
    (x, y) => compareNames(x.tier, y.tier) || compareNames(x.host, y.host) || compareNames(x.outcome, y.outcome),
  );
}

function boundReasons(rows: readonly ReasonRow[]): ReasonRow[] {
  const groups = new Map<string, ReasonRow[]>();
  for (const row of rows) {
    const group = groups.get(`${row.tier} ${row.outcome}`);
    if (group === undefined) groups.set(`${row.tier} ${row.outcome}`, [row]);
    else group.push(row);
  }
  const summed = new Map<string, ReasonRow>();
  for (const group of groups.values()) {
    const kept = topNames(
      weightsBy(
        group,
        (row) => row.reason,
        (row) => row.requests,
      ),
      MAX_BUCKET_REASONS,
    );
    for (const row of group) {
      const reason = kept.has(row.reason) ? row.reason : OTHER;
      const id = JSON.stringify([row.tier, row.outcome, reason]);
      const into = summed.get(id);
      if (into === undefined) summed.set(id, { tier: row.tier, outcome: row.outcome, reason, requests: row.requests });
      else into.requests += row.requests;
    }
  }
  return [...summed.values()].sort(
    (x, y) => compareNames(x.tier, y.tier) || compareNames(x.outcome, y.outcome) || compareNames(x.reason, y.reason),
  );
}

function boundMisses(rows: readonly MissCount[]): MissCount[] {
  const weights = weightsBy(
    rows,
    (row) => row.key,
    (row) => row.misses,
  );
  const kept = topNames(weights, MAX_BUCKET_MISS_KEYS);
  const summed = new Map<string, number>();
  for (const [key, misses] of weights) {
    const name = kept.has(key) ? key : OTHER;
    summed.set(name, (summed.get(name) ?? 0) + misses);
  }
  return [...summed].map(([key, misses]) => ({ key, misses })).sort((x, y) => compareNames(x.key, y.key));
}
