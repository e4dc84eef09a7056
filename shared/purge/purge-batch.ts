// How the purge list is laid out in KV (docs/purge.md "Volume"): one key per purge request (a batch of its records)
// and, now and then, a snapshot of a whole list, so that an isolate reads a bounded number of keys however many purges
// were made. No I/O: names and values in, records out.
//
// Every key is `purge:<FAR - time, 13 digits>:<kind>:<uuid>`, so that KV's list, which sorts keys by name, gives the
// newest first: a batch is named by when it was written, a snapshot by the time it covers (`coveredUntil`). Keys of a
// release before batches (`purge:<time>:<i>:<uuid>`, a record in the metadata) read as batches of one.

import { asRecord, type PurgeList, type PurgeRecord } from './purge-rules.ts';

export const PURGE_KEY_PREFIX = 'purge:';
/** Larger than any ms epoch for a long while: `FAR - at` sorts the newest first. */
const FAR = 9_999_999_999_999;
const TIME_DIGITS = 13;
/** "The maximum size of the metadata is 1024 bytes" (developers.cloudflare.com/kv/platform/limits/). */
export const MAX_METADATA_BYTES = 1024;

/** A record as stored: kind, value, ms epoch, and 1 when soft. */
type StoredRecord = [PurgeRecord['kind'], string, number] | [PurgeRecord['kind'], string, number, 1];

/** A key as listed: a batch of records, or a snapshot of a list. */
export type ListedKey =
  | { kind: 'batch'; name: string; time: number; records: PurgeRecord[] }
  /** A batch too large for its metadata: its records are the key's value, read once (they never change). */
  | { kind: 'batch'; name: string; time: number; records: undefined }
  /** A snapshot, and the one its writer knew as the newest before it (deleted once well past, purge-snapshot.ts). */
  | { kind: 'snapshot'; name: string; time: number; previous: string | undefined }
  /** Not one of ours, or not readable: what it held, if anything, is forgotten since `time`. */
  | { kind: 'unreadable'; name: string; time: number };

/** What a snapshot holds: a list as one isolate kept it, complete for every batch written at or before `coveredUntil`. */
export interface Snapshot {
  coveredUntil: number;
  list: PurgeList;
}

/** The name of a batch written at `time`. */
export function batchName(time: number, id: string): string {
  return `${PURGE_KEY_PREFIX}${timeDigits(time)}:b:${id}`;
}

/** The name of a snapshot complete up to `coveredUntil`. */
export function snapshotName(coveredUntil: number, id: string): string {
  return `${PURGE_KEY_PREFIX}${timeDigits(coveredUntil)}:s:${id}`;
}

/**
 * A batch's records, stored: in the metadata when they fit (KV's list answers it, so reading costs nothing more), else
 * in the value with the metadata saying so.
 */
export function batchEntry(records: readonly PurgeRecord[]): { value: string; metadata: unknown } {
  const metadata = { b: records.map(stored) };
  if (new TextEncoder().encode(JSON.stringify(metadata)).byteLength <= MAX_METADATA_BYTES)
    return { value: '', metadata };
  return { value: JSON.stringify(metadata.b), metadata: { inValue: true } };
}

/** A snapshot, stored: the list in the value, the snapshot it follows in the metadata. */
export function snapshotEntry(snapshot: Snapshot, previous: string | undefined): { value: string; metadata: unknown } {
  const { coveredUntil, list } = snapshot;
  const vouchedSince = Number.isFinite(list.vouchedSince) ? list.vouchedSince : null;
  return {
    value: JSON.stringify({ coveredUntil, vouchedSince, records: list.records.map(stored) }),
    metadata: previous === undefined ? {} : { previous },
  };
}

/** A listed key read by its name and metadata, its time at most `now` (a clock ahead of ours is not believed). */
export function listedKey(name: string, metadata: unknown, now: number): ListedKey {
  const time = keyTime(name, now);
  const kind = name.slice(PURGE_KEY_PREFIX.length + TIME_DIGITS + 1).split(':')[0];
  if (time === -Infinity) return { kind: 'unreadable', name, time };
  if (kind === 's') {
    const previous = isObject(metadata) ? metadata.previous : undefined;
    return { kind: 'snapshot', name, time, previous: typeof previous === 'string' ? previous : undefined };
  }
  const legacy = asRecord(metadata);
  if (kind !== 'b')
    return legacy === undefined ? { kind: 'unreadable', name, time } : { kind: 'batch', name, time, records: [legacy] };
  if (isObject(metadata) && metadata.inValue === true) return { kind: 'batch', name, time, records: undefined };
  const records = isObject(metadata) ? readRecords(metadata.b) : undefined;
  return records === undefined ? { kind: 'unreadable', name, time } : { kind: 'batch', name, time, records };
}

/** The time a snapshot's name says; undefined for a name that is not a snapshot's (never deleted, then). */
export function snapshotTime(name: string | undefined): number | undefined {
  if (name === undefined) return undefined;
  const key = listedKey(name, undefined, Infinity);
  return key.kind === 'snapshot' ? key.time : undefined;
}

/** A batch's value (batchEntry), or undefined when it is not one. */
export function batchValue(text: string): PurgeRecord[] | undefined {
  return readRecords(parse(text));
}

/** A snapshot's value (snapshotEntry), or undefined when it is not one. */
export function snapshotValue(text: string): Snapshot | undefined {
  const value = parse(text);
  if (!isObject(value) || typeof value.coveredUntil !== 'number' || !Number.isFinite(value.coveredUntil))
    return undefined;
  const records = readRecords(value.records);
  const vouched = value.vouchedSince;
  if (records === undefined || (vouched !== null && (typeof vouched !== 'number' || !Number.isFinite(vouched))))
    return undefined;
  return { coveredUntil: value.coveredUntil, list: { records, vouchedSince: vouched ?? -Infinity } };
}

function stored(record: PurgeRecord): StoredRecord {
  return record.soft === true ? [record.kind, record.value, record.at, 1] : [record.kind, record.value, record.at];
}

/** Stored records read back; undefined when any is not one (a batch is read whole or not at all). */
function readRecords(value: unknown): PurgeRecord[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const records: PurgeRecord[] = [];
  for (const item of value as unknown[]) {
    if (!Array.isArray(item)) return undefined;
    const [kind, text, at, soft] = item as unknown[];
    const record = asRecord({ kind, value: text, at, soft: soft === 1 });
    if (record === undefined) return undefined;
    records.push(record);
  }
  return records;
}

/** The time a key is named by, at most `now`; -Infinity for a name that is not one of ours. */
function keyTime(name: string, now: number): number {
  if (!name.startsWith(PURGE_KEY_PREFIX)) return -Infinity;
  const digits = name.slice(PURGE_KEY_PREFIX.length, PURGE_KEY_PREFIX.length + TIME_DIGITS);
  return /^\d{13}$/.test(digits) ? Math.min(now, FAR - Number(digits)) : -Infinity;
}

function timeDigits(time: number): string {
  return String(FAR - Math.floor(time)).padStart(TIME_DIGITS, '0');
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
