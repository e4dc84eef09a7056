// Each isolate's copy of the global purge list, which is kept in a KV namespace (the PURGES binding, shared by both
// workers): when the copy is read again, what it remembers between reads, and how its reads went. The namespace is a
// parameter: this module never reaches for `env`. How the keys are laid out: purge-batch.ts; how batches are written
// and listed: purge-kv.ts; the snapshots: purge-snapshot.ts.
//
// Each purge request is one KV write (a batch of its records) and one of the head (purge-head.ts, head-store.ts); every
// SNAPSHOT_AFTER batches, the isolate recording a purge also writes its whole list as a snapshot. An isolate re-reads
// the head (one KV get per location per re-read where the Cache API shares it), and lists the batches only when the
// head says so (purge-head.ts listDue): keys newest first, down to where what it already holds is complete (its own
// last list, or the newest snapshot it has not caught up with, which it then reads). So a re-read costs a get, a list
// about one page however many purges were ever made, and a new isolate reads one snapshot and the batches since. A
// read that fails leaves the copy vouching for less (purge-bounds.ts).
//
// Reading, recording and snapshotting all move the one copy (what it holds complete, the batches it read, the
// snapshots it knows, when it last wrote the head): the class holds it and hands each step what it needs of it, so that
// purge-kv.ts and purge-snapshot.ts keep no state of their own.

import { cacheHeadShare, type HeadShare, readHead, writeHead } from './head-store.ts';
import { KV_PROPAGATION_MS, servedList } from './purge-bounds.ts';
import { listDue } from './purge-head.ts';
import {
  type KvCounted,
  type KvOperations,
  type Listed,
  listNewer,
  type PurgeKv,
  type SnapshotSeen,
  writeBatch,
} from './purge-kv.ts';
import {
  keptList,
  NO_PURGES,
  type PurgeList,
  type PurgeListState,
  type PurgeRecord,
  REFRESH_MS,
} from './purge-rules.ts';
import { pruned, snapshotIfDue, snapshotsKnown } from './purge-snapshot.ts';

export { REFRESH_MS };

/**
 * Reads one re-read makes of the list at most: one that fails is tried once more at once, so that a blip costs a list
 * request rather than the floor a failed read sets (Copy.served).
 */
const READ_TRIES = 2;

interface Copy {
  /** What the records say: what this isolate read, made or was told of, and the floor they set. */
  list: PurgeList;
  /** What lookups are judged by: `list`, floored at the horizon of a read that failed (purge-bounds.ts servedList). */
  served: PurgeList;
  /** When this isolate last read KV, or tried to (ms epoch); -Infinity: never. */
  readAt: number;
  /** When a read last succeeded; undefined: none has in this isolate. */
  readOkAt: number | undefined;
  /** When the reads failing since the last one that succeeded began; undefined: the last read succeeded. */
  failingSince: number | undefined;
  /** Every batch written at or before this (ms epoch) is in `list` (read, or in a snapshot read), KV's propagation assumed. */
  complete: number;
  /** The head's id (null: none) when this isolate last listed; undefined: it never listed. */
  listedHead: string | null | undefined;
  /** When it last listed (ms epoch); -Infinity: never. */
  listedAt: number;
  /** The newest snapshot seen: its name, its time (what it covers), and the one it followed. */
  snapshot: SnapshotSeen | undefined;
  /** Batches read, by name, with their time: not read again, and counted for the next snapshot. */
  read: Map<string, number>;
  /** Snapshots this isolate wrote or saw, older than the newest, by name, with their time: deleted once superseded. */
  snapshots: Map<string, number>;
}

/**
 * An isolate's copy of the purge list, read from and recorded to the KV namespace each call is handed: the tiers use
 * their isolate's (`isolatePurges`); a test makes as many as the isolates it plays.
 */
