// One record per request per tier (docs/operating.md), from the tier's Cache-Status member (RFC 9211), the
// response's framing and its meter: no secrets, no query strings, every text bounded.

import { bodyBytes } from '../http/body-length.ts';
import { type CacheStatusParams, memberParams } from '../http/cache-status.ts';
import { ONLY_IF_CACHED } from '../http/errors.ts';
import { type TierName, tier } from '../tiers/tiers.ts';

/**
 * What the tier did: served what it held, fetched, served stale, revalidated, waited for another's fetch, went around
 * the cache, or failed.
 */
export type Outcome = 'hit' | 'miss' | 'stale' | 'revalidated' | 'collapsed' | 'bypass' | 'error';

export const OUTCOMES: readonly Outcome[] = ['hit', 'miss', 'stale', 'revalidated', 'collapsed', 'bypass', 'error'];

/** Outcomes that did not fetch the object's bytes from the next hop: what a hit ratio counts. */
export const HIT_OUTCOMES: ReadonlySet<Outcome> = new Set(['hit', 'stale', 'revalidated', 'collapsed']);

export interface TierRecord {
  tier: TierName;
  outcome: Outcome;
  /** Why it bypassed or failed (a bounded token: `method`, `no-store`, `origin-unreachable` …); absent otherwise. */
  reason?: string;
  status: number;
  method: string;
  /** The client's host (bounded; `(invalid)` when it is no host name). */
  host: string;
  /** The object's path, without its query, cut to MAX_KEY_PREFIX characters. */
  keyPrefix: string;
  /** Body bytes of the response (its declared length: a transfer cut short still counts as sent). */
  bytesSent: number;
  /** Body bytes asked for and answered by the next hop (the shield, or the origin at the shield). */
  bytesFromNextHop: number;
  /** Of those, the bytes that came from the origin (at the shield, all of them). */
  bytesFromOrigin: number;
  /** Time to the response's head. */
  ttfbMs: number;
  /** Time to the end of the tier's own work for the request (its fills, stores and read-ahead). */
  durationMs: number;
  sliced: boolean;
  slicesHit: number;
  slicesMissed: number;
  /**
   * The client went away before the answer's body ended (at the shield: the edge's request). Normal, never an error:
   * heard where that costs nothing per byte (docs/operating.md), so a body handed on as it is may end unheard.
   */
  departed: boolean;
  /** When the request arrived (ms epoch). */
  at: number;
}

export const MAX_KEY_PREFIX = 96;
const MAX_HOST = 64;
/** What a host that is not a host name is recorded as. */
const INVALID_HOST = '(invalid)';
const MAX_REASON = 40;

/** What a tier's Cache-Status member says it did (RFC 9211 §2), as an outcome and, for a bypass or an error, why. */
export function outcomeOf(status: number, params: CacheStatusParams): { outcome: Outcome; reason?: string } {
  const reason =
    params.detail === undefined ? undefined : boundedToken(params.detail.replace(/\s*slices \d+\/\d+.*$/, ''));
  // RFC 9111 §5.2.1.7: the client asked only-if-cached and nothing stored answers it: the 504 is
  // what it asked for, not a failure of ours (no hit, nothing forwarded: a refusal, as below).
  if (status === 504 && reason === ONLY_IF_CACHED && !params.hit && params.fwd === undefined)
    return { outcome: 'bypass', reason };
  if (status >= 500) return { outcome: 'error', reason: reason || `status-${status}` };
  if (params.fwd === 'bypass' || params.fwd === 'method' || params.fwd === 'request') {
    return { outcome: 'bypass', reason: reason || params.fwd };
  }
  if (params.collapsed) return { outcome: 'collapsed' };
  // A stale copy served (RFC 5861: while revalidating, or on an error upstream) says which in its detail.
  const stale = /\bstale-(?:while-revalidate|if-error)\b/.exec(params.detail ?? '');
  if (stale !== null) return { outcome: 'stale', reason: stale[0] };
  // §2.2 fwd=stale: the stored copy was stale and went forward; a 304 made it fresh again.
  if (params.fwd === 'stale') return { outcome: params.fwdStatus === 304 ? 'revalidated' : 'miss' };
  if (params.hit) return { outcome: 'hit' };
  // Neither served from the cache nor forwarded (§2.1, §2.2): the tier's own refusal (a 405, a 400).
  if (params.fwd === undefined) return { outcome: 'bypass', reason: reason || 'refused' };
  return { outcome: 'miss' };
}

/** The tier's member of a response's Cache-Status, as an outcome; a response without one is the tier's own refusal. */
export function outcomeOfResponse(
  status: number,
  cacheStatus: string | null,
  cacheName: string,
): { outcome: Outcome; reason?: string } {
  const params = memberParams(cacheStatus, cacheName);
  if (params === undefined)
    return status >= 500 ? { outcome: 'error', reason: `status-${status}` } : { outcome: 'bypass', reason: 'refused' };
  return outcomeOf(status, params);
}

/** The slices a sliced answer's detail counts (`slices 3/4 of 9`: 3 hits of 4 looked up). */
export function slicesOf(params: CacheStatusParams | undefined): {
  sliced: boolean;
  slicesHit: number;
  slicesMissed: number;
} {
  const match = /slices (\d+)\/(\d+)/.exec(params?.detail ?? '');
  if (match === null) return { sliced: false, slicesHit: 0, slicesMissed: 0 };
  const hits = Number(match[1]);
  return { sliced: true, slicesHit: hits, slicesMissed: Math.max(0, Number(match[2]) - hits) };
}

