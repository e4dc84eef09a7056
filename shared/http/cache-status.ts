// RFC 9211 Cache-Status: one list member per cache that handled the response, the cache nearest the
// origin first; each a Structured Field item (RFC 8941): a token naming the cache, then parameters.

import { splitList } from './header-list.ts';
import type { BareItem } from './structured-fields.ts';
import { isToken } from './structured-items.ts';
import { MAX_INTEGER, serializeBareItem } from './structured-serializer.ts';

/** Why a cache went forward (RFC 9211 §2.2). */
export type ForwardReason = 'bypass' | 'method' | 'uri-miss' | 'vary-miss' | 'miss' | 'request' | 'stale' | 'partial';

export interface CacheStatusParams {
  /** §2.1: served from this cache without going forward. */
  hit?: boolean;
  /** §2.2 */
  fwd?: ForwardReason;
  /** §2.3: the status the next hop answered with, when it differs from ours or is worth telling. */
  fwdStatus?: number;
  /** §2.4: remaining freshness in seconds; negative when stale. */
  ttl?: number;
  /** §2.5: the forwarded response was stored. */
  stored?: boolean;
  /** §2.6: the request was collapsed with another one. */
  collapsed?: boolean;
  /** §2.8: free-form; must be a token or sf-string. */
  detail?: string;
  /** STORE_PARAM: on a hit, which of the cache's stores held it (a token); tiercache's own parameter. */
  store?: string;
}

/**
 * On a hit, which of the cache's stores held it (the shield's: `workers-cache` or `cache-api`,
 * shared/tiers/shield-caches.ts). Not one of RFC 9211's parameters but an extension its §4 allows, its name prefixed with the application's as §4 asks
 * of one that is not generic; §2.8's `detail` is free-form but one per member, and already says other things. A reader
 * that does not know it ignores it (RFC 9651 §4.2: parameters are a map a parser keeps whole).
 */
export const STORE_PARAM = 'tiercache-store';

/**
 * Our member: each value written by the RFC 9651 §4.1 serializer (the keys are RFC 9211's own), the
 * parameters separated by "; " as RFC 9211's examples write them (§4.1 allows output that varies "so
 * long as the output is still correctly handled by the parsing algorithm", and §4.2.3.2 discards SP
 * after ";"). Never throws: each value is brought within what its type can carry first.
 */
export function cacheStatusMember(cache: string, params: CacheStatusParams): string {
  const parts = [serializeBareItem({ type: 'token', value: cache })];
  if (params.hit) parts.push('hit');
  if (params.fwd !== undefined) parts.push(`fwd=${serializeBareItem({ type: 'token', value: params.fwd })}`);
  if (params.fwdStatus !== undefined) {
    parts.push(`fwd-status=${serializeBareItem({ type: 'integer', value: params.fwdStatus })}`);
  }
  if (params.ttl !== undefined && Number.isFinite(params.ttl)) {
    parts.push(`ttl=${serializeBareItem({ type: 'integer', value: ttlSeconds(params.ttl) })}`);
  }
  if (params.stored) parts.push('stored');
  if (params.collapsed) parts.push('collapsed');
  if (params.detail !== undefined) parts.push(`detail=${serializeBareItem(detailItem(params.detail))}`);
  if (params.store !== undefined && isToken(params.store))
    parts.push(`${STORE_PARAM}=${serializeBareItem({ type: 'token', value: params.store })}`);
  return parts.join('; ');
}

/**
 * Adds our member after those of the caches nearer the origin. RFC 9211 §2: "caches SHOULD
 * preserve the existing field value, to allow debugging of the entire chain of caches".
 */
export function appendCacheStatus(existing: string | null, member: string): string {
  const before = existing?.trim();
  return before ? `${before}, ${member}` : member;
}

/** The members whose cache name is `cache` removed (so a tier never reports itself twice). */
export function withoutMember(existing: string | null, cache: string): string | null {
  if (!existing) return null;
  const kept = splitList(existing).filter((member) => memberName(member) !== cache);
  return kept.length > 0 ? kept.join(', ') : null;
}

