// Where a rule's redirect sends the client: its location, with the part of the path after the matching `/prefix*`
// and the request's query carried over when the rule says so. Built by the URL parser, so the Location is ASCII
// (RFC 9110 §10.2.2: a URI-reference) and never names another site than the rule's.

import type { RuleRedirect } from './rules.ts';

/** Only the location's own path, query and fragment are read off this base: it never shows. */
const RELATIVE_BASE = 'https://relative.invalid';

/**
 * The Location of a redirect. `suffix`: what followed the matching pattern's `*` (canonical, percent-encoded);
 * `requestQuery`: the request's query as it came (`''` or `?…`).
 */
export function redirectLocation(redirect: RuleRedirect & { suffix: string }, requestQuery: string): string {
  const absolute = !redirect.location.startsWith('/');
  const target = absolute ? new URL(redirect.location) : new URL(redirect.location, RELATIVE_BASE);
  // The origin as the parser spells it (host lower case, punycode, default port dropped); userinfo never goes along.
  const origin = absolute ? `${target.protocol}//${target.host}` : '';
  const path = redirect.preservePathSuffix ? withSuffix(origin, target.pathname, redirect.suffix) : target.pathname;
  const query = redirect.preserveQuery ? joinedQuery(target.search, requestQuery) : target.search;
  return `${origin}${path}${query}${target.hash}`;
}

/**
 * The location's path with the suffix after it, parsed again (so encoded, and its dot segments gone); the suffix is
 * all path: a `?` or `#` in it is encoded, not a query or a fragment.
 */
function withSuffix(origin: string, path: string, suffix: string): string {
  const joined = `${path}${suffix.replace(/\?/g, '%3F').replace(/#/g, '%23')}`;
  if (origin !== '') return new URL(`${origin}${joined}`).pathname;
  // A path location stays a path: `/` and a suffix `/evil.example/x` would be the network-path reference
  // `//evil.example/x` (RFC 3986 §4.2), another site. The parser drops tabs and newlines and reads `\` as `/`
  // (WHATWG URL), so leading slashes are merged both before it parses and after.
  const leading = /^[/\\\t\n\r]+/;
  return new URL(joined.replace(leading, '/'), RELATIVE_BASE).pathname.replace(leading, '/');
}

/** The location's own query, then the request's (`?a=1` and `?b=2` make `?a=1&b=2`). */
function joinedQuery(own: string, requested: string): string {
  const carried = requested.startsWith('?') ? requested.slice(1) : requested;
  if (carried === '') return own;
  return own === '' ? `?${carried}` : `${own}&${carried}`;
}
