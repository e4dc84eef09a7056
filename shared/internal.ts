// The edge → shield hop. The shield has no public route when deployed, but it is a Worker like
// any other (and addressable locally), so it checks that the edge sent the request.

export const CREDENTIAL_HEADER = 'x-tiercache-credential';
/** On a request from the edge: the client's host name, which picks the bucket (HOST_BUCKETS). */
export const HOST_HEADER = 'x-tiercache-host';
/** On a request from the edge: it is revalidating its own copy, so no stale answer may serve it. */
export const REVALIDATE_HEADER = 'x-tiercache-revalidate';
/** On a request from the edge: the newest purge (ms epoch) it applied to the object; older shield copies are purged too. */
export const PURGED_AT_HEADER = 'x-tiercache-purged-at';
/** Purge (README "Purge"): public at the edge (POST, bearer token), and the edge's call to the shield. */
export const PURGE_PATH = '/__tiercache/purge';
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
