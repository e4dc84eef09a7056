// What the operator says by path, without touching the origin (docs/rules.md): the shape of RULES once read, and
// what the rules that match one request add up to. Reading and checking the document is rules-document.ts; which
// rules match a request, and how they combine, is rules-match.ts.

/** The methods a rule may name: what reaches the edge. */
export const RULE_METHODS = ['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type RuleMethod = (typeof RULE_METHODS)[number];

/** The redirect statuses (RFC 9110 §15.4.2, §15.4.3, §15.4.8, §15.4.9). */
export const REDIRECT_STATUSES = [301, 302, 307, 308] as const;
export type RedirectStatus = (typeof REDIRECT_STATUSES)[number];

/** What a rule matches; every field given must match (an absent field matches everything). */
export interface RuleMatch {
  /** Host names, lower case, without port; `*.example.com` matches its subdomains (not the name itself). */
  hosts?: readonly string[];
  /**
   * Path patterns on the canonical path the cache keys (percent-encoded, shared/request/request-target.ts): `*`
   * matches any run of characters, `/` included (Cloudflare's wildcard); a pattern without `*` matches one path.
   */
  paths?: readonly string[];
  /** File extensions of the path's last segment, lower case, without the dot (`html`, `js`). */
  extensions?: readonly string[];
  /** Request methods. A rule naming methods only bypasses, redirects or edits headers (a stored answer serves all). */
  methods?: readonly RuleMethod[];
}

/** Freshness a rule gives at the tier that stores (both tiers, so they agree). */
export interface RuleFreshness {
  /** Seconds fresh when the origin says nothing (or always, with `override`). */
  ttl?: number;
  /**
   * The rule's ttl wins over the origin's own freshness (max-age, s-maxage, Expires): overriding RFC 9111 §4.2.1 as
   * Cloudflare's "ignore cache-control header and use this TTL" does. `no-store` and `private` still keep an answer
   * out of the cache (§3): an override decides how long, never whether.
   */
  override?: boolean;
  /** RFC 5861 windows (s) for answers that give none; with `override`, instead of the answer's own. */
  staleWhileRevalidate?: number;
  staleIfError?: number;
}

/** Header edits on the answer the client gets (never stored: a rule's change needs no purge). */
export interface HeaderEdits {
  /** Replace (or add) the field. */
  set: readonly (readonly [string, string])[];
  /** Append a field line, keeping what is there. */
  add: readonly (readonly [string, string])[];
  /** Remove the field. */
  remove: readonly string[];
}

export interface RuleRedirect {
  status: RedirectStatus;
  /** An absolute URL or an absolute path. */
  location: string;
  /** Append the part of the path after the matching pattern's `*` prefix (Cloudflare Bulk Redirects' name). */
  preservePathSuffix: boolean;
  /** Carry the request's query string over to the location. */
  preserveQuery: boolean;
}

/** Which query parameters enter the cache key (CACHE_KEY_QUERY, per rule): listed names, or every parameter. */
export type KeyQuery = readonly string[] | 'all';

export interface Rule {
  /** Unique; shown in Cache-Status as `detail=rule:<name>` where the rule decided freshness. */
  name: string;
  match: RuleMatch;
  freshness?: RuleFreshness;
  /** The Cache-Control the client gets, in place of the stored answer's (the CDN's own freshness is `freshness`). */
  browserCacheControl?: string;
  headers?: HeaderEdits;
  /** Never store, never answer from the cache: the request goes to the origin and back. */
  bypass?: boolean;
  redirect?: RuleRedirect;
  /** The canonical path served with 200 in place of a 404 for a key that does not exist (a single-page app). */
  spaFallback?: string;
  cacheKeyQuery?: KeyQuery;
}

/** RULES once read: the rules in order. */
export interface Rules {
  list: readonly Rule[];
}

export const NO_RULES: Rules = { list: [] };

/** What one request gets from the rules that match it: a later rule wins a field over an earlier one. */
export interface AppliedRules {
  /** Names of the rules that matched, in order; empty when none did. */
  matched: readonly string[];
  /** The freshness fields given, each from the last matching rule that gave it, and the rule that gave the last. */
  freshness?: RuleFreshness & { rule: string };
  browserCacheControl?: string;
  /** Edits of every matching rule, in order. */
  headers: HeaderEdits;
  bypass: boolean;
  /** The rule that said `bypass: true`, when the last to say one way or the other did. */
  bypassRule?: string;
  redirect?: RuleRedirect & { rule: string; suffix: string };
  spaFallback?: { rule: string; path: string };
  cacheKeyQuery?: KeyQuery;
}

export const NOTHING_APPLIED: AppliedRules = { matched: [], headers: { set: [], add: [], remove: [] }, bypass: false };
