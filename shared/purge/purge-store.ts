// The global purge list, kept in a KV namespace (the PURGES binding, shared by both workers), and each
// isolate's copy of it. The namespace is a parameter: this module never reaches for `env`.

import {
  asRecord,
  keptList,
  MAX_RECORDS,
  NO_PURGES,
  type PurgeList,
  type PurgeRecord,
  RECORD_LIFETIME_MS,
  REFRESH_MS,
} from './purge-rules.ts';

/** The part of a Workers KV namespace the purge list uses. */
export interface PurgeKv {
  put(key: string, value: string, options: { expirationTtl: number; metadata: unknown }): Promise<void>;
  list(options: {
    prefix: string;
    limit: number;
  }): Promise<{ keys: { name: string; metadata?: unknown }[]; list_complete: boolean }>;
}

export { REFRESH_MS };

/** Workers KV: "changes may take up to 60 seconds or more to be visible in other locations". */
const KV_PROPAGATION_S = 60;
/** What the purge answer promises. */
export const REACHES_EVERY_LOCATION_WITHIN = `${KV_PROPAGATION_S + REFRESH_MS / 1000}s`;

// One key per record, its metadata the record, expiring after RECORD_LIFETIME_MS. Keys sort newest
// first, so one `list` call reads the newest MAX_RECORDS.
const PREFIX = 'purge:';
/** Larger than any ms epoch for a long while: `FAR - at` sorts the newest first. */
const FAR = 9_999_999_999_999;
const AT_DIGITS = 13;

let copy: { list: PurgeList; readAt: number } | undefined;
let reading: Promise<PurgeList> | undefined;
/** KV requests this isolate made since they were last taken (takeKvOperations): what they cost is counted. */
let made = { kvLists: 0, kvWrites: 0 };

/**
 * What this isolate knows of purges; re-read from KV when the copy is older than REFRESH_MS.
 * `now` is on the clock entries are timed by (the test clock's, in tests).
 */
export async function purgeList(kv: PurgeKv | undefined, now: number): Promise<PurgeList> {
  if (kv === undefined) return copy?.list ?? NO_PURGES;
  if (copy !== undefined && now - copy.readAt < REFRESH_MS) return copy.list;
  reading ??= readAll(kv, now).finally(() => {
    reading = undefined;
  });
  return reading;
}

/** The records this isolate knows (the stats page lists them). */
export async function purgeRecords(kv: PurgeKv | undefined, now: number): Promise<readonly PurgeRecord[]> {
  return (await purgeList(kv, now)).records;
}

/**
 * The list, without reading KV: this isolate's copy while it is recent enough, undefined when a
 * re-read is due (purgeList does it). The same object is answered until the copy changes, so a
 * caller may remember what it checked an entry against.
 */
export function knownPurgeList(kv: PurgeKv | undefined, now: number): PurgeList | undefined {
  if (kv === undefined) return copy?.list ?? NO_PURGES;
  if (copy !== undefined && now - copy.readAt < REFRESH_MS) return copy.list;
  return undefined;
}

/** Adds records to KV and to this isolate's copy (at once). */
export async function recordPurges(kv: PurgeKv, records: readonly PurgeRecord[], now: number): Promise<void> {
  rememberPurges(records, now);
  const ttl = Math.ceil(RECORD_LIFETIME_MS / 1000);
  made.kvWrites += records.length;
  await Promise.all(
    records.map((record, i) => {
      const key = `${PREFIX}${String(FAR - record.at).padStart(AT_DIGITS, '0')}:${i}:${crypto.randomUUID()}`;
      return kv.put(key, '', { expirationTtl: ttl, metadata: record });
    }),
  );
}

/** Adds records to this isolate's copy only (the shield, told by the edge). */
export function rememberPurges(records: readonly PurgeRecord[], now: number): void {
  copy = {
    list: keptList([...records, ...(copy?.list.records ?? [])], now, copy?.list.vouchedSince),
    readAt: copy?.readAt ?? 0,
  };
}

/**
 * This isolate's copy, read again from KV. What it no longer holds (records expired, past the
 * newest MAX_RECORDS, unreadable) it no longer vouches for (PurgeList.vouchedSince, purge.ts).
 */
async function readAll(kv: PurgeKv, now: number): Promise<PurgeList> {
  try {
    made.kvLists += 1;
    const { keys, list_complete: complete } = await kv.list({ prefix: PREFIX, limit: MAX_RECORDS });
    const stored: PurgeRecord[] = [];
    let unread = -Infinity;
    for (const key of keys) {
      const record = asRecord(key.metadata);
      if (record !== undefined) stored.push(record);
      // A key whose record cannot be read is a purge forgotten: its time is in its name.
      else unread = Math.max(unread, keyTime(key.name, now));
    }
    // Keys past the listed ones are older than the last listed: none of them is vouched for.
    const last = keys.at(-1);
    if (!complete && last !== undefined) unread = Math.max(unread, keyTime(last.name, now));
    // Records this isolate added may not be listed yet (KV is eventually consistent): keep them.
    copy = {
      list: keptList(
        [...stored, ...(copy?.list.records ?? [])],
        now,
        Math.max(copy?.list.vouchedSince ?? -Infinity, unread),
      ),
      readAt: now,
    };
  } catch (error) {
    console.error('purge list: KV read failed, keeping the copy', error);
    copy = { list: copy?.list ?? NO_PURGES, readAt: now };
  }
  return copy.list;
}

/** The purge time a key is named by (recordPurges), at most `now`; -Infinity for a name that is not one of ours. */
function keyTime(name: string, now: number): number {
  const digits = name.slice(PREFIX.length, PREFIX.length + AT_DIGITS);
  return /^\d{13}$/.test(digits) ? Math.min(now, FAR - Number(digits)) : -Infinity;
}

/**
 * The KV list and write requests this isolate made since the last call (shared/observe/record-sinks.ts sends them with
 * its batch).
 */
export function takeKvOperations(): { kvLists: number; kvWrites: number } {
  const taken = made;
  made = { kvLists: 0, kvWrites: 0 };
  return taken;
}

/** Forgets this isolate's copy (tests). */
export function forgetPurgeCopy(): void {
  copy = undefined;
}
