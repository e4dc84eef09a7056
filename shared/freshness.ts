// Shared-cache storage and freshness decisions (RFC 9111 §3 and §4.2), as functions of
// plain headers and time. No I/O: each tier calls these with what it received.

import { type CacheControl, directiveSeconds, hasDirective, parseCacheControl } from './cache-control.ts';
import { parseHttpDate } from './http-date.ts';
import { type StaleDefaults, type StalePolicy, stalePolicy } from './stale.ts';

export { parseHttpDate } from './http-date.ts';

export type StoreVerdict = { store: true; lifetime: number; stale: StalePolicy } | { store: false; reason: string };

export interface FreshnessOptions {
  /** Freshness (s) for responses that carry no explicit freshness; 0 = none. */
  defaultTtl: number;
  /** Freshness (s) for 404 and 410 answers without explicit freshness (negative caching); 0 = none. */
  negativeTtl?: number;
  /** ms epoch; stands in for a missing Date header (RFC 9110 §6.6.1). */
  now: number;
  /** Stale windows for responses that give none (RFC 5861). */
  staleDefaults?: StaleDefaults;
}

/** Statuses we store: the object, and briefly its absence (negative caching). */
const STORED_STATUSES = new Set([200, 404, 410]);
const NEGATIVE_STATUSES = new Set([404, 410]);
/** RFC 9111 §4.2.2: "a typical setting of this fraction might be 10%". */
const HEURISTIC_FRACTION = 0.1;
const HEURISTIC_CAP = 86_400;

/** Whether a shared cache may store this response to a GET, and for how long it is fresh. */
export function storeVerdict(status: number, headers: Headers, options: FreshnessOptions): StoreVerdict {
  const cc = parseCacheControl(headers.get('cache-control'));
  if (!STORED_STATUSES.has(status)) return { store: false, reason: `status ${status}` };
  // §3: "the no-store cache directive is not present in the response"
  if (hasDirective(cc, 'no-store')) return { store: false, reason: 'no-store' };
  // §3: "if the cache is shared: the private response directive is either not present ..."
  if (hasDirective(cc, 'private')) return { store: false, reason: 'private' };
  // §7.3 / RFC 6265 §8: a shared cache must not hand one client's cookie to another.
  if (headers.has('set-cookie')) return { store: false, reason: 'set-cookie' };
  // §4.1: "A stored response with a Vary header field value containing ... '*' always fails to match"
  if (varyFields(headers).includes('*')) return { store: false, reason: 'vary-star' };
  // Our default stale windows are for objects: a remembered 404 should end when it says it does.
  const defaults = NEGATIVE_STATUSES.has(status) ? undefined : options.staleDefaults;
  const stale = stalePolicy(cc, defaults ?? { whileRevalidate: 0, ifError: 0 });
  // §5.2.2.4: no-cache may be stored, but is validated before every use: fresh for no time.
  if (hasDirective(cc, 'no-cache')) {
    const validator = headers.has('etag') || headers.has('last-modified');
    return validator && !NEGATIVE_STATUSES.has(status) ? { store: true, lifetime: 0, stale } : { store: false, reason: 'no-cache without validator' };
  }
  const lifetime = NEGATIVE_STATUSES.has(status)
    ? freshnessLifetime(headers, { defaultTtl: options.negativeTtl ?? 0, now: options.now }, cc, false)
    : freshnessLifetime(headers, options, cc);
  if (lifetime <= 0) return { store: false, reason: 'no-freshness' };
  return { store: true, lifetime, stale };
}

/**
 * RFC 9111 §4.2.1, shared cache: s-maxage, then max-age, then Expires minus Date. Without any
 * of them, the configured default, then the Last-Modified heuristic (§4.2.2).
 */
export function freshnessLifetime(headers: Headers, options: FreshnessOptions, cc: CacheControl = parseCacheControl(headers.get('cache-control')), heuristic = true): number {
  // A directive present with an invalid argument makes the response stale rather than letting a
  // weaker source (or our default) decide (§4.2.1 allows treating conflicts as stale).
  if (hasDirective(cc, 's-maxage')) return directiveSeconds(cc, 's-maxage') ?? 0;
  if (hasDirective(cc, 'max-age')) return directiveSeconds(cc, 'max-age') ?? 0;
  const expires = headers.get('expires');
  if (expires !== null) {
    // §5.3: "a cache recipient MUST interpret invalid date formats ... as representing a time in the past"
    const expiresAt = parseHttpDate(expires, options.now);
    const date = parseHttpDate(headers.get('date'), options.now) ?? options.now;
    return expiresAt === undefined ? 0 : Math.max(0, Math.floor((expiresAt - date) / 1000));
  }
  if (options.defaultTtl > 0) return options.defaultTtl;
  return heuristic ? heuristicLifetime(headers, options.now) : 0;
}

/**
 * RFC 9111 §4.2.3: the age a response already had when it reached us, corrected for the
 * time the request took. `requestTime` and `responseTime` are ms epochs on our clock.
 */
export function correctedInitialAge(headers: Headers, requestTime: number, responseTime: number): number {
  const date = parseHttpDate(headers.get('date'), responseTime);
  const apparentAge = date === undefined ? 0 : Math.max(0, (responseTime - date) / 1000);
  const responseDelay = Math.max(0, (responseTime - requestTime) / 1000);
  const correctedAgeValue = ageValue(headers.get('age')) + responseDelay;
  return Math.max(apparentAge, correctedAgeValue);
}

export function varyFields(headers: Headers): string[] {
  const vary = headers.get('vary');
  if (!vary) return [];
  return vary.split(',').map((field) => field.trim().toLowerCase()).filter((field) => field.length > 0);
}

/**
 * RFC 9111 §5.1: Age is delta-seconds; with a list, "use the first member"; an invalid value
 * is ignored (read as 0).
 */
function ageValue(value: string | null): number {
  const first = value?.split(',', 1)[0]?.trim() ?? '';
  return /^\d+$/.test(first) ? Math.min(Number(first), 2_147_483_648) : 0;
}

function heuristicLifetime(headers: Headers, now: number): number {
  const lastModified = parseHttpDate(headers.get('last-modified'), now);
  if (lastModified === undefined) return 0;
  const date = parseHttpDate(headers.get('date'), now) ?? now;
  const sinceModified = Math.max(0, (date - lastModified) / 1000);
  return Math.min(HEURISTIC_CAP, Math.floor(sinceModified * HEURISTIC_FRACTION));
}
