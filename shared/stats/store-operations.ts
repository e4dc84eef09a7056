// The platform operations the stats count besides requests (docs/costs.md): the store's own for each batch (a request,
// rows read and written), each isolate's purge-list KV requests (lists, reads, writes), the shield's hedged origin
// requests (shield/origin/endpoint-race.ts), its prefetched segments (shield/segment-prefetch.ts) and its R2 tier's
// operations on its bucket (shield/r2/), per minute, so the page prices what was spent.

import { perTier, type TierName } from '../tiers/tiers.ts';

export interface StoreOperations {
  /** Batches the store merged (each one Durable Object request), by the tier that sent them. */
  flushes: Record<TierName, number>;
  /** The store's SQLite rows: get() and list() read them, put() and delete() write them. */
  rowsRead: number;
  rowsWritten: number;
  /** Purge-list lists (each one KV list request), by tier. */
  kvLists: Record<TierName, number>;
  /** Purge batches, heads and snapshots written, and deletes (each one KV write request: KV bills a delete as a write). */
  kvWrites: number;
  /** Purge-list heads, batches too large for their key's metadata, and snapshots, read (each one KV read request), by tier. */
  kvReads: Record<TierName, number>;
  /** The shield's hedges: more origin requests, and the bytes their losers were charged. */
  hedges: HedgeCounts;
  /** The shield's prefetched segments: more origin requests and bytes, and how many a client then read. */
  prefetches: PrefetchCounts;
  /** The shield's R2 tier: its bucket's operations and the storage its puts commit to. */
  r2: R2Counts;
}

/** What a shield isolate's R2 tier did to its bucket (shared/observe/r2-tally.ts counts it). */
export interface R2Counts {
  /** Gets (a lookup's, whether it found the entry or not) and heads (a removal's): each a Class B operation. */
  r2Gets: number;
  /** Puts R2 took (each a Class A operation). */
  r2Puts: number;
  /** The bytes of those puts. */
  r2PutBytes: number;
  /** Lists of the bucket (the walk of its index, shield/r2/r2-sweep.ts: each a Class A operation). */
  r2Lists: number;
  /**
   * The storage those puts commit to: each put's bytes × the retention it was put with (its entry's expiry less the time
   * of the put), in byte-seconds, accrued when it is put; not how much the bucket holds (an entry removed before its
   * expiry, by a purge or a newer version, is counted for all of it). A sum of products, not a count: not whole.
   */
  r2StoredByteSeconds: number;
}

export const R2_COUNT_NAMES = [
  'r2Gets',
  'r2Puts',
  'r2PutBytes',
  'r2Lists',
  'r2StoredByteSeconds',
] as const satisfies readonly (keyof R2Counts)[];

export function noR2(): R2Counts {
  return zeroed(R2_COUNT_NAMES);
}

/** Segments a shield isolate prefetched (shared/observe/prefetch-tally.ts counts them). */
export interface PrefetchCounts {
  /** Segments fetched from the origin and stored by a prefetch: each one more origin request. */
  prefetched: number;
  /** Of those, the ones a client read at the shield within their window (PrefetchTally). */
  prefetchesUsed: number;
  /** Of those, the ones no client read within it: origin egress nobody asked for (yet). */
  prefetchesWasted: number;
  /** Bytes the prefetches fetched from the origin. */
  prefetchBytes: number;
  /** Of those, the wasted ones'. */
  prefetchWastedBytes: number;
}

export const PREFETCH_COUNT_NAMES = [
  'prefetched',
  'prefetchesUsed',
  'prefetchesWasted',
  'prefetchBytes',
  'prefetchWastedBytes',
] as const satisfies readonly (keyof PrefetchCounts)[];

export function noPrefetches(): PrefetchCounts {
  return zeroed(PREFETCH_COUNT_NAMES);
}

/** Hedges a shield isolate made (shared/observe/hedge-tally.ts counts them). */
export interface HedgeCounts {
  /** Hedges made: each one more request to the origin. */
  hedgesStarted: number;
  /** Of those, the ones whose answer was used (the first endpoint's request was cancelled). */
  hedgesWon: number;
  /** Of those, the ones cancelled because the first endpoint answered first. */
  hedgesLost: number;
  /**
   * Bytes the cancelled requests of hedged races were charged (shield/origin/hedge-policy.ts loserCharge: what each may
   * have sent before its cancel, at most): origin egress no client read.
   */
  hedgeBytes: number;
}

export function noHedges(): HedgeCounts {
  return { hedgesStarted: 0, hedgesWon: 0, hedgesLost: 0, hedgeBytes: 0 };
}

