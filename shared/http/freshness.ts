// Shared-cache storage and freshness decisions (RFC 9111 §3 and §4.2), as functions of
// plain headers and time. No I/O: each tier calls these with what it received.

import { type CacheControl, directiveFields, directiveSeconds, hasDirective } from './cache-control.ts';
import { parseHttpDate } from './http-date.ts';
import { type StaleDefaults, type StalePolicy, stalePolicy } from './stale.ts';
import { effectiveCacheControl } from './targeted-cache-control.ts';
import { varyFieldNames } from './vary.ts';

export { parseHttpDate } from './http-date.ts';

/**
 * `strip`: header fields (lowercase) the stored copy must not keep: those a qualified
 * `private` or `no-cache` names. Empty for most responses.
 */
export type StoreVerdict =
  | { store: true; lifetime: number; stale: StalePolicy; strip: readonly string[] }
  | { store: false; reason: string };

export interface FreshnessOptions {
  /** Heuristic freshness (s) for 2xx/3xx responses that carry no explicit freshness; 0 or absent = none. */
  defaultTtl?: number;
  /** Heuristic freshness (s) for 4xx/5xx answers without explicit freshness (negative caching); 0 or absent = none. */
  negativeTtl?: number;
  /** ms epoch; stands in for a missing Date header (RFC 9110 §6.6.1). */
  now: number;
  /** Stale windows for responses that give none (RFC 5861); never applied to 4xx/5xx. */
  staleDefaults?: StaleDefaults;
  /**
   * This cache's target list (RFC 9213 §2.2), lowercase field names, in precedence order
   * (tiercache: TIERCACHE_TARGETS). Absent = Cache-Control and Expires only.
   */
  targeted?: readonly string[];
  /** The request's headers, for the Authorization rule (RFC 9111 §3.5). Absent = no Authorization. */
  request?: Headers;
  /** The operator's freshness in place of the answer's own (a rule's `override`, docs/rules.md); absent = none. */
  override?: FreshnessOverride;
}

/**
 * Freshness the operator sets over the origin's, for 2xx/3xx answers a shared cache may store: the lifetime in place
 * of the explicit one (RFC 9111 §4.2.1: s-maxage, max-age, Expires, targeted fields), and the stale windows given in
 * place of the answer's own (RFC 5861). It decides how long, never whether: no-store, private, Authorization,
 * Set-Cookie and Vary: * still keep an answer out (§3), no-cache still revalidates each use (§5.2.2.4), and
 * must-revalidate, proxy-revalidate and s-maxage still forbid serving it stale (§4.2.4).
 */
export interface FreshnessOverride {
  lifetime: number;
  staleWhileRevalidate?: number | undefined;
  staleIfError?: number | undefined;
}

/**
 * RFC 9110 §15.1: "Responses with status codes that are defined as heuristically cacheable
 * (e.g., 200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, and 501 in this specification)
 * can be reused by a cache with heuristic expiration unless otherwise indicated".
 */
export const HEURISTICALLY_CACHEABLE: ReadonlySet<number> = new Set([
  200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501,
]);

/**
 * The status codes this cache understands (RFC 9111 §3, §5.2.2.3 must-understand): those RFC
 * 9110 §15 defines, whose requirements a cache conforms to. 306 and 418 are only reserved
 * ("(Unused)", §15.4.7, §15.5.19); codes from other specifications (429, 451 …) and
 * unregistered ones (299, 499, 599) are not understood.
 */
export const UNDERSTOOD_STATUSES: ReadonlySet<number> = new Set([
  100, 101, 200, 201, 202, 203, 204, 205, 206, 300, 301, 302, 303, 304, 305, 307, 308, 400, 401, 402, 403, 404, 405,
  406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 421, 422, 426, 500, 501, 502, 503, 504, 505,
]);

/** RFC 9111 §4.2.2: "a typical setting of this fraction might be 10%". */
export const HEURISTIC_FRACTION = 0.1;
export const HEURISTIC_CAP = 86_400;
const NO_STALE_DEFAULTS: StaleDefaults = { whileRevalidate: 0, ifError: 0 };
/**
 * Fields the stored bytes cannot be served without: their coding and type (RFC 9110 §8.4,
 * §8.3), the version a sliced object's slices are pinned to (§8.8.3), and the range a part
 * holds (§14.4). A qualified private or no-cache naming one never leaves them out of a stored copy.
 */
const BYTES_NEED: readonly string[] = ['content-encoding', 'content-type', 'etag', 'content-range'];
/** §3.5: the response directives that let a shared cache store an answer to an authorized request. */
const ALLOW_AUTHORIZED = ['must-revalidate', 'public', 's-maxage'];

