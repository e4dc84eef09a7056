// The paths the tiers keep for themselves, all under /__tiercache/: never an object, never
// forwarded, however an origin might spell, decode or case-fold them.

/** Every path under this is the tiers' own: never an object, never forwarded (docs/faults.md, "Reserved paths"). */
export const RESERVED_PREFIX = '/__tiercache/';
/** Purge (docs/purge.md): public at the edge (POST, bearer token), and the edge's call to the shield. */
export const PURGE_PATH = '/__tiercache/purge';
/** Storj's bucket events, pushed by Pub/Sub (docs/storj.md "Purge on upload"): at the edge, POST, EVENTS_TOKEN. */
export const EVENTS_PATH = '/__tiercache/events';
/**
 * Warm (docs/warming.md): public at the edge (POST, the purge token), and the edge's call to the shield, one object a
 * call (shared/hop/warm-protocol.ts).
 */
export const WARM_PATH = '/__tiercache/warm';
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
 * What resolvedPaths acts on: a percent-encoding, a `\`, repeated slashes, a `;` parameter or a
 * dot segment. A path without any of them is its own resolved reading.
 */
const NEEDS_RESOLVING = /[%\\;]|\/\/|\/\.\.?(?:\/|$)/;

/**
 * Whether a request belongs to the tiers themselves: a path given (the one routed, the one it
 * would be forwarded on) lies under RESERVED_PREFIX as it is, or as the most lenient origin
 * would read it (resolvedPaths: decoded, `\` a separator, slashes merged, dot segments
 * removed), in any case (IIS and case-insensitive file systems read `/__TIERCACHE/` as the
 * prefix), so `/x/..%2F__tiercache/purge` and `/__TIERCACHE/purge` are the tiers' too. Such a
 * request is answered by the tier's own endpoint only where its canonical path names one
 * exactly, and never passed on.
 */
export function isReserved(...paths: readonly string[]): boolean {
  return paths.some((path) => reserved(path) || resolvedPaths(path).some(reserved));
}

/**
 * `path` as an origin that decodes every percent-encoding, reads `\` as `/` (IIS, gateways in
 * front of Windows file systems), drops segment parameters (`..;x`, Tomcat) and removes dot
 * segments (RFC 3986 §5.2.4) would read it, its repeated slashes merged: merged before the dots
 * are removed (nginx's merge_slashes, Tomcat), or after (RFC 3986 alone, nginx without
 * merge_slashes: `/a//..` is `/a/`, and the file system merges what is left). One reading when
 * the two agree, as for every path without an empty segment before a `..`. Only the shape matters here,
 * so bytes are decoded one by one (Latin-1), never refused: a stray `%C3` must not hide a
 * `..%2F` beside it.
 */
export function resolvedPaths(path: string): readonly string[] {
  // Nothing to decode, split, drop or remove: the path reads as it is written (the common case, kept cheap).
  if (path.startsWith('/') && !NEEDS_RESOLVING.test(path)) return [path];
  let decoded = path;
  for (let i = 0; i < MAX_DECODINGS && decoded.includes('%'); i++) decoded = decodeBytes(decoded);
  const segments = decoded
    .split(/[/\\]/)
    .slice(1)
    .map((segment) => segment.split(';', 1)[0] ?? '');
  // An empty segment (`//`, or one that was only parameters, `/;x/`) is a repeated slash, unless it is last.
  const merged = withoutDotSegments(segments.filter((segment, i) => segment !== '' || i === segments.length - 1));
  const mergedAfter = withoutDotSegments(segments).replace(/\/{2,}/g, '/');
  return merged === mergedAfter ? [merged] : [merged, mergedAfter];
}

/** `/` and the segments, with dot segments removed (RFC 3986 §5.2.4): a `..` takes away the segment before it. */
function withoutDotSegments(segments: readonly string[]): string {
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

/** Under RESERVED_PREFIX, or the prefix's folder itself, in any case. */
function reserved(path: string): boolean {
  const head = path.slice(0, RESERVED_PREFIX.length).toLowerCase();
  return head === RESERVED_PREFIX || (head === RESERVED_PREFIX.slice(0, -1) && path.length === head.length);
}

function decodeBytes(path: string): string {
  return path.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
