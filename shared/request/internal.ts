// The edge → shield hop. The shield has no public route when deployed, but it is a Worker like
// any other (and addressable locally), so it checks that the edge sent the request.

export const CREDENTIAL_HEADER = 'x-tiercache-credential';
/** On a request from the edge: the client's host name, which picks the bucket (HOST_BUCKETS). */
export const HOST_HEADER = 'x-tiercache-host';
/** On a request from the edge: it is revalidating its own copy, so no stale answer may serve it. */
export const REVALIDATE_HEADER = 'x-tiercache-revalidate';
/** On a request from the edge: the newest purge (ms epoch) it applied to the object; older shield copies are purged too. */
export const PURGED_AT_HEADER = 'x-tiercache-purged-at';
/**
 * On an answer of the shield: when its bytes came from the origin (ms epoch; EntryMeta.originAt),
 * so that the edge stores them with that time, and a purge made since finds them.
 */
export const ORIGIN_AT_HEADER = 'x-tiercache-origin-at';

/** The origin time an answer states (removing the field), or `fallback` (an origin's own answer: now). */
export function takeOriginAt(headers: Headers, fallback: number): number {
  const value = headers.get(ORIGIN_AT_HEADER);
  headers.delete(ORIGIN_AT_HEADER);
  return value !== null && /^\d{1,15}$/.test(value) ? Math.min(Number(value), fallback) : fallback;
}

/** Every path under this is the tiers' own: never an object, never forwarded (docs/faults.md, "Reserved paths"). */
export const INTERNAL_PREFIX = '/__tiercache/';
/** Purge (docs/purge.md): public at the edge (POST, bearer token), and the edge's call to the shield. */
export const PURGE_PATH = '/__tiercache/purge';
/** The stats page (docs/operating.md): HTML, and the same as JSON; with STATS_TOKEN. */
export const STATS_PATH = '/__tiercache/stats';
export const STATS_JSON_PATH = '/__tiercache/stats.json';
/** Health: the edge's answer (no token) and its question to the shield. */
export const HEALTH_PATH = '/__tiercache/health';
/** On a request the local stack's front forwarded (local/front.ts): its proof; the edge checks it when LOCAL_FRONT_TOKEN is bound. */
export const FRONT_HEADER = 'x-tiercache-front';

/**
 * Percent-decodings applied before deciding: the request's own, and two more that an origin,
 * or a gateway before it, may apply (`%252F` is `%2F` to the first and `/` to the second).
 */
const MAX_DECODINGS = 3;

/**
 * Whether a request belongs to the tiers themselves: a path given (the one routed, the one it
 * would be forwarded on) lies under INTERNAL_PREFIX as it is, or as the most lenient origin
 * would read it (resolvedPath: decoded, `\` a separator, slashes merged, dot segments
 * removed), so `/x/..%2F__tiercache/purge` is the tiers' too. Such a request is answered by
 * the tier's own endpoint only where its canonical path names one exactly, and never passed on.
 */
export function isInternal(...paths: readonly string[]): boolean {
  return paths.some((path) => reserved(path) || reserved(resolvedPath(path)));
}

/**
 * `path` as an origin that decodes every percent-encoding, reads `\` as `/` (IIS, gateways in
 * front of Windows file systems), merges repeated slashes (nginx's merge_slashes) and drops
 * segment parameters (`..;x`, Tomcat) would read it, with dot segments removed (RFC 3986
 * §5.2.4). Only the shape matters here, so bytes are decoded one by one (Latin-1), never
 * refused: a stray `%C3` must not hide a `..%2F` beside it.
 */
export function resolvedPath(path: string): string {
  let decoded = path;
  for (let i = 0; i < MAX_DECODINGS && decoded.includes('%'); i++) decoded = decodeBytes(decoded);
  const segments = decoded
    .split(/[/\\]+/)
    .slice(1)
    .map((segment) => segment.split(';', 1)[0] ?? '');
  const output: string[] = [];
  for (const segment of segments) {
    if (segment === '..') output.pop();
    else if (segment !== '.') output.push(segment);
  }
  // A last `.` or `..` leaves the path ending in `/` (RFC 3986 §5.2.4, steps 2B and 2C).
  const last = segments[segments.length - 1];
  const trailing = (last === '.' || last === '..') && output.length > 0 ? '/' : '';
  return `/${output.join('/')}${trailing}`;
}

function reserved(path: string): boolean {
  return path.startsWith(INTERNAL_PREFIX) || path === INTERNAL_PREFIX.slice(0, -1);
}

function decodeBytes(path: string): string {
  return path.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The shield's URL as the edge names it; only the path and query mean anything. */
export const SHIELD_ORIGIN = 'https://tiercache-shield.internal';

/** Compares in time independent of where the strings differ, so the token cannot be guessed byte by byte. */
export function credentialMatches(presented: string | null, expected: string | undefined): boolean {
  if (presented === null || expected === undefined || expected.length === 0) return false;
  let difference = presented.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) {
    difference |= (presented.charCodeAt(i % Math.max(1, presented.length)) || 0) ^ expected.charCodeAt(i);
  }
  return difference === 0;
}
