// The purge list's snapshots: every SNAPSHOT_AFTER batches, the isolate recording a purge writes its whole list as one
// key, so that a new isolate reads that and the batches since rather than every batch ever written; then the snapshots
// it knows of that every isolate can see a newer one than are deleted. Which snapshots an isolate knows of, and which
// batch names it still remembers (those no snapshot it has seen covers), are that bookkeeping too. I/O (the KV
// namespace is handed in); the copy it moves is purge-store.ts's.

import { snapshotEntry, snapshotName, snapshotTime } from './purge-batch.ts';
import { KV_PROPAGATION_MS } from './purge-bounds.ts';
import { type KvCounted, type PurgeKv, type SnapshotSeen, TTL_S } from './purge-kv.ts';
import type { PurgeList } from './purge-rules.ts';

/** Batches past the newest snapshot after which a purge writes a new one. */
export const SNAPSHOT_AFTER = 50;
/** Batch names an isolate remembers having read, at most. */
const MAX_READ_NAMES = 20_000;

/** What of an isolate's copy (purge-store.ts Copy) a snapshot is written from, and the bookkeeping writing one moves. */
interface SnapshotsHeld {
  /** The list the snapshot holds. */
  list: PurgeList;
  /** Every batch written at or before this (ms epoch) is in `list`: what the snapshot covers. */
  complete: number;
  /** The newest snapshot seen. */
  snapshot: SnapshotSeen | undefined;
  /** Batches read, by name, with their time: counted for the next snapshot. */
  read: Map<string, number>;
  /** Snapshots written or seen, older than the newest, by name, with their time: deleted once superseded. */
  snapshots: Map<string, number>;
}

/**
 * A snapshot of `held`'s list, when it would cover SNAPSHOT_AFTER batches more than the newest one it has seen; then
 * the snapshots it knows of that every isolate can see a newer one than, deleted. `held` is moved to say so (the
 * snapshot it wrote is its newest, the batch names it covers forgotten). Throws when KV does.
 */
export async function snapshotIfDue(kv: PurgeKv, held: SnapshotsHeld, now: number, counted: KvCounted): Promise<void> {
  if (!Number.isFinite(held.complete)) return;
  const after = held.snapshot?.time ?? -Infinity;
  const covered = [...held.read.values()].filter((time) => time > after && time <= held.complete).length;
  if (covered < SNAPSHOT_AFTER) return;
  const name = snapshotName(held.complete, crypto.randomUUID());
  const { value, metadata } = snapshotEntry({ coveredUntil: held.complete, list: held.list }, held.snapshot?.name);
  counted('kvWrites');
  await kv.put(name, value, { expirationTtl: TTL_S, metadata });
  known(held.snapshots, held.snapshot?.previous);
  known(held.snapshots, held.snapshot?.name);
  held.snapshot = { name, time: held.complete, previous: held.snapshot?.name };
  held.read = pruned(held.read, held.complete - KV_PROPAGATION_MS);
  await deleteSuperseded(kv, held.snapshots, now, counted);
}

/**
 * Deletes the snapshots of `snapshots` (this isolate's, by name, with their time) that are older than one every
 * isolate can see (written more than two propagations ago): an isolate lagging behind KV still lists that one, or a
 * newer one, as its newest.
 */
async function deleteSuperseded(
  kv: PurgeKv,
  snapshots: Map<string, number>,
  now: number,
  counted: KvCounted,
): Promise<void> {
  // A snapshot's time is what it covers: a propagation before it was written.
  const anchor = Math.max(-Infinity, ...[...snapshots.values()].filter((time) => time < now - 3 * KV_PROPAGATION_MS));
  for (const [name, time] of snapshots) {
    if (time >= anchor) continue;
    snapshots.delete(name);
    counted('kvWrites');
    await kv.delete(name);
  }
}

/**
 * The newest snapshot known after a read, and the others known (with those they followed), by name: `current` is what
 * the copy knew before it (undefined: it knew none), `seen` what the read listed.
 */
export function snapshotsKnown(
  current: Pick<SnapshotsHeld, 'snapshot' | 'snapshots'> | undefined,
  seen: readonly SnapshotSeen[],
): { newest: SnapshotSeen | undefined; older: Map<string, number> } {
  const all = [...(current?.snapshot === undefined ? [] : [current.snapshot]), ...seen];
  const newest = all.reduce<SnapshotSeen | undefined>((a, b) => (b.time > (a?.time ?? -Infinity) ? b : a), undefined);
  const older = new Map(current?.snapshots);
  const note = (name: string | undefined): void => {
    const time = snapshotTime(name);
    if (name !== undefined && time !== undefined && name !== newest?.name) older.set(name, time);
  };
  for (const snapshot of all) {
    note(snapshot.name);
    note(snapshot.previous);
  }
  return { newest, older };
}

/** Notes a snapshot's name (with its time) among those this isolate knows of. */
function known(snapshots: Map<string, number>, name: string | undefined): void {
  const time = snapshotTime(name);
  if (name !== undefined && time !== undefined) snapshots.set(name, time);
}

/** `read` without names at or before `before`, and at most MAX_READ_NAMES of the newest. */
export function pruned(read: Map<string, number>, before: number): Map<string, number> {
  const kept = [...read].filter(([, time]) => time > before).sort((a, b) => b[1] - a[1]);
  return new Map(kept.slice(0, MAX_READ_NAMES));
}
