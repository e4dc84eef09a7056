// Request path ⇄ S3 object key, pure. S3 names objects by the decoded path (GET /a%2Fb reads the key "a/b"), and a
// key goes back on the wire through SigV4's UriEncode, the only encoding S3 accepts as canonical (encodeKeyForPath).

/**
 * What a path means as an object key: the key, or why it names none; `bucket` when what it
 * names is the bucket itself (an empty key or only slashes: a ListObjects call, not an object).
 */
export type KeyResult = { ok: true; key: string } | { ok: false; reason: string; bucket?: true };

/** S3 limits an object key to 1024 bytes of UTF-8.
 *  https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-keys.html */
export const MAX_KEY_BYTES = 1024;

// A `%` not followed by two hex digits (RFC 3986 §2.1: pct-encoded = "%" HEXDIG HEXDIG).
const MALFORMED_PERCENT = /%(?![0-9A-Fa-f]{2})/;
// C0 controls and DEL: S3 accepts some of them, but they cannot survive headers, logs or
// XML listings intact, so no key we serve contains them.
const CONTROL_CHARACTER = /[\u0000-\u001F\u007F]/;
// A lone UTF-16 surrogate has no UTF-8 encoding, so no key on S3 can contain one.
const LONE_SURROGATE = /\p{Cs}/u;
// A key of slashes only: S3-compatible servers collapse or strip them and answer for the
// bucket (GET /bucket// lists it), so no such key is ever signed.
const ONLY_SLASHES = /^\/*$/;
// Where a key may climb: `/`, and `\`, which filesystem-backed servers (s3rver, MinIO on
// Windows) and gateways that normalise it to `/` read as a separator too.
const SEGMENT_SEPARATOR = /[/\\]/;
// SigV4 UriEncode keeps only RFC 3986 unreserved characters, plus '/' for paths.
const UNRESERVED_BYTE = /^[A-Za-z0-9\-._~/]$/;

const utf8 = new TextEncoder();

/**
 * Turns a URL pathname (as the WHATWG URL parser yields it: percent-encoded, dot segments
 * resolved) into the object key it names, or a rejection.
 */
export function objectKeyFromPath(pathname: string): KeyResult {
  if (!pathname.startsWith('/')) return reject(`expected a path starting with "/", got ${quote(pathname)}`);
  const raw = pathname.slice(1);
  if (raw === '')
    return {
      ok: false,
      reason: 'expected an object key after "/", got an empty path (that would list the bucket)',
      bucket: true,
    };
  if (MALFORMED_PERCENT.test(raw))
    return reject('malformed percent-encoding in the path (expected "%" and two hex digits)');
  const key = percentDecode(raw);
  if (key === undefined) return reject('percent-encoded bytes in the path are not valid UTF-8');
  return checkKey(key);
}

/**
 * SigV4 UriEncode of a key for a URL path: every UTF-8 byte becomes `%XX` (uppercase hex)
 * except unreserved `A-Z a-z 0-9 - . _ ~` and `/`. So `!'()*` are encoded too, unlike
 * encodeURIComponent, and `+` becomes `%2B`, never a space.
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html (UriEncode)
 */
export function encodeKeyForPath(key: string): string {
  let out = '';
  for (const char of key) {
    if (UNRESERVED_BYTE.test(char)) {
      out += char;
      continue;
    }
    for (const byte of utf8.encode(char)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * Checks a decoded key against what S3 stores and what we are willing to serve: the last check
 * before a key is signed (shield/origin/s3-request.ts asks it again).
 */
export function checkKey(key: string): KeyResult {
  if (ONLY_SLASHES.test(key))
    return {
      ok: false,
      reason: `expected an object key, got ${key === '' ? 'an empty one' : 'only slashes'} (that would name the bucket)`,
      bucket: true,
    };
  if (CONTROL_CHARACTER.test(key)) return reject('expected no control characters in the object key, got one');
  if (LONE_SURROGATE.test(key)) return reject('expected well-formed Unicode in the object key, got a lone surrogate');
  // `a%2F..%2Fb` decodes to "a/../b": once re-encoded for the origin, the URL parser
  // would resolve it to another key (RFC 3986 §5.2.4), and `..\\..\\etc` climbs out of the
  // bucket on a server that reads `\\` as `/`: dot segments never pass, under either separator.
  const dotSegment = key.split(SEGMENT_SEPARATOR).find((segment) => segment === '.' || segment === '..');
  if (dotSegment !== undefined)
    return reject(`expected no "${dotSegment}" segment in the object key, got ${quote(key)}`);
  const bytes = utf8.encode(key).length;
  if (bytes > MAX_KEY_BYTES)
    return reject(`expected an object key of at most ${MAX_KEY_BYTES} UTF-8 bytes, got ${bytes}`);
  return { ok: true, key };
}

/** Percent-decodes as UTF-8; `undefined` = the bytes are not valid UTF-8 (overlong, surrogate, truncated). */
function percentDecode(raw: string): string | undefined {
  try {
    // Unlike URLSearchParams, decodeURIComponent leaves '+' alone: in a path it is a
    // literal plus (RFC 3986 §3.3), not a space.
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

function reject(reason: string): KeyResult {
  return { ok: false, reason };
}

function quote(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}
