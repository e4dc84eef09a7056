// Targeted cache-control fields (RFC 9213): CDN-Cache-Control and fields like it, Cache-Control
// directives aimed at one class of caches, read into the CacheControl value the rest of the policy reads.

import { type CacheControl, parseCacheControl } from './cache-control.ts';
import { type Member, parseDictionary } from './structured-fields.ts';

/**
 * Tiercache's target list (RFC 9213 §2.2), most specific first: a field for tiercache alone,
 * then the one for every CDN.
 */
export const TIERCACHE_TARGETS = ['tiercache-cache-control', 'cdn-cache-control'] as const;

export interface EffectiveCacheControl {
  /** The directives the cache obeys for this response. */
  cc: CacheControl;
  /** Where they came from: a targeted field's (lowercase) name, or 'cache-control'. */
  source: string;
  /** Whether Expires is to be ignored: it is whenever a targeted field is used (RFC 9213 §2.2). */
  ignoreExpires: boolean;
}

/**
 * RFC 9213 §2.2: "the cache MUST select the first (in target list order) field with a valid,
 * non-empty value and use its value to determine the caching policy for the response, and it
 * MUST ignore the Cache-Control and Expires header fields in that response, unless no valid,
 * non-empty value is available from the listed header fields."
 * `targeted` holds lowercase field names in precedence order.
 */
export function effectiveCacheControl(headers: Headers, targeted: readonly string[] = []): EffectiveCacheControl {
  for (const name of targeted) {
    const value = headers.get(name);
    if (value === null) continue;
    // §2.1: "If a targeted field in a given response is empty, or a parsing error is
    // encountered, that field MUST be ignored by the cache". RFC 9213 references RFC 8941 (the
    // parser's default): a Date or Display String in it fails parsing, as every RFC 8941 cache
    // along the path reads it (RFC 9651 §2).
    const dictionary = parseDictionary(value);
    if (dictionary === undefined || dictionary.size === 0) continue;
    return { cc: toCacheControl(dictionary), source: name.toLowerCase(), ignoreExpires: true };
  }
  return { cc: parseCacheControl(headers.get('cache-control')), source: 'cache-control', ignoreExpires: false };
}

/**
 * The targeted fields a tier removes from a response before it goes on, by where it goes.
 * Tiercache-Cache-Control is for tiercache alone: kept between the shield and the edge (both
 * read it), removed before a client sees it, as Cloudflare does with its own
 * Cloudflare-CDN-Cache-Control ("Cloudflare does not proxy Cloudflare-CDN-Cache-Control
 * downstream because it's a header only used to control Cloudflare",
 * developers.cloudflare.com/cache/concepts/cdn-cache-control/). CDN-Cache-Control is passed on:
 * RFC 9213 §3, CDNs "will typically forward this header so that downstream CDN caches can use
 * it as well" (another CDN may sit between us and the client), and Cloudflare proxies it too.
 */
export function targetedFieldsToStrip(hop: 'client' | 'tier' = 'client'): readonly string[] {
  return hop === 'client' ? TIERCACHE_ONLY : [];
}

const TIERCACHE_ONLY: readonly string[] = ['tiercache-cache-control'];

// --- Dictionary → CacheControl --------------------------------------------------------------

/** Directives whose argument is delta-seconds: an Integer in a targeted field (RFC 9213 §2.1). */
const DELTA_SECONDS = new Set(['max-age', 's-maxage', 'stale-while-revalidate', 'stale-if-error']);
/** Present with an argument nothing reads as valid: what `max-age=` gives in Cache-Control. */
const INVALID = '';

/**
 * RFC 9213 §2.1 maps directive values onto sf types: no value → Boolean, quoted-string →
 * String, token → Token, Integer or Decimal. Back again: true → true, Integer → its decimal
 * string, String and Token → their text; Boolean false (`max-age=?0`) → the directive is absent.
 * "Implementations SHOULD NOT consume values that violate these inferred constraints": a
 * delta-seconds directive whose value is not an Integer (`max-age="60"`, `max-age=1.5`) is kept
 * present with an invalid argument, so freshness reads it as stale (as `max-age=abc` is in
 * Cache-Control), and is not coerced. "Parameters received on cache directives are to be
 * ignored". Byte sequences and inner lists are no directive's value: present, invalid (Dates and
 * Display Strings fail parsing here: RFC 8941 has none).
 */
function toCacheControl(dictionary: ReadonlyMap<string, Member>): CacheControl {
  const cc = new Map<string, string | true>();
  for (const [name, member] of dictionary) {
    if (member.kind === 'inner-list') {
      cc.set(name, INVALID);
      continue;
    }
    const { item } = member;
    if (item.type === 'boolean') {
      if (item.value) cc.set(name, true);
    } else if (DELTA_SECONDS.has(name)) {
      cc.set(name, item.type === 'integer' ? String(item.value) : INVALID);
    } else if (item.type === 'binary' || item.type === 'date' || item.type === 'displaystring') {
      cc.set(name, INVALID);
    } else {
      cc.set(name, String(item.value));
    }
  }
  return cc;
}
