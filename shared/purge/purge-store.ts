// The global purge list, kept in a KV namespace (the PURGES binding, shared by both workers):
// one key per record, its metadata the record, expiring after RECORD_LIFETIME_MS. Keys sort
// newest first, so one `list` call reads the newest MAX_RECORDS. Each isolate keeps its copy
// and re-reads it at most every REFRESH_MS; the isolate that records a purge adds it at once.
// The namespace is a parameter: this module never reaches for `env`.

import { MAX_RECORDS, type PurgeRecord, RECORD_LIFETIME_MS, asRecord, keptRecords } from './purge.ts';

/** The part of a Workers KV namespace the purge list uses. */
export interface PurgeKv {
  put(key: string, value: string, options: { expirationTtl: number; metadata: unknown }): Promise<void>;
  list(options: { prefix: string; limit: number }): Promise<{ keys: { name: string; metadata?: unknown }[] }>;
}

/** How stale an isolate's copy may be; KV's own propagation (up to 60 s) comes on top. */
export const REFRESH_MS = 5_000;
/** Workers KV: "changes may take up to 60 seconds or more to be visible in other locations". */
const KV_PROPAGATION_S = 60;
/** What the purge answer promises. */
export const REACHES_EVERY_LOCATION_WITHIN = `${KV_PROPAGATION_S + REFRESH_MS / 1000}s`;

const PREFIX = 'purge:';
/** Larger than any ms epoch for a long while: `FAR - at` sorts the newest first. */
const FAR = 9_999_999_999_999;

let copy: { records: PurgeRecord[]; readAt: number } | undefined;
let reading: Promise<PurgeRecord[]> | undefined;

/** The records this isolate knows; re-read from KV when the copy is older than REFRESH_MS. */
export async function purgeRecords(kv: PurgeKv | undefined, now: number): Promise<PurgeRecord[]> {
  if (kv === undefined) return copy?.records ?? [];
  if (copy !== undefined && now - copy.readAt < REFRESH_MS) return copy.records;
  reading ??= readAll(kv, now).finally(() => {
    reading = undefined;
  });
  return reading;
}

const NO_RECORDS: readonly PurgeRecord[] = [];

/**
 * The records, without reading KV: this isolate's copy while it is recent enough, undefined
 * when a re-read is due (purgeRecords does it). The same array is answered until the copy
 * changes, so a caller may remember what it checked an entry against.
 */
export function knownPurgeRecords(kv: PurgeKv | undefined, now: number): readonly PurgeRecord[] | undefined {
  if (kv === undefined) return copy?.records ?? NO_RECORDS;
  if (copy !== undefined && now - copy.readAt < REFRESH_MS) return copy.records;
  return undefined;
}

/** Adds records to KV and to this isolate's copy (at once). */
export async function recordPurges(kv: PurgeKv, records: readonly PurgeRecord[], now: number): Promise<void> {
  rememberPurges(records, now);
  const ttl = Math.ceil(RECORD_LIFETIME_MS / 1000);
  await Promise.all(records.map((record, i) => {
    const key = `${PREFIX}${String(FAR - record.at).padStart(13, '0')}:${i}:${crypto.randomUUID()}`;
    return kv.put(key, '', { expirationTtl: ttl, metadata: record });
  }));
}

/** Adds records to this isolate's copy only (the shield, told by the edge). */
export function rememberPurges(records: readonly PurgeRecord[], now: number): void {
  copy = { records: keptRecords([...records, ...(copy?.records ?? [])], now), readAt: copy?.readAt ?? 0 };
}

async function readAll(kv: PurgeKv, now: number): Promise<PurgeRecord[]> {
  try {
    const { keys } = await kv.list({ prefix: PREFIX, limit: MAX_RECORDS });
    const stored = keys.map((key) => asRecord(key.metadata)).filter((record) => record !== undefined);
    // Records this isolate added may not be listed yet (KV is eventually consistent): keep them.
    copy = { records: keptRecords([...stored, ...(copy?.records ?? [])], now), readAt: now };
  } catch (error) {
    console.error('purge list: KV read failed, keeping the copy', error);
    copy = { records: copy?.records ?? [], readAt: now };
  }
  return copy.records;
}

/** Forgets this isolate's copy (tests). */
export function forgetPurgeCopy(): void {
  copy = undefined;
}
