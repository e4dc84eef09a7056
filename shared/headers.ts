// Which headers cross which hop. Allow-lists, not deny-lists, wherever a header could carry a
// credential or instruct the next hop.

/** RFC 9110 §7.6.1 hop-by-hop fields, plus the non-standard ones proxies still meet. */
export const HOP_BY_HOP = [
  'connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade',
  'proxy-authenticate', 'proxy-authorization',
];

/** Never forwarded to any origin: client credentials and anything S3 would act on. */
const NEVER_FORWARDED = ['authorization', 'cookie', 'host', 'content-length', ...HOP_BY_HOP];
const NEVER_FORWARDED_PREFIXES = ['x-amz-', 'x-tiercache-', 'cf-'];

/** S3 user metadata carrying an object's purge tags; exposed as `Cache-Tag` (s3CacheTag). */
export const S3_CACHE_TAG = 'x-amz-meta-cache-tag';

/** Representation and caching metadata worth keeping from an S3 object response. */
export const S3_RESPONSE_HEADERS = [
  'content-type', 'content-length', 'content-encoding', 'content-language', 'content-disposition',
  'cache-control', 'expires', 'etag', 'last-modified', 'date', 'accept-ranges', 'vary',
  // Object metadata set at upload, kept (as Cache-Tag) to purge by tag (README "Purge").
  S3_CACHE_TAG,
];

/** Client request headers allowed through to a plain HTTP origin on a pass-through request. */
export function passThroughRequestHeaders(client: Headers): Headers {
  const forwarded = new Headers();
  const connectionOptions = connectionTokens(client);
  for (const [name, value] of client) {
    if (NEVER_FORWARDED.includes(name) || connectionOptions.includes(name)) continue;
    if (NEVER_FORWARDED_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    forwarded.set(name, value);
  }
  return forwarded;
}

/** An origin response's headers minus the per-hop ones (and, for S3, all but the allow-list). */
export function originResponseHeaders(origin: Headers, allowList?: readonly string[]): Headers {
  const kept = new Headers();
  const connectionOptions = connectionTokens(origin);
  for (const [name, value] of origin) {
    if (allowList !== undefined && !allowList.includes(name)) continue;
    if (HOP_BY_HOP.includes(name) || connectionOptions.includes(name)) continue;
    // Our own internal names are ours alone: an origin must not be able to forge a stored envelope.
    if (name.startsWith('x-tiercache-')) continue;
    kept.append(name, value);
  }
  return kept;
}

/** RFC 9110 §7.6.1: the fields named in Connection are per-hop too, and must be removed. */
function connectionTokens(headers: Headers): string[] {
  return (headers.get('connection') ?? '').split(',').map((token) => token.trim().toLowerCase()).filter(Boolean);
}

/** An S3 object's `x-amz-meta-cache-tag` under the name a Cloudflare origin would use: `Cache-Tag`. */
export function exposeS3CacheTag(headers: Headers): Headers {
  const tags = headers.get(S3_CACHE_TAG);
  headers.delete(S3_CACHE_TAG);
  if (tags !== null && !headers.has('cache-tag')) headers.set('cache-tag', tags);
  return headers;
}
