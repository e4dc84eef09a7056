// The purge list as it is written to and read from KV (the PURGES namespace, handed in; how the keys are laid out:
// purge-batch.ts): a purge request's records written as one batch key, and the keys newer than what an isolate's copy
// holds complete listed newest first, with the values a listing does not carry read (a batch too large for its
// metadata, a snapshot the copy is behind). I/O, and no state: what the copy holds is purge-store.ts's, which hands in
// what it already has. Every KV request made is told (`counted`), so that its isolate counts what its reads cost.

import {
  batchEntry,
  batchName,
  batchValue,
  type ListedKey,
  listedKey,
  PURGE_KEY_PREFIX,
  type Snapshot,
  snapshotValue,
} from './purge-batch.ts';
import { KV_PROPAGATION_MS } from './purge-bounds.ts';
import { type PurgeRecord, RECORD_LIFETIME_MS } from './purge-rules.ts';

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

/** The KV requests an isolate made, by kind (a delete counts as a write: KV prices them alike). */
export interface KvOperations {
  kvLists: number;
  kvWrites: number;
  kvReads: number;
}

/** Told of KV requests as they are made (`count` of them; 1 when not given), so that their isolate counts them. */
export type KvCounted = (operation: keyof KvOperations, count?: number) => void;

/** KV's list answers at most 1,000 keys a call (developers.cloudflare.com/kv/api/list-keys/). */
const LIST_PAGE = 1000;
/** Pages one re-read lists at most; what lies past them is no longer vouched for (PurgeList.vouchedSince). */
const MAX_PAGES = 10;
/** Batch values one re-read reads at most ("1,000 operations per Worker invocation", …/kv/platform/limits/). */
const MAX_GETS = 100;
/** How long a batch or a snapshot is kept: as long as a record lives. */
export const TTL_S = Math.ceil(RECORD_LIFETIME_MS / 1000);

/** A snapshot listed: its name, its time (what it covers), and the one it followed. */
export interface SnapshotSeen {
  name: string;
  time: number;
  previous: string | undefined;
}

/** What a re-read listed of the keys newer than the copy held complete (listNewer). */
export interface Listed {
  /** Records of batches not read before. */
  records: PurgeRecord[];
  /** The snapshot read (if the copy was behind it), and every one listed, newest first. */
  snapshot: { loaded: Snapshot | undefined; seen: SnapshotSeen[] };
  /** Nothing at or before this is vouched for. */
  floor: number;
  /** The batches read, name to time. */
  batches: Map<string, number>;
}

/** Writes one purge request's records as one batch, timed `now`; answers the batch's name. */
export async function writeBatch(
  kv: PurgeKv,
  records: readonly PurgeRecord[],
  now: number,
  counted: KvCounted,
): Promise<string> {
  const name = batchName(now, crypto.randomUUID());
  const { value, metadata } = batchEntry(records);
  counted('kvWrites');
  await kv.put(name, value, { expirationTtl: TTL_S, metadata });
  return name;
}

/**
 * The keys newer than what the copy holds complete (`held`: every batch written at or before it is in the copy), read,
 * except the batches it already read (`done`); a snapshot among them read if the copy is behind it.
 */
export async function listNewer(
  kv: PurgeKv,
  done: ReadonlyMap<string, number>,
  held: number,
  now: number,
  counted: KvCounted,
): Promise<Listed> {
  let complete = held;
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
    counted('kvLists');
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
        out.snapshot.loaded = await readValue(kv, entry.name, snapshotValue, counted);
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
  await readLarge(kv, large, out, counted);
  return out;
}

/**
 * The values of batches too large for their metadata, at most MAX_GETS; one unread is a purge forgotten since its
 * time.
 */
async function readLarge(kv: PurgeKv, large: readonly ListedKey[], out: Listed, counted: KvCounted): Promise<void> {
  await Promise.all(
    large.map(async (key, i) => {
      const records = i < MAX_GETS ? await readValue(kv, key.name, batchValue, counted) : undefined;
      if (records === undefined) out.floor = Math.max(out.floor, key.time);
      else {
        out.records.push(...records);
        out.batches.set(key.name, key.time);
      }
    }),
  );
}

/** A key's value read as `read` reads it; undefined when it is gone or not one. */
async function readValue<T>(
  kv: PurgeKv,
  name: string,
  read: (text: string) => T | undefined,
  counted: KvCounted,
): Promise<T | undefined> {
  counted('kvReads');
  const text = await kv.get(name);
  return text === null ? undefined : read(text);
}
