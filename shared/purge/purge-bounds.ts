// How long a purge takes to be in force everywhere by the records (docs/purge.md "Paths"), and what an isolate's copy
// of the list may vouch for so that this stays true when a read of KV fails ("When KV cannot be read"). No I/O.

import type { PurgeList } from './purge-rules.ts';
import { REFRESH_MS } from './purge-rules.ts';

/** Workers KV: "changes may take up to 60 seconds or more to be visible in other locations". */
export const KV_PROPAGATION_MS = 60_000;
/** How long the records take to put a purge in force everywhere: KV's propagation, then an isolate's next re-read. */
export const RECORDS_REACH_MS = KV_PROPAGATION_MS + REFRESH_MS;
/** What the purge answer promises of the records. */
export const REACHES_EVERY_LOCATION_WITHIN = `${RECORDS_REACH_MS / 1000}s`;

/**
 * The list lookups are judged by until the next re-read, at most REFRESH_MS after the one at `readAt`, given the
 * copy's `list` and how far it is `complete` (every batch written at or before it is in the list). RECORDS_REACH_MS
 * holds while every purge written before the read's horizon (`readAt` less KV's propagation) is in the list: a read
 * that succeeded makes it so (`complete` is its horizon). One that failed cannot, so the copy vouches for nothing from
 * before the horizon it does not hold complete: every entry whose bytes came from the origin before it counts as
 * purged, as if a purge of everything had been listed there. Never less purged than the bound promises, and no more
 * than a purge of everything a minute old: an object is fetched again about once a minute while KV cannot be read,
 * not on every request.
 */
export function servedList(list: PurgeList, complete: number, readAt: number): PurgeList {
  const horizon = readAt - KV_PROPAGATION_MS;
  if (complete >= horizon || list.vouchedSince >= horizon) return list;
  return { records: list.records, vouchedSince: horizon };
}
