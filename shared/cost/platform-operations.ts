// The platform operations a deployment makes besides answering requests, per isolate per interval
// (docs/costs.md): purge-list re-reads and stats flushes, what they cost a stats object, logs, subrequests.

import { FETCH, LOOKUP, PUT, SLICE_READ } from '../slices/subrequest-costs.ts';

/**
 * What a stats flush costs the Durable Object's SQLite storage (shield/stats-store.ts): the get()
 * and put() of the batch's minute, and once a minute one more (a batch spanning a minute's turn,
 * or the list() and delete() of the bucket that left the window). The stats page counts the
 * real rows; this is for a traffic mix.
 */
export const FLUSH_STORAGE = {
  rowsRead: 2,
  rowsWritten: 2,
} as const;

/**
 * How long the stats object is active per request: an assumption, not measured on Cloudflare
 * (a merge is a get, a put and a list of a few keys). Durable Objects bill duration while active,
 * as 128 MB, and an object serving plain HTTP requests may hibernate between them.
 */
export const STATS_OBJECT_ACTIVE_MS = 10;
/** "Duration billing charges for the 128 MB of memory your Durable Object is allocated." */
export const DURABLE_OBJECT_GB = 0.128;

/**
 * Bytes of one Workers Logs event (an invocation's own log, or a sampled record line): an
 * assumption, not measured on Cloudflare (an invocation log carries the request's metadata and
 * headers; a record line is ~300 bytes of JSON).
 */
export const LOG_EVENT_BYTES = 1_500;
/** Workers Logs keeps events seven days: stored GB-months are seven thirtieths of a month's GB. */
export const LOG_RETENTION_DAYS = 7;

/**
 * Subrequests per request kind (docs/slices.md, "Platform limits"): not billed ("Cloudflare does not bill
 * for subrequests"), counted because each request has a budget of them.
 */
export const SUBREQUESTS = {
  /** The edge: one lookup. */
  edgeHit: LOOKUP,
  /** The edge: a lookup, the shield, a put. */
  edgeWholeMiss: LOOKUP + FETCH + PUT,
  /** The edge, per slice read ahead: its lookup, the warm, the copy's fetch and put, the read back. */
  edgeSlice: SLICE_READ,
  /** The shield: one lookup. */
  shieldHit: LOOKUP,
  /** The shield: a lookup, the origin, a put. */
  shieldMiss: LOOKUP + FETCH + PUT,
} as const;

/**
 * Each isolate that serves requests re-reads the purge list at most every REFRESH_MS
 * (shared/purge/purge-store.ts: the head key, and the list when the head says so: refresh-design.ts), and flushes its
 * stats batch to a stats Durable Object (one request, shield/stats-store.ts) at most every STATS_FLUSH_MS. Busy
 * isolates make one of each per interval; a quiet one makes one per request at most, so both are functions of how many
 * isolates (or, for the head a location shares, locations) the traffic spreads over.
 *
 * Operations of one kind made by readers that each make at most one per `intervalMs` and only
 * while requests come: with `requests` over `periodMs` spread evenly at random (Poisson) over
 * `isolates`, each makes one on the first request after its interval has passed.
 * `flush` (the stats): a request within the interval is sent when it ends, one later at once.
 * `reread` (the purge list): the first request after the interval re-reads; others use the copy.
 */
export function operationsPerPeriod(
  kind: 'flush' | 'reread',
  requests: number,
  periodMs: number,
  isolates: number,
  intervalMs: number,
): number {
  if (!(requests > 0) || !(periodMs > 0)) return 0;
  if (!(isolates > 0) || !(intervalMs > 0)) return requests;
  const perMs = requests / periodMs / isolates;
  // Mean time between operations: a reread waits the interval, then for the next request
  // (interval + 1/λ); a flush waits the interval, and past it for the next request only if
  // none came within it (interval + e^(−λ·interval)/λ).
  const cycleMs = kind === 'reread' ? intervalMs + 1 / perMs : intervalMs + Math.exp(-perMs * intervalMs) / perMs;
  return Math.min(requests, (isolates * periodMs) / cycleMs);
}

/**
 * How often a shield isolate with the R2 tier lists a page of its bucket to remove what expired (shield/r2/r2-sweep.ts):
 * a minute, so 43,200 Class A list operations a month per isolate that sees traffic all month, ~$0.19 at $4.50 per
 * million.
 */
export const R2_SWEEP_EVERY_MS = 60_000;
