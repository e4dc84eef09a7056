// The global purge list, kept in a KV namespace (the PURGES binding, shared by both workers), and each isolate's copy
// of it. The namespace is a parameter: this module never reaches for `env`. How the keys are laid out: purge-batch.ts.
//
// Each purge request is one KV write (a batch of its records) and one of the head (purge-head.ts, head-store.ts); every
// SNAPSHOT_AFTER batches, the isolate recording a purge also writes its whole list as a snapshot. An isolate re-reads
// the head (one KV get per location per re-read where the Cache API shares it), and lists the batches only when the
// head says so (purge-head.ts listDue): keys newest first, down to where what it already holds is complete (its own
// last list, or the newest snapshot it has not caught up with, which it then reads). So a re-read costs a get, a list
// about one page however many purges were ever made, and a new isolate reads one snapshot and the batches since. A
// read that fails leaves the copy vouching for less (purge-bounds.ts).
//
// One concept: the list in KV and an isolate's copy of it (PurgeStore; the isolate's own is `isolatePurges`). Reading,
// recording and snapshotting all move the one copy (what it holds complete, the batches it read, the snapshots it
// knows, when it last wrote the head), which is why they share this class.

import { cacheHeadShare, type HeadShare, readHead, writeHead } from './head-store.ts';
import {
  batchEntry,
  batchName,
  batchValue,
  type ListedKey,
  listedKey,
  PURGE_KEY_PREFIX,
  type Snapshot,
  snapshotEntry,
  snapshotName,
  snapshotTime,
  snapshotValue,
} from './purge-batch.ts';
import { KV_PROPAGATION_MS, servedList } from './purge-bounds.ts';
import { listDue } from './purge-head.ts';
import {
  keptList,
  NO_PURGES,
  type PurgeList,
  type PurgeListState,
  type PurgeRecord,
  RECORD_LIFETIME_MS,
  REFRESH_MS,
} from './purge-rules.ts';

/** The part of a Workers KV namespace the purge list uses. */
export interface PurgeKv {
  put(key: string, value: string, options: { expirationTtl: number; metadata: unknown }): Promise<void>;
  get(key: string): Promise<string | null>;
  delete(key: string): Promise<void>;
  list(options: { prefix: string; limit: number; cursor?: string }): Promise<{
    keys: { name: string; metadata?: unknown }[];
    list_complete: boolean;
    cursor?: string;
  }>;
}

export { REFRESH_MS };

/** KV's list answers at most 1,000 keys a call (developers.cloudflare.com/kv/api/list-keys/). */
const LIST_PAGE = 1000;
/** Pages one re-read lists at most; what lies past them is no longer vouched for (PurgeList.vouchedSince). */
const MAX_PAGES = 10;
/** Batch values one re-read reads at most ("1,000 operations per Worker invocation", …/kv/platform/limits/). */
const MAX_GETS = 100;
/** Batches past the newest snapshot after which a purge writes a new one. */
export const SNAPSHOT_AFTER = 50;
/** Batch names an isolate remembers having read, at most. */
const MAX_READ_NAMES = 20_000;
const TTL_S = Math.ceil(RECORD_LIFETIME_MS / 1000);

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
  snapshot: { name: string; time: number; previous: string | undefined } | undefined;
  /** Batches read, by name, with their time: not read again, and counted for the next snapshot. */
  read: Map<string, number>;
  /** Snapshots this isolate wrote or saw, older than the newest, by name, with their time: deleted once superseded. */
  snapshots: Map<string, number>;
}