/** The detail of `cache`'s member (RFC 9211 §2.8), as a token or unquoted sf-string; undefined when it has none. */
export function memberDetail(existing: string | null, cache: string): string | undefined {
  if (!existing) return undefined;
  const member = splitList(existing).find((candidate) => memberName(candidate) === cache);
  const match = /;\s*detail=("((?:[^"\\]|\\.)*)"|[^;\s]+)/.exec(member ?? '');
  if (match === null) return undefined;
  return match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : match[1];
}

/** The parameters of `cache`'s member (RFC 9211 §2), as cacheStatusMember wrote them; undefined when it has none. */
export function memberParams(existing: string | null, cache: string): CacheStatusParams | undefined {
  if (!existing) return undefined;
  const member = splitList(existing).find((candidate) => memberName(candidate) === cache);
  if (member === undefined) return undefined;
  const params: CacheStatusParams = {};
  // Each parameter as `; key` or `; key=value` (the detail may be an sf-string with ';' inside).
  for (const [, key, value] of member.matchAll(/;\s*([a-z][a-z0-9_.*-]*)(?:=("(?:[^"\\]|\\.)*"|[^;\s]*))?/g)) {
    if (key === 'hit') params.hit = true;
    else if (key === 'stored') params.stored = true;
    else if (key === 'collapsed') params.collapsed = true;
    else if (key === 'fwd' && value !== undefined && FORWARD_REASONS.has(value)) params.fwd = value as ForwardReason;
    else if (key === 'fwd-status' && value !== undefined && /^\d{3}$/.test(value)) params.fwdStatus = Number(value);
    else if (key === 'ttl' && value !== undefined && /^-?\d+$/.test(value)) params.ttl = Number(value);
    else if (key === STORE_PARAM && value !== undefined && isToken(value)) params.store = value;
  }
  const detail = memberDetail(existing, cache);
  if (detail !== undefined) params.detail = detail;
  return params;
}

/**
 * `existing` with `words` put first in `cache`'s member's detail (§2.8: one detail per member, free-form), the
 * rest of the list as it was; unchanged when no member is `cache`'s.
 */
export function withMemberDetail(existing: string | null, cache: string, words: string): string | null {
  const params = memberParams(existing, cache);
  if (existing === null || params === undefined) return existing;
  params.detail = params.detail === undefined ? words : `${words} ${params.detail}`;
  return splitList(existing)
    .map((member) => (memberName(member) === cache ? cacheStatusMember(cache, params) : member))
    .join(', ');
}

/** `existing` with `cache`'s member naming `store` (STORE_PARAM), the rest of the list as it was. */
export function withMemberStore(existing: string | null, cache: string, store: string): string | null {
  const params = memberParams(existing, cache);
  if (existing === null || params === undefined) return existing;
  params.store = store;
  return splitList(existing)
    .map((member) => (memberName(member) === cache ? cacheStatusMember(cache, params) : member))
    .join(', ');
}

/** Every reason RFC 9211 §2.2 names for going forward. */
export const FORWARD_REASONS: ReadonlySet<string> = new Set<ForwardReason>([
  'bypass',
  'method',
  'uri-miss',
  'vary-miss',
  'miss',
  'request',
  'stale',
  'partial',
]);

function memberName(member: string): string {
  return member.split(';', 1)[0]?.trim() ?? '';
}

/** §2.4: whole seconds, truncated toward zero, within an Integer's range (RFC 9651 §3.3.1). */
function ttlSeconds(ttl: number): number {
  return Math.max(-MAX_INTEGER, Math.min(MAX_INTEGER, Math.trunc(ttl)));
}

/** §2.8: "a String or Token": a token when it is one; else a String of its printable ASCII, the rest as "?". */
function detailItem(value: string): BareItem {
  if (isToken(value)) return { type: 'token', value };
  return { type: 'string', value: value.replace(/[^\x20-\x7e]/g, '?') };
}