export function emptyOperations(): StoreOperations {
  return {
    flushes: perTier(() => 0),
    rowsRead: 0,
    rowsWritten: 0,
    kvLists: perTier(() => 0),
    kvWrites: 0,
    kvReads: perTier(() => 0),
    hedges: noHedges(),
    prefetches: noPrefetches(),
    r2: noR2(),
  };
}

/** `a` and `b` added (neither changed); absent counts nothing (a bucket stored before they were counted). */
export function addOperations(a: StoreOperations | undefined, b: StoreOperations | undefined): StoreOperations {
  const x = a ?? emptyOperations();
  const y = b ?? emptyOperations();
  return {
    // A bucket stored before a tier was listed has no count of it.
    flushes: perTier((name) => (x.flushes[name] ?? 0) + (y.flushes[name] ?? 0)),
    rowsRead: x.rowsRead + y.rowsRead,
    rowsWritten: x.rowsWritten + y.rowsWritten,
    kvLists: perTier((name) => (x.kvLists[name] ?? 0) + (y.kvLists[name] ?? 0)),
    kvWrites: x.kvWrites + y.kvWrites,
    // A bucket stored before reads were counted has no kvReads at all: it read none that it could say.
    kvReads: perTier((name) => (x.kvReads?.[name] ?? 0) + (y.kvReads?.[name] ?? 0)),
    // A bucket stored before hedges were counted has none.
    hedges: addHedges(x.hedges ?? noHedges(), y.hedges ?? noHedges()),
    // A bucket stored before prefetches were counted has none.
    prefetches: addPrefetches(x.prefetches ?? noPrefetches(), y.prefetches ?? noPrefetches()),
    // A bucket stored before the R2 tier's operations were counted has none.
    r2: addR2(x.r2 ?? noR2(), y.r2 ?? noR2()),
  };
}

/** The prefetch counts a batch says (store-protocol.ts), each absent one 0. */
export function prefetchesOf(said: Partial<PrefetchCounts> | undefined): PrefetchCounts {
  return said === undefined ? noPrefetches() : countsOf(PREFETCH_COUNT_NAMES, (name) => said[name] ?? 0);
}

/** Whether the R2 tier did anything to its bucket (a deployment without one counts nothing). */
export function anyR2(counts: R2Counts): boolean {
  return R2_COUNT_NAMES.some((name) => counts[name] > 0);
}

/** The R2 counts a batch says (store-protocol.ts), each absent one 0. */
export function r2CountsOf(said: Partial<R2Counts> | undefined): R2Counts {
  return said === undefined ? noR2() : countsOf(R2_COUNT_NAMES, (name) => said[name] ?? 0);
}

function addR2(a: R2Counts, b: R2Counts): R2Counts {
  return countsOf(R2_COUNT_NAMES, (name) => a[name] + b[name]);
}

function addPrefetches(a: PrefetchCounts, b: PrefetchCounts): PrefetchCounts {
  return countsOf(PREFETCH_COUNT_NAMES, (name) => a[name] + b[name]);
}

/** A family of counts (one of the lists of names above), each by `count`. */
function countsOf<Name extends string>(names: readonly Name[], count: (name: Name) => number): Record<Name, number> {
  return Object.fromEntries(names.map((name) => [name, count(name)])) as Record<Name, number>;
}

function zeroed<Name extends string>(names: readonly Name[]): Record<Name, number> {
  return countsOf(names, () => 0);
}

function addHedges(a: HedgeCounts, b: HedgeCounts): HedgeCounts {
  return {
    hedgesStarted: a.hedgesStarted + b.hedgesStarted,
    hedgesWon: a.hedgesWon + b.hedgesWon,
    hedgesLost: a.hedgesLost + b.hedgesLost,
    hedgeBytes: a.hedgeBytes + b.hedgeBytes,
  };
}

/**
 * The operations of one merge: a batch from `tier` whose isolate made `kv`, `hedges`, `prefetches` and `r2` since its
 * last flush, and the rows the store touched for it.
 */
export function mergeOperations(
  tier: TierName,
  kv: { kvLists: number; kvWrites: number; kvReads: number },
  rows: { read: number; written: number },
  hedges: HedgeCounts = noHedges(),
  prefetches: PrefetchCounts = noPrefetches(),
  r2: R2Counts = noR2(),
): StoreOperations {
  const operations = emptyOperations();
  operations.flushes[tier] = 1;
  operations.kvLists[tier] = kv.kvLists;
  operations.kvWrites = kv.kvWrites;
  operations.kvReads[tier] = kv.kvReads;
  operations.rowsRead = rows.read;
  operations.rowsWritten = rows.written;
  operations.hedges = { ...hedges };
  operations.prefetches = { ...prefetches };
  operations.r2 = { ...r2 };
  return operations;
}