/** What a re-read listed of the keys newer than the copy held complete (listNewer). */
interface Listed {
  /** Records of batches not read before. */
  records: PurgeRecord[];
  /** The snapshot read (if the copy was behind it), and every one listed, newest first. */
  snapshot: { loaded: Snapshot | undefined; seen: NonNullable<Copy['snapshot']>[] };
  /** Nothing at or before this is vouched for. */
  floor: number;
  /** The batches read, name to time. */
  batches: Map<string, number>;
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
  #made = { kvLists: 0, kvWrites: 0, kvReads: 0 };

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
    const name = batchName(now, crypto.randomUUID());
    const { value, metadata } = batchEntry(records);
    this.#made.kvWrites += 1;
    await kv.put(name, value, { expirationTtl: TTL_S, metadata });
    this.#copy?.read.set(name, now);
    const head = await writeHead(kv, now, this.#headWrittenAt);
    this.#made.kvWrites += head.writes;
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
   * (unreadable keys, keys past MAX_PAGES, values past MAX_GETS) it no longer vouches for (PurgeList.vouchedSince).
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
    const shared = await readHead(kv, this.#share, held?.readOkAt ?? -Infinity, now, () => {
      this.#made.kvReads += 1;
    });
    const state = {
      listedHead: held?.listedHead,
      listedAt: held?.listedAt ?? -Infinity,
      complete: held?.complete ?? -Infinity,
    };
    if (held === undefined || listDue(state, shared.head, now) !== undefined)
      return this.#afterRead(await this.#listNewer(kv, now), now, shared.head?.id ?? null);
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

  /** The copy once `listed` was read at `now`, the head then being `head`. */
  #afterRead({ records, snapshot, floor, batches }: Listed, now: number, head: string | null): Copy {
    const current = this.#copy;
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

