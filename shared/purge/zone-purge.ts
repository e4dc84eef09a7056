// The calls a purge makes to Cloudflare's zone purge (docs/purge.md "Paths"), and how a rate-limited call is tried
// again. No I/O: records in, request bodies and delays out.
//
// POST /zones/{zone_id}/purge_cache takes one kind of body a call: `{"tags": [...]}`, `{"prefixes": [...]}` (a
// host and path, no scheme: `www.example.com/foo`), `{"hosts": [...]}`, `{"files": [...]}` or
// `{"purge_everything": true}` (developers.cloudflare.com/api/resources/cache/methods/purge/,
// developers.cloudflare.com/cache/how-to/purge-cache/purge_by_prefix/).

import type { PurgeRecord } from './purge-rules.ts';
import { folderTag, urlTag } from './workers-cache-purge.ts';

/** One call's body. */
export type ZonePurgeCall = { tags: string[] } | { prefixes: string[] } | { purge_everything: true };

/**
 * Values one call carries: "Max operations per request: 100" on every plan
 * (developers.cloudflare.com/cache/how-to/purge-cache/, "Availability and limits") for tags, while the prefix page
 * still says "Maximum 30 prefixes per API call" (…/purge-cache/purge_by_prefix/).
 */
export const MAX_TAGS_PER_CALL = 100;
export const MAX_PREFIXES_PER_CALL = 30;

/**
 * The calls that purge, at the platform, what `records` name at the edge serving `hosts`: a URL by its path's tag
 * (on every host, as a record does: zone-tags.ts tags an entry so), a tag as itself, a prefix by the zone's own
 * prefix purge on each host (exact; Cache API entries are keyed by the client's URL, edge-address.ts) and, when it
 * ends in `/`, by its folder's tag too (which reaches what is keyed on internal hosts: variants, slices), everything
 * as everything. Batched to MAX_TAGS_PER_CALL and MAX_PREFIXES_PER_CALL; none when nothing is named.
 */
export function zonePurgeCalls(records: readonly PurgeRecord[], hosts: readonly string[]): ZonePurgeCall[] {
  if (records.some((record) => record.kind === 'everything')) return [{ purge_everything: true }];
  const tags = new Set<string>();
  const prefixes = new Set<string>();
  for (const record of records) {
    if (record.kind === 'url') tags.add(urlTag(record.value));
    else if (record.kind === 'tag') tags.add(record.value.toLowerCase());
    else if (record.kind === 'prefix') {
      for (const host of hosts) prefixes.add(`${host.toLowerCase()}${record.value}`);
      if (record.value.endsWith('/') && !record.value.includes('?')) tags.add(folderTag(record.value));
    }
  }
  return [
    ...batches([...tags], MAX_TAGS_PER_CALL).map((batch): ZonePurgeCall => ({ tags: batch })),
    ...batches([...prefixes], MAX_PREFIXES_PER_CALL).map((batch): ZonePurgeCall => ({ prefixes: batch })),
  ];
}

export function batches<T>(values: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let at = 0; at < values.length; at += size) out.push(values.slice(at, at + size));
  return out;
}

/**
 * Calls one purge makes at most: 1,000 URLs or tags are ten, 1,000 prefixes ending in `/` on one host 44. Past it
 * (prefixes times many HOST_BUCKETS hosts), the purge is left to the records rather than spend the account's rate
 * limit and the request's subrequests on one purge; the answer says so.
 */
export const MAX_CALLS_PER_PURGE = 50;

/** How many tries a call gets within the purge request, and the longest it waits for them in all (ms). */
export const TRIES_IN_REQUEST = 3;
export const WAIT_IN_REQUEST_MS = 3_000;
/** Tries a queued call gets after the answer (on waitUntil). */
export const TRIES_QUEUED = 5;
/**
 * How long the queue may wait in all after the answer: "cancellation will be delayed until the promise has completed
 * or until an additional 30 seconds have elapsed, whichever happens first" (developers.cloudflare.com/workers/platform/
 * limits/#duration). A little under, so the last try has time to be made.
 */
export const QUEUE_BUDGET_MS = 25_000;
/** When a 429 gives no usable Retry-After. */
export const DEFAULT_RETRY_MS = 1_000;

/**
 * RFC 9110 §10.2.3 Retry-After: delay-seconds or an HTTP-date; ms from `now`, at least 0; DEFAULT_RETRY_MS when
 * absent or unreadable. A 429 "may include a Retry-After header" (RFC 6585 §4; Cloudflare:
 * developers.cloudflare.com/support/troubleshooting/http-status-codes/4xx-client-error/error-429/).
 */
export function retryAfterMs(value: string | null, now: number): number {
  const text = value?.trim() ?? '';
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return /[a-z]/i.test(text) && Number.isFinite(date) ? Math.max(0, date - now) : DEFAULT_RETRY_MS;
}

/**
 * Whether a call refused with 429 after `tries` tries, `waited` ms of waiting so far, is tried again within the
 * request, waiting `delay` ms: only while tries and the wait stay within TRIES_IN_REQUEST and WAIT_IN_REQUEST_MS.
 * Otherwise it is queued (tried after the answer, which says so).
 */
export function retryInRequest(tries: number, waited: number, delay: number): boolean {
  return tries < TRIES_IN_REQUEST && waited + delay <= WAIT_IN_REQUEST_MS;
}
