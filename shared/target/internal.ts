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

/** Every path under this is the tiers' own: never an object, never forwarded (README "Reserved paths"). */
export const INTERNAL_PREFIX = '/__tiercache/';
/** Purge (README "Purge"): public at the edge (POST, bearer token), and the edge's call to the shield. */
export const PURGE_PATH = '/__tiercache/purge';
/** The stats page (README "Operating tiercache"): HTML, and the same as JSON; with STATS_TOKEN. */
export const STATS_PATH = '/__tiercache/stats';
export const STATS_JSON_PATH = '/__tiercache/stats.json';
/** Health: the edge's answer (no token) and its question to the shield. */
export const HEALTH_PATH = '/__tiercache/health';
/** On a request the local stack's front forwarded (local/front.ts): its proof; the edge checks it when LOCAL_FRONT_TOKEN is bound. */
export const FRONT_HEADER = 'x-tiercache-front';

/**
 * Whether a request belongs to the tiers themselves: its path as routed (canonical: decoded
 * where RFC 3986 allows, dot segments resolved, as `new URL` and normalizePath leave it), that
 * path fully decoded (`/__tiercache%2Fpurge`, which an origin may well decode), or the path it
 * would be forwarded on lies under INTERNAL_PREFIX. Such a request is answered by the tier's
 * own endpoint, if its canonical path names one exactly, and never passed on.
 */
export function isInternal(...paths: readonly string[]): boolean {
  const reserved = (path: string): boolean => path.startsWith(INTERNAL_PREFIX) || path === INTERNAL_PREFIX.slice(0, -1);
  return paths.some((path) => reserved(path) || reserved(fullyDecoded(path)));
}

function fullyDecoded(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
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
