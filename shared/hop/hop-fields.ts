// The tiers' own header fields on their hops (the local front → the edge → the shield, and the
// shield's answers back), and the name the edge calls the shield by.

/**
 * On every request from the edge: the shield's token (SHIELD_TOKEN). The shield has no public
 * route when deployed, but it is a Worker like any other (and addressable locally), so it checks
 * that the edge sent the request (shared/admission/tier-credentials.ts fromTheEdge).
 */
export const CREDENTIAL_HEADER = 'x-tiercache-credential';
/** On a request from the edge: the client's host name, which picks the bucket (HOST_BUCKETS). */
export const HOST_HEADER = 'x-tiercache-host';
/** On a request from the edge: it is revalidating its own copy, so no stale answer may serve it. */
export const REVALIDATE_HEADER = 'x-tiercache-revalidate';
/**
 * On a request from the edge: the newest purge (ms epoch) it applied to the object; older shield
 * copies are purged too.
 */
export const PURGED_AT_HEADER = 'x-tiercache-purged-at';
/**
 * On a request from the edge: the newest soft purge (ms epoch) it applied to the object; older shield copies are stale
 * (shared/purge/soft-purge.ts), so the shield revalidates its own rather than confirm the edge's with it.
 */
export const SOFT_PURGED_AT_HEADER = 'x-tiercache-soft-purged-at';
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

/**
 * On every request the local stack's front forwards (local/front.ts): its proof, checked by the edge's local wrapper
 * (local/local-edge.ts); the deployed edge has no front.
 */
export const FRONT_HEADER = 'x-tiercache-front';

/** The shield's URL as the edge names it; only the path and query mean anything. */
export const SHIELD_ORIGIN = 'https://tiercache-shield.internal';