  /**
   * The keys newer than what this isolate holds complete, read; a snapshot among them read if the copy is behind it.
   */
  async #listNewer(kv: PurgeKv, now: number): Promise<Listed> {
    const done = this.#copy?.read ?? new Map<string, number>();
    let complete = this.#copy?.complete ?? -Infinity;
    // A margin of one more propagation: a batch written elsewhere a little late is still met.
    let stopAt = complete - KV_PROPAGATION_MS;
    const out: Listed = {
      records: [],
      snapshot: { loaded: undefined, seen: [] },
      floor: -Infinity,
      batches: new Map(),
    };
    const large: ListedKey[] = [];
    let cursor: string | undefined;
    let last: ListedKey | undefined;
    let ended = false;
    for (let page = 0; page < MAX_PAGES && !ended; page++) {
      this.#made.kvLists += 1;
      const listed = await kv.list({ prefix: PURGE_KEY_PREFIX, limit: LIST_PAGE, cursor });
      for (const key of listed.keys) {
        const entry = listedKey(key.name, key.metadata, now);
        if (entry.time <= stopAt) {
          ended = true;
          break;
        }
        last = entry;
        if (entry.kind === 'snapshot') {
          out.snapshot.seen.push({ name: entry.name, time: entry.time, previous: entry.previous });
          // Read only by an isolate behind it by more than a propagation: one re-reading as it is asked lists less
          // for it than reading it would cost.
          if (out.snapshot.loaded !== undefined || entry.time - KV_PROPAGATION_MS <= complete) continue;
          out.snapshot.loaded = await this.#readSnapshot(kv, entry.name);
          if (out.snapshot.loaded === undefined) continue;
          complete = Math.max(complete, out.snapshot.loaded.coveredUntil);
          stopAt = Math.max(stopAt, complete - KV_PROPAGATION_MS);
        } else if (entry.kind === 'unreadable') out.floor = Math.max(out.floor, entry.time);
        else if (!done.has(entry.name)) {
          if (entry.records === undefined) large.push(entry);
          else {
            out.records.push(...entry.records);
            out.batches.set(entry.name, entry.time);
          }
        }
      }
      ended ||= listed.list_complete || listed.cursor === undefined;
      cursor = listed.cursor;
    }
    // Keys past the listed ones are older than the last listed: none of them is vouched for.
    if (!ended && last !== undefined) out.floor = Math.max(out.floor, last.time);
    await this.#readLarge(kv, large, out);
    return out;
  }

  /**
   * The values of batches too large for their metadata, at most MAX_GETS; one unread is a purge forgotten since its
   * time.
   */
  async #readLarge(kv: PurgeKv, large: readonly ListedKey[], out: Listed): Promise<void> {
    await Promise.all(
      large.map(async (key, i) => {
        const records = i < MAX_GETS ? await this.#readValue(kv, key.name, batchValue) : undefined;
        if (records === undefined) out.floor = Math.max(out.floor, key.time);
        else {
          out.records.push(...records);
          out.batches.set(key.name, key.time);
        }
      }),
    );
  }

  #readSnapshot(kv: PurgeKv, name: string): Promise<Snapshot | undefined> {
    return this.#readValue(kv, name, snapshotValue);
  }

  /** A key's value read as `read` reads it; undefined when it is gone or not one. */
  async #readValue<T>(kv: PurgeKv, name: string, read: (text: string) => T | undefined): Promise<T | undefined> {
    this.#made.kvReads += 1;
    const text = await kv.get(name);
    return text === null ? undefined : read(text);
  }

  /**
   * A snapshot of this isolate's list, when it would cover SNAPSHOT_AFTER batches more than the newest one it has seen;
   * then the snapshots it knows of that every isolate can see a newer one than, deleted. Never throws: a snapshot only
   * saves work.
   */
  async #snapshotIfDue(kv: PurgeKv, now: number): Promise<void> {
    try {
      await this.purgeList(kv, now);
      const held = this.#copy;
      if (held === undefined || !Number.isFinite(held.complete)) return;
      const after = held.snapshot?.time ?? -Infinity;
      const covered = [...held.read.values()].filter((time) => time > after && time <= held.complete).length;
      if (covered < SNAPSHOT_AFTER) return;
      const name = snapshotName(held.complete, crypto.randomUUID());
      const { value, metadata } = snapshotEntry({ coveredUntil: held.complete, list: held.list }, held.snapshot?.name);
      this.#made.kvWrites += 1;
      await kv.put(name, value, { expirationTtl: TTL_S, metadata });
      known(held, held.snapshot?.previous);
      known(held, held.snapshot?.name);
      held.snapshot = { name, time: held.complete, previous: held.snapshot?.name };
      held.read = pruned(held.read, held.complete - KV_PROPAGATION_MS);
      await this.#deleteSuperseded(kv, held, now);
    } catch (error) {
      console.error('purge list: snapshot not written', error);
    }
  }

  /**
   * Deletes the snapshots this isolate knows of that are older than one every isolate can see (written more than two
   * propagations ago): an isolate lagging behind KV still lists that one, or a newer one, as its newest.
   */
  async #deleteSuperseded(kv: PurgeKv, held: Copy, now: number): Promise<void> {
    // A snapshot's time is what it covers: a propagation before it was written.
    const anchor = Math.max(
      -Infinity,
      ...[...held.snapshots.values()].filter((time) => time < now - 3 * KV_PROPAGATION_MS),
    );
    for (const [name, time] of held.snapshots) {
      if (time >= anchor) continue;
      held.snapshots.delete(name);
      this.#made.kvWrites += 1;
      await kv.delete(name);
    }
  }

  /**
   * The KV list, read and write requests this isolate made since the last call (shared/observe/record-sinks.ts sends
   * them with its batch). A delete counts as a write: KV prices them alike.
   */
  takeKvOperations(): { kvLists: number; kvWrites: number; kvReads: number } {
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

/** The newest snapshot known after a read, and the others known (with those they followed), by name. */
function snapshotsKnown(
  current: Copy | undefined,
  seen: readonly NonNullable<Copy['snapshot']>[],
): { newest: Copy['snapshot']; older: Map<string, number> } {
  const all = [...(current?.snapshot === undefined ? [] : [current.snapshot]), ...seen];
  const newest = all.reduce<Copy['snapshot']>((a, b) => (b.time > (a?.time ?? -Infinity) ? b : a), undefined);
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
function known(held: Copy, name: string | undefined): void {
  const time = snapshotTime(name);
  if (name !== undefined && time !== undefined) held.snapshots.set(name, time);
}

/** `read` without names at or before `before`, and at most MAX_READ_NAMES of the newest. */
function pruned(read: Map<string, number>, before: number): Map<string, number> {
  const kept = [...read].filter(([, time]) => time > before).sort((a, b) => b[1] - a[1]);
  return new Map(kept.slice(0, MAX_READ_NAMES));
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
