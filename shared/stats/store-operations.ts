// The platform operations the stats count besides requests (docs/costs.md): the store's own for each batch (a request,
// rows read and written) and each isolate's purge-list KV requests (lists, reads, writes), per minute, so the page
// prices what was spent.

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
}

export function emptyOperations(): StoreOperations {
  return {
    flushes: perTier(() => 0),
    rowsRead: 0,
    rowsWritten: 0,
    kvLists: perTier(() => 0),
    kvWrites: 0,
    kvReads: perTier(() => 0),
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
  };
}

/**
 * The operations of one merge: a batch from `tier` whose isolate made `kv` since its last flush, and the rows the store
 * touched for it.
 */
export function mergeOperations(
  tier: TierName,
  kv: { kvLists: number; kvWrites: number; kvReads: number },
  rows: { read: number; written: number },
): StoreOperations {
  const operations = emptyOperations();
  operations.flushes[tier] = 1;
  operations.kvLists[tier] = kv.kvLists;
  operations.kvWrites = kv.kvWrites;
  operations.kvReads[tier] = kv.kvReads;
  operations.rowsRead = rows.read;
  operations.rowsWritten = rows.written;
  return operations;
}
