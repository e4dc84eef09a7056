// A purge prefix in the spelling the tiers key entries by (docs/purge.md): canonicalised exactly as a
// request for that path would be, never compared as written.

import type { OriginKind } from '../config/config.ts';
import { HttpError } from '../http/errors.ts';
import { requestTarget } from '../request/request-target.ts';
import type { KeyQuery } from '../rules/rules.ts';

export type PrefixResult = { ok: true; prefix: string } | { ok: false; reason: string };

/** What a prefix is joined to (not resolved against: `//x/` stays a path, as in a request). */
const BASE = 'http://purge.invalid';
// The URL parser drops tabs and newlines from its input and a request's path never holds a
// control character: such a prefix would silently stand for another one.
const CONTROL_CHARACTER = /[\u0000-\u001F\u007F]/;

/**
 * A prefix is written as a client writes a path (`/two words/`, `/café/`, `/a+b/`), and entries are
 * matched by their canonical path and kept query (shared/request/request-target.ts). One that no
 * canonical path can start with is refused, with the reason, rather than accepted to match nothing.
 *
 * `prefix` (starting with `/`) as the canonical path-and-query prefix entries are matched by:
 * for `s3` the key's SigV4 encoding (`+` is `%2B`, a space `%20`, `é` `%C3%A9`) and only the
 * CACHE_KEY_QUERY parameters, sorted; for `http` the URL parser's encoding, RFC 3986 §6.2.2
 * normalised, and the query as written. INDEX_DOCUMENT never applies: `/docs/` is everything
 * under docs/. `ruleQuery`: a rule's cacheKeyQuery for the canonical path (shared/rules/), which keys in place of
 * CACHE_KEY_QUERY (and, for `http`, of the query as written) where a rule says.
 */
export function canonicalPrefix(
  prefix: string,
  kind: OriginKind,
  keyQuery: readonly string[] = [],
  ruleQuery?: (path: string) => KeyQuery | undefined,
): PrefixResult {
  const refuse = (why: string): PrefixResult => ({
    ok: false,
    reason: `expected a prefix a path can start with, got ${JSON.stringify(prefix)}: ${why}`,
  });
  if (CONTROL_CHARACTER.test(prefix)) return refuse('it holds a control character');
  // RFC 3986 §3.5: the fragment is the client's own; a "#" in a key is written %23.
  if (prefix.includes('#'))
    return refuse('a request path never carries a fragment ("#…"); write a "#" in a path as %23');
  let url: URL;
  try {
    url = new URL(`${BASE}${prefix}`);
  } catch {
    return refuse('it is not the path of a URL');
  }
  if (kind === 's3') {
    // The bucket root (or a path of slashes alone) names no object, but as a prefix it is every
    // key under it: `/` every key, `//` every key that starts with a slash.
    if (/^\/+$/.test(url.pathname))
      return url.search === ''
        ? { ok: true, prefix: url.pathname }
        : refuse(`no key is only slashes, so no path is "${url.pathname}" with a query`);
  }
  try {
    let ruled: KeyQuery | undefined;
    const target = requestTarget(url, kind, {
      keyQuery,
      ruleQuery: (path) => {
        ruled = ruleQuery?.(path);
        return ruled;
      },
    });
    const kept = ruled ?? (kind === 's3' ? keyQuery : 'all');
    const dropped = kept === 'all' ? undefined : [...url.searchParams.keys()].find((name) => !kept.includes(name));
    // Such a parameter is no part of any cache key: the prefix would purge more than it says.
    if (dropped !== undefined) {
      const list = ruled === undefined ? 'CACHE_KEY_QUERY' : 'the cacheKeyQuery of the rule for this path';
      return refuse(`the query parameter ${JSON.stringify(dropped)} is not in ${list}, so no cache key holds it`);
    }
    return { ok: true, prefix: `${target.path}${target.query}` };
  } catch (error) {
    if (error instanceof HttpError) return refuse(error.message);
    throw error;
  }
}
