// How a tier talks to the stats store (shield/stats-store.ts): the object's name, its two calls, and a batch's
// JSON with the store's check of it (whole, before any number is added: a bad batch is refused, never summed).

import { isTierName, TIER_NAMES, type TierName } from '../tiers/tiers.ts';
import { OUTCOMES, type Outcome } from './record.ts';
import type { Totals } from './stats-json.ts';
import { MINUTE_MS } from './stats-window.ts';
import { PREFETCH_COUNT_NAMES, R2_COUNT_NAMES } from './store-operations.ts';
import { TOTAL_FIELDS } from './totals.ts';

/** The one Durable Object every isolate of every tier flushes to, and the edge reads back. */
export const STATS_OBJECT_NAME = 'tiercache-stats';
/** A Durable Object's fetch takes an absolute URL; the host is never resolved (the stub is the route). */
const STATS_STORE_ORIGIN = 'https://stats.tiercache.internal';
/** POST a batch (StatsBatchJson): 204, or 400 saying why it is no batch. */
export const BATCH_PATH = '/batch';
/** GET with `?minutes=<n>`: the stored minute buckets (MinuteBucket[]) of the last n minutes. */
export const BUCKETS_PATH = '/buckets';
export const MINUTES_PARAM = 'minutes';

/** The URL a batch is POSTed to. */
export function batchUrl(): string {
  return `${STATS_STORE_ORIGIN}${BATCH_PATH}`;
}

/** The URL the buckets of the last `minutes` minutes are read from. */
export function bucketsUrl(minutes: number): string {
  return `${STATS_STORE_ORIGIN}${BUCKETS_PATH}?${MINUTES_PARAM}=${minutes}`;
}

/** The sums of the records of one minute, tier, host, outcome and reason. */
export type BatchRow = {
  /** The minute's start (ms epoch), from the records' `at`. */
  minute: number;
  tier: TierName;
  /** The client's host as recorded, or OTHER past the batch's bound. */
  host: string;
  outcome: Outcome;
  /** Absent for records without one; OTHER past the bound. */
  reason?: string;
} & Totals;

/** Edge misses of one key (record.keyPrefix, or OTHER) in one minute. */
export interface MissRow {
  minute: number;
  key: string;
  misses: number;
}

/** What the sending isolate did on the platform since its last flush, besides serving (store-operations.ts). */
interface BatchOperations {
  tier: TierName;
  /** Purge-list lists: KV list requests (a re-read lists when the head says so: shared/purge/purge-head.ts). */
  kvLists: number;
  /** KV write requests: purge batches, heads and snapshots written, and deletes (billed as writes). */
  kvWrites: number;
  /**
   * KV read requests: the purge list's head, a purge batch's value too large for its key's metadata, or a snapshot.
   * Optional: an isolate of a release before reads were counted sends none, which counts 0.
   */
  kvReads?: number;
  /** The shield's hedges (store-operations.ts HedgeCounts); absent: none, or an isolate of a release before them. */
  hedgesStarted?: number;
  hedgesWon?: number;
  hedgesLost?: number;
  hedgeBytes?: number;
  /** The shield's prefetched segments (store-operations.ts PrefetchCounts); absent: none, or an earlier release. */
  prefetched?: number;
  prefetchesUsed?: number;
  prefetchesWasted?: number;
  prefetchBytes?: number;
  prefetchWastedBytes?: number;
  /** The shield's R2 tier on its bucket (store-operations.ts R2Counts); absent: none, or an earlier release. */
  r2Gets?: number;
  r2Puts?: number;
  r2PutBytes?: number;
  r2Lists?: number;
  r2StoredByteSeconds?: number;
}

/** A batch as it crosses the wire to the Durable Object (JSON). */
export interface StatsBatchJson {
  rows: BatchRow[];
  misses: MissRow[];
  /** Absent from an isolate of a release before they were counted. */
  operations?: BatchOperations;
}

/** Longest host, key or reason accepted (record.ts cuts them far shorter). */
export const MAX_NAME_LENGTH = 256;

/** Counts of things (requests, slices) are whole; byte and time sums need only be finite and not negative. */
const WHOLE: ReadonlySet<keyof Totals> = new Set(['requests', 'slicesHit', 'slicesMissed', 'departed']);
/** Counted since a later release: a batch from an isolate still running an earlier one has none, which counts 0. */
const LATER: ReadonlySet<keyof Totals> = new Set(['departed']);

/**
 * Operations counted since later releases (the shield's hedges, its prefetches, its R2 tier's): absent from an earlier
 * one's batch.
 */
const LATER_OPERATIONS = [
  'hedgesStarted',
  'hedgesWon',
  'hedgesLost',
  'hedgeBytes',
  ...PREFETCH_COUNT_NAMES,
  ...R2_COUNT_NAMES,
] as const satisfies readonly (keyof BatchOperations)[];
/** Of those, the sums of products rather than counts: finite and not negative, need not be whole. */
const LATER_SUMS: ReadonlySet<(typeof LATER_OPERATIONS)[number]> = new Set(['r2StoredByteSeconds']);

type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

const TIER_EXPECTED = `expected "tier" to be ${TIER_NAMES.join(' or ')}`;

/** Whether `value` is a batch (extra fields allowed: mergeBatch copies only the ones it knows). */
export function isStatsBatch(value: unknown): value is StatsBatchJson {
  return parseStatsBatch(value).ok;
}

