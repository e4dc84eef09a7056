// CORS (the Fetch standard's "CORS protocol") for public objects read from script: which origins may
// read GET/HEAD answers, which headers they may see, and the answer to a CORS-preflight request.

import { splitList } from './header-list.ts';

/** Every origin (`*`), or exactly these serialized origins; an empty list = CORS off. */
export type AllowedOrigins = '*' | readonly string[];

export type AllowedOriginsResult = { ok: true; origins: AllowedOrigins } | { ok: false; reason: string };

/** Response headers script may read beyond the CORS-safelisted ones (Fetch, "HTTP responses"). */
export const EXPOSED_HEADERS = [
  'Content-Length',
  'Content-Range',
  'ETag',
  'Accept-Ranges',
  'Cache-Status',
  'Server-Timing',
  'Age',
];
/** Request headers a preflight may be granted: the ones that read parts or revalidate. */
const ALLOWED_REQUEST_HEADERS = ['range', 'if-none-match', 'if-modified-since', 'if-range', 'if-match'];
const PREFLIGHT_METHODS = ['GET', 'HEAD'];
/** Seconds a browser may keep a preflight answer (browsers cap it: Chromium at 2 hours). */
export const PREFLIGHT_MAX_AGE = 86_400;

/**
 * `CORS_ALLOW_ORIGINS` as given: `*`, or a comma-separated list of origins such as
 * `https://app.example, http://localhost:5173`, each kept in its serialized form (HTML's
 * "serialization of an origin", what browsers send as Origin: lower-case scheme and host, no
 * default port, no path).
 */
export function parseAllowedOrigins(value: string): AllowedOriginsResult {
  const members = splitList(value);
  if (members.includes('*')) {
    return members.length === 1
      ? { ok: true, origins: '*' }
      : { ok: false, reason: 'must be "*" alone or a list of origins, not both' };
  }
  const origins: string[] = [];
  for (const member of members) {
    const origin = serializedOrigin(member);
    if (origin === undefined)
      return { ok: false, reason: `must list origins like https://app.example, got ${JSON.stringify(member)}` };
    origins.push(origin);
  }
  return { ok: true, origins };
}

/** Whether CORS is configured at all. */
export function corsEnabled(allowed: AllowedOrigins): boolean {
  return allowed === '*' || allowed.length > 0;
}

/**
 * The headers for an answer to a GET or HEAD whose request carried `origin` (null = none),
 * added to `headers` in place. With `*`, every answer says `*`, Origin or not, so an answer
 * cached by the browser for a non-CORS request still serves a CORS one. With a list, only a
 * listed origin gets CORS headers, and every answer carries `Vary: Origin`: Fetch ("CORS
 * protocol and HTTP caches") asks a server that echoes the origin to "always use `Vary: Origin`".
 */
export function addCorsHeaders(headers: Headers, origin: string | null, allowed: AllowedOrigins): Headers {
  if (!corsEnabled(allowed)) return headers;
  if (allowed !== '*') headers.set('vary', withVaryOrigin(headers.get('vary')));
  const allowOrigin = allowedOrigin(origin, allowed);
  if (allowOrigin === undefined) return headers;
  // Never Access-Control-Allow-Credentials (here or in a preflight answer): the objects are public
  // and the edge keeps no per-user state.
  headers.set('access-control-allow-origin', allowOrigin);
  headers.set('access-control-expose-headers', EXPOSED_HEADERS.join(', '));
  return headers;
}

/**
 * The answer's headers to a CORS-preflight request (an OPTIONS with Origin and
 * Access-Control-Request-Method, Fetch "HTTP requests") for GET or HEAD from an allowed origin;
 * `undefined` = not one we grant (the OPTIONS is then answered without any CORS header, and
 * the browser fails the preflight). Of the requested headers only the allowed ones are
 * echoed: the browser checks that each one it asked for is listed (Fetch "CORS-preflight fetch").
 */
export function preflightHeaders(request: Headers, allowed: AllowedOrigins): Headers | undefined {
  const allowOrigin = allowedOrigin(request.get('origin'), allowed);
  const method = request.get('access-control-request-method');
  if (allowOrigin === undefined || method === null || !PREFLIGHT_METHODS.includes(method)) return undefined;
  const headers = new Headers({
    'access-control-allow-origin': allowOrigin,
    'access-control-allow-methods': PREFLIGHT_METHODS.join(', '),
    'access-control-max-age': String(PREFLIGHT_MAX_AGE),
  });
  const granted = requestedHeaders(request).filter((name) => ALLOWED_REQUEST_HEADERS.includes(name));
  if (granted.length > 0) headers.set('access-control-allow-headers', granted.join(', '));
  // RFC 9110 §9.3.7: answers to OPTIONS are not cacheable, so Vary only tells the truth here.
  if (allowed !== '*') headers.set('vary', 'Origin');
  return headers;
}

/** The Access-Control-Allow-Origin value for `origin`; `undefined` = not allowed. */
export function allowedOrigin(origin: string | null, allowed: AllowedOrigins): string | undefined {
  if (allowed === '*') return '*';
  // The Origin header is already serialized: compared byte for byte.
  return origin !== null && allowed.includes(origin) ? origin : undefined;
}

/** Access-Control-Request-Headers: lower-cased names, comma-separated (Fetch "HTTP requests"). */
function requestedHeaders(request: Headers): string[] {
  return splitList(request.get('access-control-request-headers') ?? '').map((name) => name.toLowerCase());
}

function withVaryOrigin(vary: string | null): string {
  const members = splitList(vary ?? '');
  // `Vary: *` already varies on everything (RFC 9110 §12.5.5).
  if (members.some((member) => member === '*' || member.toLowerCase() === 'origin')) return members.join(', ');
  return [...members, 'Origin'].join(', ');
}

function serializedOrigin(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  // An origin has no path, query, fragment or credentials; a trailing `/` is the URL parser's.
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '' || value.endsWith('?'))
    return undefined;
  return url.origin;
}
