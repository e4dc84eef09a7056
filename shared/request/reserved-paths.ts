// The paths the tiers keep for themselves, all under /__tiercache/: never an object, never
// forwarded, however an origin might spell or decode them.

/** Every path under this is the tiers' own: never an object, never forwarded (docs/faults.md, "Reserved paths"). */
export const RESERVED_PREFIX = '/__tiercache/';
/** Purge (docs/purge.md): public at the edge (POST, bearer token), and the edge's call to the shield. */
export const PURGE_PATH = '/__tiercache/purge';
/** The stats page (docs/operating.md): HTML, and the same as JSON; with STATS_TOKEN. */
export const STATS_PATH = '/__tiercache/stats';
export const STATS_JSON_PATH = '/__tiercache/stats.json';
/** Health: the edge's answer (no token) and its question to the shield. */
export const HEALTH_PATH = '/__tiercache/health';
/** The edge's slice requests to the shield (shared/hop/slice-protocol.ts). */
export const SLICES_PREFIX = '/__tiercache/slices/';
/** The shield gateway's purge of Workers Cache, told to its slices entrypoint (shield/workers-cache-answer.ts). */
export const WORKERS_CACHE_PURGE_PATH = '/__tiercache/workers-cache-purge';

/**
 * Percent-decodings applied before deciding: the request's own, and two more that an origin,
 * or a gateway before it, may apply (`%252F` is `%2F` to the first and `/` to the second).
 */
const MAX_DECODINGS = 3;

/**
 * Whether a request belongs to the tiers themselves: a path given (the one routed, the one it
 * would be forwarded on) lies under RESERVED_PREFIX as it is, or as the most lenient origin
 * would read it (resolvedPath: decoded, `\` a separator, slashes merged, dot segments
 * removed), so `/x/..%2F__tiercache/purge` is the tiers' too. Such a request is answered by
 * the tier's own endpoint only where its canonical path names one exactly, and never passed on.
 */
export function isReserved(...paths: readonly string[]): boolean {
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
  return path.startsWith(RESERVED_PREFIX) || path === RESERVED_PREFIX.slice(0, -1);
}

function decodeBytes(path: string): string {
  return path.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