export class PurgeStore {
  #copy: Copy | undefined;
  #reading: Promise<PurgeList> | undefined;
  /** Where this location's isolates share the head they read (head-store.ts); null: found on the first re-read. */
  #share: HeadShare | undefined | null;
  /** When this isolate last wrote the head (the purge's time); undefined: never (head-store.ts writeHead). */
  #headWrittenAt: number | undefined;
  /** KV requests this isolate made since they were last taken (takeKvOperations): what they cost is counted. */
  #made: KvOperations = { kvLists: 0, kvWrites: 0, kvReads: 0 };
  /** Counts a KV request into `#made` as it is when the request is made, so none lands in counts already taken. */
  readonly #counted: KvCounted = (operation, count = 1) => {
    this.#made[operation] += count;
  };

  /**
   * `share`: where the location's isolates share the head they read; absent = the Cache API's where there is one
   * (head-store.ts cacheHeadShare), found on the first re-read.
   */
  constructor(share?: HeadShare) {
    this.#share = share ?? null;
  }

  /**
   * What this isolate knows of purges; re-read from KV when the copy is older than REFRESH_MS.
   * `now` is on the clock entries are timed by (the tier's, shared/clock/clock.ts).
   */
  async purgeList(kv: PurgeKv | undefined, now: number): Promise<PurgeList> {
    if (kv === undefined) return this.#copy?.list ?? NO_PURGES;
    if (this.#copy !== undefined && now - this.#copy.readAt < REFRESH_MS) return this.#copy.served;
    this.#reading ??= this.#readAll(kv, now).finally(() => {
      this.#reading = undefined;
    });
    return this.#reading;
  }

  /** The records this isolate knows (the stats page lists them). */
  async purgeRecords(kv: PurgeKv | undefined, now: number): Promise<readonly PurgeRecord[]> {
    return (await this.purgeList(kv, now)).records;
  }

  /**
   * The list, without reading KV: this isolate's copy while it is recent enough, undefined when a
   * re-read is due (purgeList does it). The same object is answered until the copy changes, so a
   * caller may remember what it checked an entry against.
   */
  knownPurgeList(kv: PurgeKv | undefined, now: number): PurgeList | undefined {
    if (kv === undefined) return this.#copy?.list ?? NO_PURGES;
    if (this.#copy !== undefined && now - this.#copy.readAt < REFRESH_MS) return this.#copy.served;
    return undefined;
  }

  /** How this isolate's reads of the list went, at `now` (on the clock purgeList is given). */
  purgeListState(kv: PurgeKv | undefined, now: number): PurgeListState {
    const seconds = (since: number): number => Math.max(0, Math.floor((now - since) / 1000));
    if (kv === undefined) return { state: 'unbound' };
    if (this.#copy === undefined || this.#copy.readAt === -Infinity) return { state: 'not read yet' };
    const { readOkAt, failingSince } = this.#copy;
    if (failingSince === undefined) return { state: 'read', age: seconds(readOkAt ?? this.#copy.readAt) };
    if (readOkAt === undefined) return { state: 'unread', failing: seconds(failingSince) };
    return { state: 'failing', failing: seconds(failingSince), age: seconds(readOkAt) };
  }

  /**
   * Adds one purge request's records to this isolate's copy (at once) and to KV, as one batch; then, when enough
   * batches followed the newest snapshot, a snapshot of the list.
   */
  async recordPurges(kv: PurgeKv, records: readonly PurgeRecord[], now: number): Promise<void> {
    this.rememberPurges(records, now);
    const name = await writeBatch(kv, records, now, this.#counted);
    this.#copy?.read.set(name, now);
    const head = await writeHead(kv, now, this.#headWrittenAt);
    this.#counted('kvWrites', head.writes);
    if (head.written) this.#headWrittenAt = now;
    await this.#snapshotIfDue(kv, now);
  }

  /** Adds records to this isolate's copy only (the shield, told by the edge). */
  rememberPurges(records: readonly PurgeRecord[], now: number): void {
    const current = this.#copy ?? unreadCopy();
    this.#copy = heldCopy({
      ...current,
      list: keptList([...records, ...current.list.records], now, current.list.vouchedSince),
    });
  }

  /**
   * This isolate's copy, read again from KV: the keys newer than what it holds complete. What it could not read
   * (unreadable keys, keys or values past what one re-read takes: purge-kv.ts MAX_PAGES, MAX_GETS) it no longer vouches
   * for (PurgeList.vouchedSince).
   * A read that fails is tried once more at once; if that fails too, the copy keeps what it held, and vouches for
   * nothing from before this read's horizon (purge-bounds.ts servedList) until a read succeeds. Never throws.
   */
  async #readAll(kv: PurgeKv, now: number): Promise<PurgeList> {
    for (let tries = 1; ; tries++) {
      try {
        this.#copy = await this.#reread(kv, now);
        return this.#copy.served;
      } catch (error) {
        if (tries < READ_TRIES) continue;
        console.error(
          `purge list: KV read failed ${READ_TRIES} times; what came from the origin before ${new Date(now - KV_PROPAGATION_MS).toISOString()} counts as purged until a read succeeds`,
          error,
        );
        const current = this.#copy ?? unreadCopy();
        this.#copy = heldCopy({ ...current, readAt: now, failingSince: current.failingSince ?? now });
        return this.#copy.served;
      }
    }
  }

  /**
   * The copy after the head was read (taken from this location's share, or read from KV) and, when it says so
   * (listDue), the batches listed at `now`. Without a list, the head vouches that the list is complete up to its read's
   * horizon, and the next re-read is due REFRESH_MS after that read, however late it was taken (purge-head.ts
   * SHARE_MS).
   */
  async #reread(kv: PurgeKv, now: number): Promise<Copy> {
    if (this.#share === null) this.#share = cacheHeadShare();
    const held = this.#copy;
    const shared = await readHead(kv, this.#share, held?.readOkAt ?? -Infinity, now, () => this.#counted('kvReads'));
    const state = {
      listedHead: held?.listedHead,
      listedAt: held?.listedAt ?? -Infinity,
      complete: held?.complete ?? -Infinity,
    };
    if (held === undefined || listDue(state, shared.head, now) !== undefined) {
      // What the copy holds is taken as the list starts, and again once it is read: a purge recorded meanwhile stays.
      const listed = await listNewer(
        kv,
        this.#copy?.read ?? new Map<string, number>(),
        this.#copy?.complete ?? -Infinity,
        now,
        this.#counted,
      );
      return afterRead(this.#copy, listed, now, shared.head?.id ?? null);
    }
    return heldCopy({
      ...held,
      // Aged as a list read then would be: what outlived a record's lifetime goes.
      list: keptList(held.list.records, shared.readAt, held.list.vouchedSince),
      readAt: shared.readAt,
      readOkAt: shared.readAt,
      failingSince: undefined,
      complete: Math.max(held.complete, shared.readAt - KV_PROPAGATION_MS),
    });
  }

  /**
   * A snapshot of this isolate's list when one is due (purge-snapshot.ts snapshotIfDue), its copy read again first if a
   * re-read is due. Never throws: a snapshot only saves work.
   */
  async #snapshotIfDue(kv: PurgeKv, now: number): Promise<void> {
    try {
      await this.purgeList(kv, now);
      if (this.#copy !== undefined) await snapshotIfDue(kv, this.#copy, now, this.#counted);
    } catch (error) {
      console.error('purge list: snapshot not written', error);
    }
  }

  /**
   * The KV list, read and write requests this isolate made since the last call (shared/observe/record-sinks.ts sends
   * them with its batch). A delete counts as a write: KV prices them alike.
   */
  takeKvOperations(): KvOperations {
    const taken = this.#made;
    this.#made = { kvLists: 0, kvWrites: 0, kvReads: 0 };
    return taken;
  }
}

/** This isolate's copy: what the tier it runs reads and records purges through (module state, one per isolate). */
export const isolatePurges = new PurgeStore();

/** A copy of `fields`, with the list its lookups are judged by. */
function heldCopy(fields: Omit<Copy, 'served'>): Copy {
  return { ...fields, served: servedList(fields.list, fields.complete, fields.readAt) };
}

/** The copy once `listed` was read at `now`, the head then being `head`; `current` the copy before (undefined: none). */
function afterRead(
  current: Copy | undefined,
  { records, snapshot, floor, batches }: Listed,
  now: number,
  head: string | null,
): Copy {
  const read = new Map(current?.read);
  for (const [name, time] of batches) read.set(name, time);
  const { newest, older } = snapshotsKnown(current, snapshot.seen);
  const vouched = Math.max(
    current?.list.vouchedSince ?? -Infinity,
    snapshot.loaded?.list.vouchedSince ?? -Infinity,
    floor,
  );
  return heldCopy({
    // Records this isolate added or was told of may not be listed yet (KV is eventually consistent): kept.
    list: keptList(
      [...records, ...(snapshot.loaded?.list.records ?? []), ...(current?.list.records ?? [])],
      now,
      vouched,
    ),
    readAt: now,
    readOkAt: now,
    failingSince: undefined,
    complete: now - KV_PROPAGATION_MS,
    listedHead: head,
    listedAt: now,
    snapshot: newest,
    read: pruned(read, Math.min(newest?.time ?? -Infinity, now - 2 * KV_PROPAGATION_MS) - KV_PROPAGATION_MS),
    snapshots: older,
  });
}

/** The copy of an isolate that has read nothing yet: no re-read is recent, so the next lookup reads. */
function unreadCopy(): Copy {
  return heldCopy({
    list: NO_PURGES,
    readAt: -Infinity,
    readOkAt: undefined,
    failingSince: undefined,
    complete: -Infinity,
    listedHead: undefined,
    listedAt: -Infinity,
    snapshot: undefined,
    read: new Map(),
    snapshots: new Map(),
  });
}
