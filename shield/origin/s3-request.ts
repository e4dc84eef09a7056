// Which request we send to S3 for an object: method, URL and the headers to sign. Pure: no I/O, no signing (see
// sigv4.ts), no clock.

import type { S3Config } from '../../shared/config/config.ts';
import { checkKey, encodeKeyForPath } from '../../shared/request/object-key.ts';
import { originBasePath } from './origin-url.ts';

/** A request ready for SigV4: absolute URL without a query, lowercase header names. */
export interface UnsignedRequest {
  method: 'GET' | 'HEAD';
  url: URL;
  headers: Record<string, string>;
}

/**
 * The only client-derived headers an S3 GetObject/HeadObject may carry (range and the
 * RFC 9110 §13.1 preconditions). Nothing else the client sent reaches this module, so
 * Authorization, Cookie, x-amz-* and query strings cannot leak to the origin.
 */
export interface ForwardedHeaders {
  range?: string;
  'if-match'?: string;
  'if-none-match'?: string;
  'if-modified-since'?: string;
  'if-unmodified-since'?: string;
}

export const FORWARDED_HEADER_NAMES = [
  'range',
  'if-match',
  'if-none-match',
  'if-modified-since',
  'if-unmodified-since',
] as const satisfies readonly (keyof ForwardedHeaders)[];

// Bucket naming rules, https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html:
// 3–63 characters of lowercase letters, digits, dots and hyphens, starting and ending with a
// letter or digit, no two adjacent dots, not shaped like an IPv4 address.
const DNS_BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const IPV4_SHAPED = /^\d+\.\d+\.\d+\.\d+$/;
// Path-style also reaches legacy us-east-1 buckets (uppercase, underscores, up to 255
// characters); all that matters there is that the name is one path segment needing no encoding.
const LEGACY_BUCKET = /^[A-Za-z0-9][A-Za-z0-9._-]{1,253}[A-Za-z0-9]$/;

/**
 * The GetObject/HeadObject request for `key`, addressed as configured.
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/VirtualHosting.html
 * Throws a plain Error for a bucket name the addressing style cannot carry, or for a key
 * that is not one object (empty, only slashes, or with `.`/`..` segments under `/` or `\`):
 * requestTarget refuses those first, so this is the last guard before signing.
 */
export function s3ObjectRequest(
  s3: S3Config,
  endpoint: URL,
  key: string,
  method: 'GET' | 'HEAD',
  conditional: ForwardedHeaders,
): UnsignedRequest {
  const url = objectUrl(s3, endpoint, key);
  // SigV4 signs `host`, and fetch derives Host from the URL: both must be url.host
  // (hostname plus a non-default port), or S3 computes another signature.
  const headers: Record<string, string> = { host: url.host };
  for (const name of FORWARDED_HEADER_NAMES) {
    const value = conditional[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return { method, url, headers };
}

/** Path-style `/{base}/{bucket}/{key}` or virtual-hosted `{bucket}.{host}/{key}`; never a query. */
function objectUrl(s3: S3Config, endpoint: URL, key: string): URL {
  assertOneObject(key);
  const basePath = originBasePath(endpoint);
  const encodedKey = encodeKeyForPath(key);
  let host: string;
  let path: string;
  if (s3.addressing === 'virtual') {
    assertVirtualHostedBucket(s3.bucket, endpoint);
    host = `${s3.bucket}.${endpoint.host}`;
    path = `${basePath}/${encodedKey}`;
  } else {
    assertPathStyleBucket(s3.bucket);
    host = endpoint.host;
    path = `${basePath}/${s3.bucket}/${encodedKey}`;
  }
  // Built from parts so the endpoint's userinfo, query and fragment never carry over.
  const url = new URL(`${endpoint.protocol}//${host}${path}`);
  // The signed path must be the path sent: fail if the URL parser rewrote any of it.
  if (url.pathname !== path || url.search !== '') {
    throw new Error(
      `expected the origin URL path to stay ${JSON.stringify(path)}, got ${JSON.stringify(url.pathname)}`,
    );
  }
  return url;
}

function assertOneObject(key: string): void {
  const checked = checkKey(key);
  if (!checked.ok) throw new Error(checked.reason);
}

function assertVirtualHostedBucket(bucket: string, endpoint: URL): void {
  if (!DNS_BUCKET.test(bucket) || bucket.includes('..') || IPV4_SHAPED.test(bucket)) {
    throw new Error(
      `S3_BUCKET must be a DNS-compatible bucket name for virtual-hosted addressing, got ${JSON.stringify(bucket)}`,
    );
  }
  // The endpoint's certificate is a wildcard (*.s3.amazonaws.com), and a wildcard covers
  // exactly one DNS label (RFC 6125 §6.4.3): "my.bucket.s3.amazonaws.com" fails TLS
  // validation. The S3 docs therefore rule out dotted buckets with virtual-hosted HTTPS
  // (VirtualHosting.html, "HTTPS"); plain HTTP has no certificate to mismatch.
  if (endpoint.protocol === 'https:' && bucket.includes('.')) {
    throw new Error(
      `S3_BUCKET ${JSON.stringify(bucket)} contains dots, which virtual-hosted HTTPS cannot address (use S3_ADDRESSING=path)`,
    );
  }
}

function assertPathStyleBucket(bucket: string): void {
  if (!LEGACY_BUCKET.test(bucket)) {
    throw new Error(`S3_BUCKET must be a valid bucket name, got ${JSON.stringify(bucket)}`);
  }
}
