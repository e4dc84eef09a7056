// Purge (docs/purge.md): what a purge request asks for, and whether a stored entry is gone, judged by
// when its bytes came from the origin. No I/O here: records in, verdicts out.
//
// Isolate state, declared: `indexes`, each kept list's records indexed once for lookups (newestMatching). It changes
// no answer (a memo of a pure function of the records array, which never changes once kept) and lives as long as the
// array: every request of the isolate checking entries against the same list shares one index, built on the first
// check, where rebuilding it per request would cost a pass over up to MAX_RECORDS records on every lookup.

import { splitList } from '../http/header-list.ts';
import { excerpt, jsonObject, stringList, written } from '../http/json-fields.ts';
import { MAX_RETENTION_S, originAt } from '../store/stored-entry.ts';

/** What a purge looks at in a stored entry (or in an answer a tier is about to store). */
export interface PurgeCandidate {
  meta: { storedAt: number; originAt?: number };
  headers: Headers;
}

type PurgeKind = 'url' | 'prefix' | 'tag' | 'everything';

/**
 * A purge as recorded. It deletes nothing at the origin: it says "everything matching this, whose
 * bytes came from the origin before this moment, is no longer ours to serve".
 */
export interface PurgeRecord {
  kind: PurgeKind;
  /** `url`: canonical path and query; `prefix`: a path prefix; `tag`: lower-case tag; `everything`: ''. */
  value: string;
  /** ms epoch of the purge: entries stored at or before it are purged. */
  at: number;
  /**
   * A soft purge (soft-purge.ts): what it matches becomes stale at `at` instead of gone, revalidated with its
   * validators. Absent (a hard purge, and every record written before soft purges were): the entry is gone.
   */
  soft?: true;
}

/** A purge request body as accepted (values as the client sent them, trimmed). */
export interface PurgeRequest {
  urls: string[];
  prefixes: string[];
  tags: string[];
  everything: boolean;
  /** `"soft": true`: every record of this request is soft (PurgeRecord.soft). */
  soft: boolean;
}

/** What a stored entry is checked by: when its bytes came from the origin, its canonical path, its tags. */
export interface PurgeSubject {
  originAt: number;
  path: string;
  tags: readonly string[];
}

/** A request naming MAX_PURGE_VALUES values of MAX_VALUE_LENGTH each, in JSON, fits. */
export const PURGE_BODY_LIMIT = 1024 * 1024;
/** Values a request may name at once (each becomes one record; the request's records are one KV write, purge-batch.ts). */
export const MAX_PURGE_VALUES = 1000;
/**
 * URLs of one purge each tier also deletes from its location's cache at once (each delete is a subrequest, and a
 * request may make only so many: developers.cloudflare.com/workers/platform/limits/#subrequests). Past them, a URL's
 * record is what makes its entry a miss: at once in the isolate that took the purge, within the bound elsewhere.
 */
const MAX_DIRECT_DELETES = 100;

/** The URLs a tier deletes directly under a budget of `subrequests` a request (SUBREQUEST_LIMIT): half of it at most. */
export function directDeletes(subrequests: number): number {
  return Math.max(0, Math.min(MAX_DIRECT_DELETES, Math.floor(subrequests / 2)));
}
/** Longest URL, prefix or tag. */
export const MAX_VALUE_LENGTH = 512;
/**
 * The list each tier keeps: the newest records (one per target: a newer purge of the same target covers all an older
 * one did), none older than RECORD_LIFETIME_MS. Ten purges of MAX_PURGE_VALUES distinct targets.
 */
export const MAX_RECORDS = 10_000;
/**
 * As long as a tier may keep an entry (MAX_RETENTION_S); one whose bytes are older counts as purged
 * (PurgeList.vouchedSince).
 */
export const RECORD_LIFETIME_MS = MAX_RETENTION_S * 1000;
/**
 * How stale an isolate's copy of the list may be (purge-store.ts re-reads it from KV at most this often); KV's own
 * propagation comes on top.
 */
export const REFRESH_MS = 5_000;

/**
 * What a tier knows of purges: the records it keeps, and how far back they vouch. A record the
 * list dropped (older than RECORD_LIFETIME_MS, past the newest MAX_RECORDS, or unreadable) may
 * have covered an entry still stored, so every entry whose bytes came from the origin at or
 * before `vouchedSince` (ms epoch) counts as purged; -Infinity: the list has dropped nothing.
 * It only rises, and it is set when the list is built: records are dropped only then. (An isolate whose read of the
 * list failed serves its list with a higher floor until a read succeeds: purge-bounds.ts servedList.)
 */
export interface PurgeList {
  records: readonly PurgeRecord[];
  vouchedSince: number;
}

/** How an isolate's reads of the list went (purge-store.ts purgeListState; the health answer says it). */
export type PurgeListState =
  /** The last read succeeded, `age` seconds ago. */
  | { state: 'read'; age: number }
  /** No read has succeeded in this isolate; they have failed for `failing` seconds. */
  | { state: 'unread'; failing: number }
  /** The reads have failed for `failing` seconds; the last one that succeeded was `age` seconds ago. */
  | { state: 'failing'; failing: number; age: number }
  /** Nothing has asked for the list in this isolate yet. */
  | { state: 'not read yet' }
  /** No purge list is bound (PURGES). */
  | { state: 'unbound' };

