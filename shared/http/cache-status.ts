// RFC 9211 Cache-Status: one list member per cache that handled the response, the cache nearest the
// origin first; each a Structured Field item (RFC 8941): a token naming the cache, then parameters.

import { splitList } from './header-list.ts';

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
}

export function cacheStatusMember(cache: string, params: CacheStatusParams): string {
  const parts = [cache];
  if (params.hit) parts.push('hit');
  if (params.fwd !== undefined) parts.push(`fwd=${params.fwd}`);
  if (params.fwdStatus !== undefined) parts.push(`fwd-status=${params.fwdStatus}`);
  if (params.ttl !== undefined) parts.push(`ttl=${Math.trunc(params.ttl)}`);
  if (params.stored) parts.push('stored');
  if (params.collapsed) parts.push('collapsed');
  if (params.detail !== undefined) parts.push(`detail=${sfStringOrToken(params.detail)}`);
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

const FORWARD_REASONS: ReadonlySet<string> = new Set<ForwardReason>([
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

const TOKEN = /^[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*$/;

function sfStringOrToken(value: string): string {
  if (TOKEN.test(value)) return value;
  // sf-string allows printable ASCII only; escape the two specials, drop the rest.
  const printable = value.replace(/[^\x20-\x7e]/g, '?');
  return `"${printable.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