/**
 * The last host checked, and what it was recorded as: a site's requests name the same few hosts, and the check shows
 * on a memory hit's profile. Kept by whoever makes the records (shared/observe/observed.ts: one per tier per isolate),
 * so that this room holds no state of its own.
 */
export interface LastHost {
  given: string;
  recorded: string;
}

export function lastHost(): LastHost {
  return { given: '', recorded: INVALID_HOST };
}

/**
 * A host name as recorded: lower-case, its port kept, at most MAX_HOST characters of [a-z0-9.-:]. `last`: the one
 * checked before, answered again without checking (and this one remembered in it).
 */
export function recordedHost(host: string, last?: LastHost): string {
  if (last !== undefined && host === last.given) return last.recorded;
  const lower = host.toLowerCase();
  const recorded = /^[a-z0-9.-]+(:\d{1,5})?$/.test(lower) && lower.length <= MAX_HOST ? lower : INVALID_HOST;
  if (last !== undefined) {
    last.given = host;
    last.recorded = recorded;
  }
  return recorded;
}

/** A path as recorded: never its query, at most MAX_KEY_PREFIX characters. */
export function keyPrefix(path: string): string {
  const query = path.indexOf('?');
  const bare = query < 0 ? path : path.slice(0, query);
  return bare.length <= MAX_KEY_PREFIX ? bare : bare.slice(0, MAX_KEY_PREFIX);
}

function boundedToken(text: string): string {
  return text
    .replace(/[^A-Za-z0-9_.:/-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_REASON);
}

/** What a tier knows of a request once its work is done: the record is made of it. */
export interface RecordInput {
  tier: TierName;
  method: string;
  host: string;
  /** The request's path (a raw target: its query is dropped here). */
  path: string;
  status: number;
  headers: Headers;
  /**
   * Body bytes sent, when the framing does not say them (counted as they passed), or they are not the body's (a warm's:
   * the slice it stored).
   */
  bytesSent?: number | undefined;
  bytesFromNextHop: number;
  bytesFromOrigin: number;
  at: number;
  ttfbMs: number;
  durationMs: number;
  /** The client went away before the answer's body ended; absent: it did not, or that was not heard. */
  departed?: boolean | undefined;
}

/** The record of `input`; `last`: the host recorded before (lastHost), for one that names it again. */
export function tierRecord(input: RecordInput, last?: LastHost): TierRecord {
  const member = tier(input.tier).statusMember;
  const params = memberParams(input.headers.get('cache-status'), member);
  const { outcome, reason } =
    params === undefined ? outcomeOfResponse(input.status, null, member) : outcomeOf(input.status, params);
  const record: TierRecord = {
    tier: input.tier,
    outcome,
    status: input.status,
    method: input.method,
    host: recordedHost(input.host, last),
    keyPrefix: keyPrefix(input.path),
    bytesSent: input.bytesSent ?? bodyBytes(input.method, input.status, input.headers.get('content-length')),
    bytesFromNextHop: input.bytesFromNextHop,
    bytesFromOrigin: input.bytesFromOrigin,
    ttfbMs: input.ttfbMs,
    durationMs: input.durationMs,
    ...slicesOf(params),
    departed: input.departed === true,
    at: input.at,
  };
  if (reason !== undefined) record.reason = reason;
  return record;
}

/** A memory hit as its hot path knows it: the client's host, the path, the body's length. */
export interface MemoryHitFacts {
  host: string;
  path: string;
  bytes: number;
}

/** The record of a GET answered 200 from the edge's memory, made without reading a header. */
export function memoryHitRecord(hit: MemoryHitFacts, at: number, ttfbMs: number, last?: LastHost): TierRecord {
  return {
    tier: 'edge',
    outcome: 'hit',
    status: 200,
    method: 'GET',
    host: recordedHost(hit.host, last),
    keyPrefix: keyPrefix(hit.path),
    bytesSent: hit.bytes,
    bytesFromNextHop: 0,
    bytesFromOrigin: 0,
    ttfbMs,
    durationMs: ttfbMs,
    sliced: false,
    slicesHit: 0,
    slicesMissed: 0,
    departed: false,
    at,
  };
}

/** A shield request that is part of a slice the edge read ahead (shared/observe/read-ahead-copy.ts). */
export type ReadAheadPart = 'warm' | 'copy';

/**
 * Whether the shield counts its record of a part of a slice read ahead: each slice the edge
 * asked for once, with what it really was. The warm carries it when it stored the slice (what
 * it found, what it fetched, the slice as sent), or when it did anything else that must not
 * vanish (fetched from the origin, failed); a warm that stored nothing and fetched nothing is
 * followed by the edge reading that slice as it comes, which is counted then. The copy is
 * counted with its warm when it was answered from what the warm stored (a hit that fetched
 * nothing); any other copy fetched again, and is a request of its own.
 */
export function readAheadCounted(record: TierRecord, part: ReadAheadPart, stored: boolean): boolean {
  if (part === 'copy') return record.outcome !== 'hit' || record.bytesFromNextHop > 0;
  return stored || record.bytesFromNextHop > 0 || record.outcome === 'error';
}
