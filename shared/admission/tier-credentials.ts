// Who may use the tiers' own doors: the shield's (the edge's credential), the purge and stats endpoints (the
// operator's tokens), and the edge's socket behind the local front (the front's field). Each a yes/no or a verdict the
// endpoint turns into its own error; the comparisons are credential.ts's, in constant time.

import { basicPassword, bearerToken, credentialMatches } from './credential.ts';

/** What an endpoint guarded by an operator's token decides: off (no token set), refused (401), or admitted. */
export type TokenVerdict = 'disabled' | 'unauthorized' | 'admitted';

/** The shield answers only the edge: its CREDENTIAL_HEADER must carry SHIELD_TOKEN (none set = nobody). */
export function fromTheEdge(credential: string | null, shieldToken: string | undefined): boolean {
  return credentialMatches(credential, shieldToken);
}

/** The edge's socket behind the local front answers only what came through it (no front token = no front). */
export function throughTheFront(field: string | null, frontToken: string | undefined): boolean {
  return frontToken === undefined || credentialMatches(field, frontToken);
}

/** POST /__tiercache/purge: `Authorization: Bearer <PURGE_TOKEN>` (RFC 6750 §2.1). */
export function purgeAdmission(authorization: string | null, purgeToken: string | undefined): TokenVerdict {
  if (purgeToken === undefined) return 'disabled';
  return credentialMatches(bearerToken(authorization), purgeToken) ? 'admitted' : 'unauthorized';
}

/** The stats page and stats.json: the token as a bearer (the CLI) or as Basic's password (a browser, RFC 7617). */
export function statsAdmission(authorization: string | null, statsToken: string | undefined): TokenVerdict {
  if (statsToken === undefined) return 'disabled';
  const presented = bearerToken(authorization) ?? basicPassword(authorization);
  return credentialMatches(presented, statsToken) ? 'admitted' : 'unauthorized';
}

/**
 * POST /__tiercache/events (Storj's bucket events, pushed by Pub/Sub: docs/storj.md "Purge on upload"): EVENTS_TOKEN
 * as the push endpoint's `token` query parameter, Pub/Sub's way for a shared secret ("add a secret token to the push
 * endpoint URL", cloud.google.com/pubsub/docs/push), or as a bearer token (RFC 6750 §2.1). Either must match.
 */
export function eventsAdmission(
  queryToken: string | null,
  authorization: string | null,
  eventsToken: string | undefined,
): TokenVerdict {
  if (eventsToken === undefined) return 'disabled';
  const byQuery = credentialMatches(queryToken, eventsToken);
  const byBearer = credentialMatches(bearerToken(authorization), eventsToken);
  return byQuery || byBearer ? 'admitted' : 'unauthorized';
}
