// Which headers cross which hop. Allow-lists, not deny-lists, wherever a header could carry a
// credential or instruct the next hop.

import { splitList } from './header-list.ts';

/** RFC 9110 §7.6.1 hop-by-hop fields, plus the non-standard ones proxies still meet. */
export const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'proxy-authenticate',
  'proxy-authorization',
];

/**
 * Never forwarded to an HTTP origin: what names this hop (Host, framing), and the namespaces of
 * the tiers (x-tiercache-), of the platform (cf-) and of S3 (x-amz-: a client must not be able
 * to instruct a bucket behind a site).
 */
const NEVER_FORWARDED = ['host', 'content-length', ...HOP_BY_HOP];
const NEVER_FORWARDED_PREFIXES = ['x-amz-', 'x-tiercache-', 'cf-'];
/**
 * Set by the tiers themselves on a GET or HEAD: the slices they read (Range), the versions they
 * pin (If-Match) and the copies they revalidate (If-None-Match, If-Modified-Since). The client's
 * own are answered by the edge from what the tiers hold (RFC 9110 §13.2.1, §14.2).
 */
export const TIER_MANAGED = [
  'range',
  'if-range',
  'if-match',
  'if-none-match',
  'if-modified-since',
  'if-unmodified-since',
];

/**
 * The client's end-to-end request headers as an HTTP origin should receive them (RFC 9110
 * §7.6.1: a proxy forwards all but the hop-by-hop ones), credentials and cookies included: a
 * site behind the CDN needs them. `managed` are left out because the tiers set their own (on
 * GET and HEAD: TIER_MANAGED). Never used for S3, which receives no client header at all.
 */
export function forwardedRequestHeaders(client: Headers, managed: readonly string[] = []): Headers {
  const forwarded = new Headers();
  const connectionOptions = connectionTokens(client);
  for (const [name, value] of client) {
    if (NEVER_FORWARDED.includes(name) || connectionOptions.includes(name) || managed.includes(name)) continue;
    if (NEVER_FORWARDED_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    forwarded.set(name, value);
  }
  return forwarded;
}

/** Who asked, as the edge saw it. */
export interface ClientHop {
  /** The Host the client asked for (with its port, if any). */
  host: string;
  /** `http` or `https`. */
  proto: string;
  /** The client's address, when the platform tells it (CF-Connecting-IP). */
  ip?: string | undefined;
}

/**
 * `headers` with the edge's forwarding fields, as nginx (`proxy_set_header X-Forwarded-*`,
 * `$proxy_add_x_forwarded_for`) and Varnish do: X-Forwarded-For and Forwarded (RFC 7239 §4)
 * appended to what the client sent, X-Forwarded-Host and -Proto set to what the edge saw.
 */
export function withForwarding(headers: Headers, hop: ClientHop): Headers {
  const forwarded = new Headers(headers);
  for (const name of ['x-forwarded-host', 'x-forwarded-proto']) forwarded.delete(name);
  if (hop.ip !== undefined && hop.ip !== '')
    forwarded.set('x-forwarded-for', appended(headers.get('x-forwarded-for'), hop.ip));
  forwarded.set('x-forwarded-host', hop.host);
  forwarded.set('x-forwarded-proto', hop.proto);
  const element = [
    hop.ip ? `for=${forwardedValue(hop.ip)}` : '',
    `host=${forwardedValue(hop.host)}`,
    `proto=${hop.proto}`,
  ]
    .filter(Boolean)
    .join(';');
  forwarded.set('forwarded', appended(headers.get('forwarded'), element));
  return forwarded;
}

function appended(list: string | null, member: string): string {
  return list === null || list.trim() === '' ? member : `${list}, ${member}`;
}

/** RFC 7239 §4: a value is a token or a quoted-string; an IPv6 address is "[...]" quoted (§6). */
function forwardedValue(value: string): string {
  const v = /^[0-9a-f]*:[0-9a-f]*:[0-9a-f:.]*$/i.test(value) ? `[${value}]` : value;
  return /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(v) ? v : `"${v.replace(/["\\]/g, '\\$&')}"`;
}

/** S3 user metadata carrying an object's purge tags; exposed as `Cache-Tag` (s3CacheTag). */
const S3_CACHE_TAG = 'x-amz-meta-cache-tag';

/** Representation and caching metadata worth keeping from an S3 object response. */
export const S3_RESPONSE_HEADERS = [
  'content-type',
  'content-length',
  'content-encoding',
  'content-language',
  'content-disposition',
  'cache-control',
  'expires',
  'etag',
  'last-modified',
  'date',
  'accept-ranges',
  'vary',
  // Object metadata set at upload, kept (as Cache-Tag) to purge by tag (docs/purge.md).
  S3_CACHE_TAG,
];

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
  return splitList(headers.get('connection') ?? '').map((token) => token.toLowerCase());
}

/** An S3 object's `x-amz-meta-cache-tag` under the name a Cloudflare origin would use: `Cache-Tag`. */
export function exposeS3CacheTag(headers: Headers): Headers {
  const tags = headers.get(S3_CACHE_TAG);
  headers.delete(S3_CACHE_TAG);
  if (tags !== null && !headers.has('cache-tag')) headers.set('cache-tag', tags);
  return headers;
}