/** Whether a shared cache may store this response to a GET, and for how long it is fresh. */
export function storeVerdict(status: number, headers: Headers, options: FreshnessOptions): StoreVerdict {
  // §3: "the response status code is final (see Section 15 of [HTTP])".
  if (!Number.isInteger(status) || status < 200 || status > 599) return { store: false, reason: `status ${status}` };
  // 206 (partial content) and 304 (an update of a stored response, §4.3.4) are handled by their
  // own paths, never stored as responses of their own.
  if (status === 206 || status === 304) return { store: false, reason: `status ${status}` };
  // Every directive from the effective field: a targeted one if present and valid (RFC 9213 §2.2).
  const { cc, ignoreExpires } = effectiveCacheControl(headers, options.targeted);
  // §3: "if ... the must-understand cache directive is present: the cache understands the
  // response status code"; §5.2.2.3: a cache that understands it "SHOULD ignore the no-store
  // directive".
  const mustUnderstand = hasDirective(cc, 'must-understand');
  if (mustUnderstand && !UNDERSTOOD_STATUSES.has(status)) return { store: false, reason: 'must-understand' };
  // §3: "the no-store cache directive is not present in the response".
  if (hasDirective(cc, 'no-store') && !mustUnderstand) return { store: false, reason: 'no-store' };
  // §3: "if the cache is shared: the private response directive is either not present or allows
  // a shared cache to store a modified response"; §5.2.2.7: the qualified form names the
  // fields a shared cache "MUST NOT store", the rest it "MAY store".
  const privateFields = directiveFields(cc, 'private');
  if (privateFields === true) return { store: false, reason: 'private' };
  // §3.5: with Authorization in the request, only must-revalidate, public or s-maxage allow it.
  if (options.request?.has('authorization') === true && !ALLOW_AUTHORIZED.some((name) => hasDirective(cc, name))) {
    return { store: false, reason: 'authorization' };
  }
  // §7.3 / RFC 6265 §8: a shared cache must not hand one client's cookie to another.
  if (headers.has('set-cookie')) return { store: false, reason: 'set-cookie' };
  // §4.1: "A stored response with a Vary header field value containing ... '*' always fails to match"
  if (varyFieldNames(headers.get('vary')).includes('*')) return { store: false, reason: 'vary-star' };

  // Our default stale windows are for objects: a remembered 4xx/5xx should end when it says it does.
  const negative = status >= 400;
  const override = negative ? undefined : options.override;
  const stale = overriddenStale(
    stalePolicy(cc, negative ? NO_STALE_DEFAULTS : (options.staleDefaults ?? NO_STALE_DEFAULTS)),
    override,
  );
  // §5.2.2.7: a shared cache "MUST NOT store" the fields a qualified private names; the stored
  // bytes cannot be served without the fields they depend on, so naming one is private whole.
  const needed = privateFields?.find((field) => BYTES_NEED.includes(field));
  if (needed !== undefined) return { store: false, reason: `private="${needed}"` };
  const qualifiedNoCache = directiveFields(cc, 'no-cache');
  // §5.2.2.4: the fields a qualified no-cache names "MUST NOT be sent in the response to a
  // subsequent request without successful revalidation". One the stored bytes need is kept, and
  // the response revalidated before every use (as unqualified no-cache); the others are never
  // stored (as for qualified private), and the response is reused as any other.
  const noCacheFields =
    qualifiedNoCache !== true && qualifiedNoCache?.some((field) => BYTES_NEED.includes(field)) === true
      ? true
      : qualifiedNoCache;
  const strip = [...new Set([...(privateFields ?? []), ...(noCacheFields === true ? [] : (noCacheFields ?? []))])];
  // §5.2.2.4: unqualified no-cache may be stored, but is validated before every use: fresh for
  // no time, and only worth storing with a validator to revalidate it by.
  if (noCacheFields === true) {
    const validator = headers.has('etag') || headers.has('last-modified');
    // Never served stale either (§5.2.2.4), a no-cache promoted from its qualified form included.
    return validator && !negative
      ? { store: true, lifetime: 0, stale: { ...stale, mustRevalidate: true }, strip }
      : { store: false, reason: 'no-cache without validator' };
  }

  const own = storedLifetime(status, headers, cc, ignoreExpires, options);
  // The operator's lifetime over the origin's (docs/rules.md: overriding §4.2.1), for what §3 lets us store at all.
  const lifetime = own !== undefined && override !== undefined ? override.lifetime : own;
  if (lifetime === undefined || !(lifetime > 0)) return { store: false, reason: 'no-freshness' };
  return { store: true, lifetime, stale, strip };
}

/** The stale windows an override gives, in place of the answer's own, where serving stale is allowed at all. */
function overriddenStale(stale: StalePolicy, override: FreshnessOverride | undefined): StalePolicy {
  if (override === undefined || stale.mustRevalidate) return stale;
  return {
    whileRevalidate: override.staleWhileRevalidate ?? stale.whileRevalidate,
    ifError: override.staleIfError ?? stale.ifError,
    mustRevalidate: false,
  };
}

