// What names one version of an object, so that slices of two versions are never mixed: the origin's strong ETag, or,
// from an origin that sends no ETag at all (Storj's linksharing, many static servers), its Last-Modified and length.
// Pure.
//
// The second is a pin of our own: `modified=<seconds since the epoch>;length=<bytes>`. It is no entity-tag (not
// quoted, RFC 9110 §8.8.3), so no tier ever sends it, or compares it, as one: a client is never handed an ETag the
// origin did not send (an invented strong tag would promise byte-identity across every representation, §8.8.3, which
// a date cannot; a weak one would let an If-Range meant for the origin's bytes pass, §13.1.5), and the origin is asked
// for a slice of it with If-Unmodified-Since, not If-Match.

import { isStrongEtag } from '../http/etag.ts';
import { formatHttpDate, parseHttpDate } from '../http/http-date.ts';

const MODIFIED_PIN = /^modified=(0|[1-9]\d{0,11});length=(0|[1-9]\d{0,15})$/;

/**
 * The version an answer's `headers` name, for an object of `size` bytes: its ETag when it is strong; with no ETag at
 * all, its Last-Modified and `size`; null when neither pins it (a weak ETag promises no bytes, §8.8.1; an ETag that is
 * no entity-tag is no validator; without any, nothing tells two versions apart).
 */
export function versionPin(headers: Headers, size: number): string | null {
  const etag = headers.get('etag');
  if (etag !== null) return isStrongEtag(etag) ? etag : null;
  const modified = parseHttpDate(headers.get('last-modified'));
  return modified === undefined ? null : modifiedPin(modified, size);
}

/**
 * The version to slice an object by, as first found (discovery): versionPin, but a Last-Modified only when it is
 * strong (RFC 9110 §8.8.2.2): the answer's Date at least a second after it, so the object cannot change again within
 * the second its Last-Modified names and keep the same date. Without a Date, or one not after it: null (served whole).
 */
export function discoveredPin(headers: Headers, size: number): string | null {
  if (headers.has('etag')) return versionPin(headers, size);
  const modified = parseHttpDate(headers.get('last-modified'));
  const date = parseHttpDate(headers.get('date'));
  if (modified === undefined || date === undefined || date < modified + 1000) return null;
  return modifiedPin(modified, size);
}

/** Whether `value` names a version as versionPin does: a strong entity-tag, or a Last-Modified pin. */
export function isVersionPin(value: string | null): value is string {
  return isStrongEtag(value) || (value !== null && MODIFIED_PIN.test(value));
}

/**
 * The precondition that asks the origin for bytes of the version `pin` names only (RFC 9110 §13.1): If-Match with its
 * ETag, else If-Unmodified-Since its Last-Modified, which an origin that does not honour it ignores (each slice's
 * Last-Modified and length are checked all the same: shared/hop/slice-check.ts).
 */
export function pinCondition(pin: string): [name: string, value: string] {
  const modified = MODIFIED_PIN.exec(pin);
  if (modified === null) return ['if-match', pin];
  return ['if-unmodified-since', formatHttpDate(Number(modified[1]) * 1000)];
}

function modifiedPin(modifiedMs: number, size: number): string {
  return `modified=${Math.floor(modifiedMs / 1000)};length=${size}`;
}
