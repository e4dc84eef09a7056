// Conditional requests a cache answers itself (RFC 9110 §13.2.2), evaluated against the
// representation it holds: 412 when a precondition fails, 304 when the client's copy is current.

import { strongMatch, weakMatch } from './etag.ts';
import { splitList } from './header-list.ts';
import { parseHttpDate } from './http-date.ts';

export type Precondition = 'proceed' | 'not-modified' | 'failed';

/** Headers a 304 carries, of those a 200 would have sent (RFC 9110 §15.4.5). */
export const NOT_MODIFIED_HEADERS = [
  'cache-control',
  'content-location',
  'date',
  'etag',
  'expires',
  'vary',
  'last-modified',
];

/** RFC 9110 §13.2.2, steps 1–4, for GET and HEAD of a representation that exists. */
export function evaluatePreconditions(request: Headers, representation: Headers): Precondition {
  const etag = representation.get('etag');
  const lastModified = parseHttpDate(representation.get('last-modified'));
  const ifMatch = request.get('if-match');
  if (ifMatch !== null) {
    // §13.1.1: strong comparison; "*" matches any current representation.
    if (!matchesAny(ifMatch, etag, strongMatch)) return 'failed';
  } else {
    const since = parseHttpDate(request.get('if-unmodified-since'));
    // §13.1.4: "if the selected representation's last modification date is more recent than the date provided"
    if (since !== undefined && lastModified !== undefined && lastModified > since) return 'failed';
  }
  const ifNoneMatch = request.get('if-none-match');
  if (ifNoneMatch !== null) {
    // §13.1.2: weak comparison; for GET and HEAD a match means 304.
    return matchesAny(ifNoneMatch, etag, weakMatch) ? 'not-modified' : 'proceed';
  }
  const since = parseHttpDate(request.get('if-modified-since'));
  // §13.1.3: "if the selected representation's last modification date is earlier or equal to
  // the date provided". A cache without Last-Modified uses the stored Date instead (RFC 9111
  // §4.3.2: "the Last-Modified ... if present, otherwise the Date header field value").
  const modified = lastModified ?? parseHttpDate(representation.get('date'));
  if (since !== undefined && modified !== undefined && modified <= since) return 'not-modified';
  return 'proceed';
}

/** The headers of a 304 for `representation`: only those §15.4.5 lists. */
export function notModifiedHeaders(representation: Headers): Headers {
  const headers = new Headers();
  for (const name of NOT_MODIFIED_HEADERS) {
    const value = representation.get(name);
    if (value !== null) headers.set(name, value);
  }
  return headers;
}

function matchesAny(field: string, etag: string | null, compare: (a: string, b: string) => boolean): boolean {
  // "*" matches whenever a representation exists, which is the only case evaluated here.
  if (field.trim() === '*') return true;
  if (etag === null) return false;
  return splitList(field).some((candidate) => compare(candidate, etag));
}