/** The list of a tier that has neither read nor been told of any purge. */
export const NO_PURGES: PurgeList = { records: [], vouchedSince: -Infinity };

const FIELDS = ['urls', 'prefixes', 'tags', 'everything', 'soft'] as const;

/** The body parsed, or why not (a message saying what was expected and what arrived). Never throws. */
export function parsePurgeBody(text: string): { ok: true; request: PurgeRequest } | { ok: false; reason: string } {
  const parsed = jsonObject(text, FIELDS, '{"urls": ["/path"]}');
  if (!parsed.ok) return parsed;
  const record = parsed.value;
  const request: PurgeRequest = { urls: [], prefixes: [], tags: [], everything: false, soft: false };
  for (const field of ['urls', 'prefixes', 'tags'] as const) {
    const list = stringList(record[field], field, MAX_VALUE_LENGTH);
    if (!list.ok) return list;
    request[field] = list.value;
  }
  const everything = record.everything;
  if (everything !== undefined && typeof everything !== 'boolean')
    return {
      ok: false,
      reason: `expected "everything" to be true or false, got ${written(everything)}`,
    };
  request.everything = everything === true;
  const soft = record.soft;
  if (soft !== undefined && typeof soft !== 'boolean')
    return { ok: false, reason: `expected "soft" to be true or false, got ${written(soft)}` };
  request.soft = soft === true;
  const bad = request.prefixes.find((prefix) => !prefix.startsWith('/'));
  if (bad !== undefined)
    return { ok: false, reason: `expected each prefix to be a path starting with "/", got ${excerpt(bad)}` };
  const count = request.urls.length + request.prefixes.length + request.tags.length;
  if (count > MAX_PURGE_VALUES)
    return {
      ok: false,
      reason: `expected at most ${MAX_PURGE_VALUES} urls, prefixes and tags in one request, got ${count}`,
    };
  if (count === 0 && !request.everything)
    return {
      ok: false,
      reason: 'expected at least one url, prefix or tag, or "everything": true; got nothing to purge',
    };
  return { ok: true, request };
}

/**
 * Whether `entry` was stored at or before a purge that matches it, judged by when its bytes came
 * from the origin (originAt), not by when this tier stored them: a tier that refills from another
 * which has not read the purge yet gets the old bytes with their old origin time, and the purge
 * still finds them.
 */
export function isPurged(entry: PurgeSubject, records: readonly PurgeRecord[]): boolean {
  // A soft record removes nothing: it makes an entry stale (soft-purge.ts softPurgedAt).
  return newestMatching(records, entry.path, entry.tags, 'hard') >= entry.originAt;
}

/** When the newest hard purge matching an object at `path` with `tags` was made (ms epoch); undefined if none. */
export function lastPurge(
  records: readonly PurgeRecord[],
  path: string,
  tags: readonly string[] = [],
): number | undefined {
  const at = newestMatching(records, path, tags, 'hard');
  return at === -Infinity ? undefined : at;
}

/**
 * A purge check that also notes the newest purge it applied, so the edge can pass it on to
 * the shield (shield-client.ts): the shield may not have read that purge from the global list
 * yet, and must not answer the refill from the copy the purge was meant to remove.
 */
export function purgeWatch(
  list: PurgeList,
  path: string,
): { purged: (entry: PurgeCandidate) => boolean; watermark: () => number | undefined } {
  // Purges by URL, prefix or everything apply whatever the entry; by tag, only to a tagged entry found here.
  let watermark = lastPurge(list.records, path);
  return {
    purged: (entry) => {
      // The floor counts as a purge of everything: the shield is told it once it applied.
      const at = Math.max(lastPurge(list.records, path, entryTags(entry.headers)) ?? -Infinity, list.vouchedSince);
      if (originAt(entry.meta) > at) return false;
      watermark = Math.max(watermark ?? at, at);
      return true;
    },
    watermark: () => watermark,
  };
}

/** The tags of a response: `Cache-Tag`, comma-separated, compared without regard to case (as Cloudflare's). */
export function entryTags(headers: Headers): string[] {
  return splitList(headers.get('cache-tag') ?? '').map((tag) => tag.toLowerCase());
}

/**
 * The list a tier keeps of `records` at `now`: newest first, at most MAX_RECORDS, none older
 * than RECORD_LIFETIME_MS, each target (kind, value, soft or not) once, at its newest; vouching for nothing at or before the newest record
 * it drops, nor for anything older than a record's lifetime (the KV store forgets those records
 * without saying so), nor before `vouchedSince` (the list's floor so far).
 */
