// An object as a range-serving HTTP origin keeps it (a static server with validators), scripted
// for the scriptable origin (any-origin.ts): 206 for a byte range, 200 without one, 304 when
// If-None-Match matches weakly (RFC 9110 §13.1.2), 412 when If-Match does not match strongly
// (§13.1.1). A test changes what it answers between requests: the form of the ETag a 304
// carries, its Cache-Control, a status for ranges it should fail.

import type { Received, Scripted } from './any-origin.ts';

export interface RangedObject {
  bytes: Uint8Array;
  /** The current version's strong ETag. */
  etag: string;
  /** Header fields of every answer (Cache-Control and the like). */
  headers: Record<string, string>;
  /** The ETag a 304 carries: the strong one by default, or its weak form (`W/"v1"`). */
  notModifiedEtag?: string;
  /** Ranges starting at these offsets are answered with this status instead (a busy origin). */
  failing?: { from: number; status: number };
  /** The origin's clock (ms epoch) for its Date: a test's fake clock, so that answers are not aged by it. */
  now?: () => number;
}

/** The scriptable origin's answer for `object` to `request`. */
export function answerRanged(object: RangedObject, request: Received): Scripted {
  const { bytes, etag } = object;
  const headers = { date: new Date((object.now ?? Date.now)()).toUTCString(), ...object.headers };
  const ifMatch = request.headers['if-match'];
  if (ifMatch !== undefined && ifMatch !== etag) return { status: 412, headers: { etag, ...headers } };
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined && opaque(ifNoneMatch) === opaque(etag))
    return { status: 304, headers: { etag: object.notModifiedEtag ?? etag, ...headers } };
  const range = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
  if (range === null) return { status: 200, headers: { etag, 'accept-ranges': 'bytes', ...headers }, body: bytes };
  const start = Number(range[1]);
  if (object.failing !== undefined && start === object.failing.from)
    return {
      status: object.failing.status,
      headers: { 'content-type': 'text/plain', 'retry-after': '0' },
      body: 'busy',
    };
  if (start >= bytes.length)
    return { status: 416, headers: { 'content-range': `bytes */${bytes.length}`, etag, ...headers } };
  const end = Math.min(range[2] === '' ? bytes.length - 1 : Number(range[2]), bytes.length - 1);
  return {
    status: 206,
    headers: { etag, 'content-range': `bytes ${start}-${end}/${bytes.length}`, ...headers },
    body: bytes.subarray(start, end + 1),
  };
}

/** The opaque-tag of an entity-tag: weak comparison compares these (RFC 9110 §8.8.3.2). */
function opaque(tag: string): string {
  return tag.trim().replace(/^W\//, '');
}
