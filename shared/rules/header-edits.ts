// The client's answer as the rules that matched its request leave it: a browser Cache-Control in place of the stored
// one, then the header edits. Applied to a Headers in place (the body is never copied); nothing here is stored.

import type { ClientRules } from './client-rules.ts';
import type { HeaderEdits } from './rules.ts';

/**
 * `headers` of an answer with status `status` to a request with `method`, edited as `client` says. The browser
 * Cache-Control first, so that a rule's own `headers.set.cache-control` has the last word.
 */
export function editAnswerHeaders(headers: Headers, client: ClientRules, method: string, status: number): void {
  if (client.browserCacheControl !== undefined && takesBrowserCacheControl(method, status)) {
    headers.set('cache-control', client.browserCacheControl);
  }
  if (client.editsHeaders) editHeaders(headers, client.headers);
}

/**
 * Whether an answer gets the rule's browser Cache-Control: a 2xx or a 304 to GET or HEAD, what a browser may keep
 * (as Cloudflare's Browser TTL applies to cacheable 2xx answers). A 304 must carry the Cache-Control the 200 would
 * (RFC 9110 §15.4.5), so it gets the same. Errors and redirects keep their own: a 404 or a 503 kept a year by
 * browsers would outlive the fix.
 */
export function takesBrowserCacheControl(method: string, status: number): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  return (status >= 200 && status < 300) || status === 304;
}

/**
 * The edits of every matching rule: removals first, then sets, then additions. Removals act on what the tiers
 * answered (an origin's `x-amz-*`, `server`), so a rule never removes what another rule sets; of two sets of one
 * field the later rule's wins; an addition appends a field line to whatever is there (RFC 9110 §5.3).
 */
export function editHeaders(headers: Headers, edits: HeaderEdits): void {
  for (const name of edits.remove) headers.delete(name);
  for (const [name, value] of edits.set) headers.set(name, value);
  for (const [name, value] of edits.add) headers.append(name, value);
}