export function keptList(records: readonly PurgeRecord[], now: number, vouchedSince = -Infinity): PurgeList {
  const seen = new Set<string>();
  const live = [...records]
    .filter((record) => now - record.at <= RECORD_LIFETIME_MS)
    .sort((a, b) => b.at - a.at)
    .filter((record) => {
      // Newest first: a target's first record is its newest, and it covers whatever an older one of it did.
      const id = `${record.kind} ${record.value}${record.soft === true ? ' soft' : ''}`;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
  // Sorted newest first: the first record past the bound is the newest one dropped.
  const droppedAt = live[MAX_RECORDS]?.at ?? -Infinity;
  return {
    records: live.slice(0, MAX_RECORDS),
    vouchedSince: Math.max(vouchedSince, now - RECORD_LIFETIME_MS, droppedAt),
  };
}

/** A record read back from storage, or undefined if it is not one. */
export function asRecord(value: unknown): PurgeRecord | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { kind, value: text, at, soft } = value as Record<string, unknown>;
  if (kind !== 'url' && kind !== 'prefix' && kind !== 'tag' && kind !== 'everything') return undefined;
  if (typeof text !== 'string' || typeof at !== 'number' || !Number.isFinite(at)) return undefined;
  // Only `true` is soft: a record without the field (or written before it existed) is a hard purge.
  return soft === true ? { kind, value: text, at, soft } : { kind, value: text, at };
}

export function matches(record: PurgeRecord, entry: PurgeSubject): boolean {
  switch (record.kind) {
    case 'everything':
      return true;
    case 'url':
      return entry.path === record.value;
    case 'prefix':
      return entry.path.startsWith(record.value);
    case 'tag':
      return entry.tags.includes(record.value);
  }
}

/**
 * The check a tier hands to ObjectRead, run on every lookup (a purged entry is a miss): is this
 * stored entry (at `path`, canonical) purged?
 * `watermark` (ms epoch): entries stored at or before it are purged too (the edge's word, when
 * it knows of a purge this tier has not read yet), as are those the list no longer vouches for.
 */
export function purgedBy(list: PurgeList, path: string, watermark?: number): (entry: PurgeCandidate) => boolean {
  const floor = Math.max(list.vouchedSince, watermark ?? -Infinity);
  if (list.records.length === 0 && floor === -Infinity) return () => false;
  return (entry) =>
    originAt(entry.meta) <= floor ||
    isPurged({ originAt: originAt(entry.meta), path, tags: entryTags(entry.headers) }, list.records);
}

/** The newest hard and soft purge of one target, -Infinity for none. */
interface Newest {
  hard: number;
  soft: number;
}

/** A list's records by what they name, so a lookup costs a few map reads however many records there are. */
interface PurgeIndex {
  everything: Newest;
  urls: Map<string, Newest>;
  tags: Map<string, Newest>;
  prefixes: Map<string, Newest>;
  /** The lengths of the prefixes named: a path is looked up by its own prefixes of these lengths. */
  prefixLengths: number[];
  hasSoft: boolean;
}

/** Built once per records array (a list's records never change once kept): the isolate state declared above. */
const indexes = new WeakMap<readonly PurgeRecord[], PurgeIndex>();

function indexOf(records: readonly PurgeRecord[]): PurgeIndex {
  let index = indexes.get(records);
  if (index !== undefined) return index;
  index = {
    everything: { hard: -Infinity, soft: -Infinity },
    urls: new Map(),
    tags: new Map(),
    prefixes: new Map(),
    prefixLengths: [],
    hasSoft: false,
  };
  const lengths = new Set<number>();
  for (const record of records) {
    const side = record.soft === true ? 'soft' : 'hard';
    if (side === 'soft') index.hasSoft = true;
    let newest = index.everything;
    if (record.kind !== 'everything') {
      const map = record.kind === 'url' ? index.urls : record.kind === 'tag' ? index.tags : index.prefixes;
      newest = map.get(record.value) ?? { hard: -Infinity, soft: -Infinity };
      map.set(record.value, newest);
      if (record.kind === 'prefix') lengths.add(record.value.length);
    }
    newest[side] = Math.max(newest[side], record.at);
  }
  index.prefixLengths = [...lengths].sort((a, b) => a - b);
  indexes.set(records, index);
  return index;
}

/**
 * When the newest `side` record of `records` matching an object at `path` with `tags` was made (ms epoch), -Infinity
 * if none: what `matches` finds over every record, by lookups.
 */
export function newestMatching(
  records: readonly PurgeRecord[],
  path: string,
  tags: readonly string[],
  side: 'hard' | 'soft',
): number {
  if (records.length === 0) return -Infinity;
  const index = indexOf(records);
  if (side === 'soft' && !index.hasSoft) return -Infinity;
  let at = Math.max(index.everything[side], index.urls.get(path)?.[side] ?? -Infinity);
  for (const tag of tags) at = Math.max(at, index.tags.get(tag)?.[side] ?? -Infinity);
  for (const length of index.prefixLengths) {
    if (length > path.length) break;
    at = Math.max(at, index.prefixes.get(path.slice(0, length))?.[side] ?? -Infinity);
  }
  return at;
}

/** Whether any of `records` is soft. */
export function hasSoftRecords(records: readonly PurgeRecord[]): boolean {
  return records.length > 0 && indexOf(records).hasSoft;
}