/**
 * The batch, or why not (the first thing wrong, and where). Never throws. Checked whole before a number of it
 * is added to a bucket, so that one bad batch (an older deployment's shape, a bug, a truncated body) is refused
 * rather than turning a minute's sums into NaN or strings; built afresh, field by field: nothing the sender
 * added (`__proto__` included) comes through.
 */
export function parseStatsBatch(value: unknown): { ok: true; batch: StatsBatchJson } | { ok: false; reason: string } {
  if (!isObject(value) || !Array.isArray(value.rows) || !Array.isArray(value.misses)) {
    return { ok: false, reason: 'expected an object with arrays "rows" and "misses"' };
  }
  const rows = parseAll(value.rows, parseRow, 'rows');
  if (!rows.ok) return rows;
  const misses = parseAll(value.misses, parseMiss, 'misses');
  if (!misses.ok) return misses;
  if (value.operations === undefined) return { ok: true, batch: { rows: rows.value, misses: misses.value } };
  const operations = parseOperations(value.operations);
  if (!operations.ok) return { ok: false, reason: `operations: ${operations.reason}` };
  return { ok: true, batch: { rows: rows.value, misses: misses.value, operations: operations.value } };
}

function parseOperations(item: unknown): Parsed<BatchOperations> {
  if (!isObject(item)) return { ok: false, reason: 'expected an object' };
  const { tier, kvLists, kvWrites } = item;
  // Counted since a later release: absent is an earlier isolate's batch, which made none it could say.
  const kvReads = item.kvReads === undefined ? 0 : item.kvReads;
  if (!isTierName(tier)) return { ok: false, reason: TIER_EXPECTED };
  if (!isCount(kvLists, true) || !isCount(kvWrites, true))
    return { ok: false, reason: 'expected "kvLists" and "kvWrites" to be whole numbers, at least 0' };
  if (!isCount(kvReads, true))
    return { ok: false, reason: 'expected "kvReads" to be absent or a whole number, at least 0' };
  const later: Partial<Record<(typeof LATER_OPERATIONS)[number], number>> = {};
  for (const name of LATER_OPERATIONS) {
    const count = item[name];
    if (count === undefined) continue;
    const whole = !LATER_SUMS.has(name);
    if (!isCount(count, whole))
      return {
        ok: false,
        reason: `expected "${name}" to be absent or a ${whole ? 'whole' : 'finite'} number, at least 0`,
      };
    later[name] = count;
  }
  return { ok: true, value: { tier, kvLists, kvWrites, kvReads, ...later } };
}

function parseAll<T>(items: unknown[], parse: (item: unknown) => Parsed<T>, field: string): Parsed<T[]> {
  const parsed: T[] = [];
  for (const [index, item] of items.entries()) {
    const one = parse(item);
    if (!one.ok) return { ok: false, reason: `${field}[${index}]: ${one.reason}` };
    parsed.push(one.value);
  }
  return { ok: true, value: parsed };
}

function parseRow(item: unknown): Parsed<BatchRow> {
  if (!isObject(item)) return { ok: false, reason: 'expected an object' };
  const { minute, tier, host, outcome, reason } = item;
  if (!isMinute(minute)) return { ok: false, reason: 'expected "minute" to be the ms epoch of a minute\'s start' };
  if (!isTierName(tier)) return { ok: false, reason: TIER_EXPECTED };
  if (!isName(host))
    return { ok: false, reason: `expected "host" to be a string of at most ${MAX_NAME_LENGTH} characters` };
  if (!OUTCOMES.includes(outcome as Outcome))
    return { ok: false, reason: `expected "outcome" to be one of ${OUTCOMES.join(', ')}` };
  if (reason !== undefined && !isName(reason))
    return { ok: false, reason: `expected "reason" to be absent or a string of at most ${MAX_NAME_LENGTH} characters` };
  const totals = parseTotals(item);
  if (!totals.ok) return totals;
  const key = {
    minute,
    tier,
    host,
    outcome: outcome as Outcome,
    ...(reason === undefined ? {} : { reason }),
  };
  return { ok: true, value: { ...key, ...totals.value } };
}

function parseTotals(item: Record<string, unknown>): Parsed<Totals> {
  const totals: Partial<Totals> = {};
  for (const field of TOTAL_FIELDS) {
    const number = item[field] === undefined && LATER.has(field) ? 0 : item[field];
    if (!isCount(number, WHOLE.has(field)))
      return {
        ok: false,
        reason: `expected "${field}" to be a finite number, at least 0${WHOLE.has(field) ? ', whole' : ''}`,
      };
    totals[field] = number;
  }
  return { ok: true, value: totals as Totals };
}

function parseMiss(item: unknown): Parsed<MissRow> {
  if (!isObject(item)) return { ok: false, reason: 'expected an object' };
  const { minute, key, misses } = item;
  if (!isMinute(minute)) return { ok: false, reason: 'expected "minute" to be the ms epoch of a minute\'s start' };
  if (!isName(key))
    return { ok: false, reason: `expected "key" to be a string of at most ${MAX_NAME_LENGTH} characters` };
  if (!isCount(misses, true)) return { ok: false, reason: 'expected "misses" to be a whole number, at least 0' };
  return { ok: true, value: { minute, key, misses } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isMinute(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) % MINUTE_MS === 0;
}

function isName(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_NAME_LENGTH;
}

function isCount(value: unknown, whole: boolean): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && (!whole || Number.isSafeInteger(value));
}