/**
 * Whether the response gives explicit freshness (RFC 9111 §4.2.1: s-maxage, max-age or Expires, from the effective
 * cache control, RFC 9213): where it does not, a configured default (or a rule's edgeTtl) decides.
 */
export function hasExplicitFreshness(headers: Headers, targeted?: readonly string[]): boolean {
  const { cc, ignoreExpires } = effectiveCacheControl(headers, targeted);
  return explicitLifetime(headers, cc, ignoreExpires, 0) !== undefined;
}

/**
 * The freshness a response is stored with: explicit (§4.2.1), else heuristic (§4.2.2) where §3
 * allows one; undefined when nothing permits storing it (no Expires, max-age, s-maxage or
 * public, and a status that is not heuristically cacheable).
 */
function storedLifetime(
  status: number,
  headers: Headers,
  cc: CacheControl,
  ignoreExpires: boolean,
  options: FreshnessOptions,
): number | undefined {
  const explicit = explicitLifetime(headers, cc, ignoreExpires, options.now);
  if (explicit !== undefined) return explicit;
  // §4.2.2: heuristic freshness only without explicit freshness, and (§3) only for a status
  // defined as heuristically cacheable or with `public` (§5.2.2.9).
  if (!HEURISTICALLY_CACHEABLE.has(status) && !hasDirective(cc, 'public')) return undefined;
  const configured = status >= 400 ? options.negativeTtl : options.defaultTtl;
  return configured !== undefined && configured > 0 ? configured : heuristicLifetime(headers, options.now);
}

/**
 * RFC 9111 §4.2.1, shared cache: s-maxage, then max-age, then Expires minus Date (all from the
 * effective cache control, RFC 9213). Without any of them, the configured default, then the
 * Last-Modified heuristic (§4.2.2) unless `heuristic` is false. Never negative or NaN.
 */
export function freshnessLifetime(
  headers: Headers,
  options: FreshnessOptions,
  cc?: CacheControl,
  heuristic = true,
): number {
  const effective = effectiveCacheControl(headers, options.targeted);
  const explicit = explicitLifetime(headers, cc ?? effective.cc, effective.ignoreExpires, options.now);
  if (explicit !== undefined) return explicit;
  if (options.defaultTtl !== undefined && options.defaultTtl > 0) return options.defaultTtl;
  return heuristic ? heuristicLifetime(headers, options.now) : 0;
}

/**
 * §4.2.1 explicit freshness, or undefined when the response gives none. A directive present
 * with an invalid argument (`max-age=abc`, `-1`, `1.5`, bare `max-age`) makes the response
 * stale (0) rather than letting a weaker source decide: §4.2.1 lets a cache consider a response
 * with invalid freshness information stale.
 */
function explicitLifetime(headers: Headers, cc: CacheControl, ignoreExpires: boolean, now: number): number | undefined {
  // §5.2.2.10: s-maxage "overrides the maximum age specified by either the max-age directive or
  // the Expires header field" in a shared cache.
  if (hasDirective(cc, 's-maxage')) return directiveSeconds(cc, 's-maxage') ?? 0;
  // §5.3: "If a response includes a Cache-Control header field with the max-age directive
  // (Section 5.2.2.1), a recipient MUST ignore the Expires header field."
  if (hasDirective(cc, 'max-age')) return directiveSeconds(cc, 'max-age') ?? 0;
  // RFC 9213 §2.2: with a targeted field in use, Expires is ignored too.
  const expires = ignoreExpires ? null : headers.get('expires');
  if (expires === null) return undefined;
  // §5.3: "a cache recipient MUST interpret invalid date formats, especially the value '0', as
  // representing a time in the past". Two Expires lines arrive joined by ", ", which is no
  // HTTP-date either: §4.2.1 ("more than one value ... considered invalid") → stale.
  const expiresAt = parseHttpDate(expires, now);
  if (expiresAt === undefined) return 0;
  // §4.2.1: "use its value minus the value of the Date response header field (using the time the
  // message was received if it is not present)". Both are the origin's clock, so a Date skewed
  // from ours (ahead or behind) cancels out; the skew itself is counted by correctedInitialAge.
  const date = parseHttpDate(headers.get('date'), now) ?? now;
  const lifetime = Math.floor((expiresAt - date) / 1000);
  return Number.isFinite(lifetime) ? Math.max(0, lifetime) : 0;
}

/** §4.2.2: 10 % of the time since Last-Modified (measured at Date, or now), at most a day. */
function heuristicLifetime(headers: Headers, now: number): number {
  const lastModified = parseHttpDate(headers.get('last-modified'), now);
  if (lastModified === undefined) return 0;
  const date = parseHttpDate(headers.get('date'), now) ?? now;
  const sinceModified = Math.max(0, (date - lastModified) / 1000);
  const lifetime = Math.min(HEURISTIC_CAP, Math.floor(sinceModified * HEURISTIC_FRACTION));
  return Number.isFinite(lifetime) ? lifetime : 0;
}
