// How long a purge takes to be in force everywhere, by each path and as a whole (docs/purge.md "Paths"), and what an
// isolate's copy of the list may vouch for so that the records' bound stays true when a read of KV fails ("When KV
// cannot be read"). No I/O.

import { type PurgeList, REFRESH_MS } from './purge-rules.ts';

/**
 * Workers KV: "changes may take up to 60 seconds or more to be visible in other locations"
 * (developers.cloudflare.com/kv/concepts/how-kv-works/): a typical figure, not a bound KV guarantees.
 */
export const KV_PROPAGATION_MS = 60_000;
/** How long the records take to put a purge in force everywhere: KV's propagation, then an isolate's next re-read. */
export const RECORDS_REACH_MS = KV_PROPAGATION_MS + REFRESH_MS;
/** What the purge answer states of the records: a typical time, as KV states its own (BOUND_KIND). */
export const REACHES_EVERY_LOCATION_WITHIN = `${RECORDS_REACH_MS / 1000}s`;

/**
 * Instant Purge: "the new Instant Purge pipeline performs consistently under 150 ms" for every purge method on
 * every plan (Cloudflare's announcement of 2025-04-01, "all purge methods now available to all customers",
 * blog.cloudflare.com/tag/speed-and-reliability/; developers.cloudflare.com/cache/how-to/purge-cache/:
 * "Instant Purge ensures that updates to your content are reflected immediately"). Cloudflare's figure, a typical
 * one rather than a guarantee; docs/purge.md says so.
 */
export const PLATFORM_REACHES_EVERY_LOCATION_WITHIN = '150ms';

/**
 * What kind of figure every bound in the purge answer is (its `bound` field, beside `reachesEveryLocationWithin`):
 * `typical`, because each rests on a time the platform gives as typical ("up to 60 seconds or more"; "under 150ms on
 * average (P50)") and guarantees none; the answer says so rather than promise a hard bound.
 */
export const BOUND_KIND = 'typical' as const;

/** What the records' bound rests on, as the platform states it (the answer's `boundBasis`). */
export const RECORDS_BOUND_BASIS = `Workers KV: changes "may take up to 60 seconds or more to be visible in other locations" (https://developers.cloudflare.com/kv/concepts/how-kv-works/), then each isolate's re-read every ${REFRESH_MS / 1000}s`;

/** What the platform's bound rests on, as Cloudflare states it. */
export const PLATFORM_BOUND_BASIS =
  'Cloudflare Instant Purge: "less than 150ms on average (P50)" (https://blog.cloudflare.com/instant-purge/); "updates to your content are reflected immediately" (https://developers.cloudflare.com/cache/how-to/purge-cache/)';

/** A layer that may hold a copy of an object, as the purge answer names it (docs/purge.md "Paths"). */
export type PurgeLayer = 'edge memory' | 'edge Cache API' | 'shield Cache API';

/**
 * What the platform's zone purge reaches: the edge's Cache API entries in every location, by the tags they carry and
 * by prefix. Not an isolate's memory: the platform purges its caches, not what a Worker holds in its own heap, and
 * isolates share nothing faster than KV; nor the shield's Cache API, keyed by the origin (docs/purge.md "Paths").
 */
export const PLATFORM_REACHES: readonly PurgeLayer[] = ['edge Cache API'];

/** What the records reach: every copy a tier looks up, each lookup checked against them; memory only when it is on. */
export function recordsReach(memoryLayer: boolean): PurgeLayer[] {
  return [...(memoryLayer ? (['edge memory'] as const) : []), 'edge Cache API', 'shield Cache API'];
}

/**
 * The bound the answer states for the whole purge: the platform's only when it took the purge and the edge's memory
 * layer is off, else the records'. With the memory layer on, any edge isolate may hold a copy in memory and answer it
 * as a fresh hit until its next re-read of the records: the platform's bound does not cover it. The shield's Cache API
 * does not lower the bound: it answers no client, only an edge that missed, and deployed it holds nothing (a Worker
 * with no route has no functional Cache API: docs/deploying.md "What each cache holds"); the edge's purge watermark
 * covers the rest (docs/purge.md "Paths").
 */
export function purgeBound(platformTook: boolean, memoryLayer: boolean): string {
  return platformTook && !memoryLayer ? PLATFORM_REACHES_EVERY_LOCATION_WITHIN : REACHES_EVERY_LOCATION_WITHIN;
}

/** What the whole purge's bound (purgeBound) rests on, as the platform states it. */
export function purgeBoundBasis(platformTook: boolean, memoryLayer: boolean): string {
  return platformTook && !memoryLayer ? PLATFORM_BOUND_BASIS : RECORDS_BOUND_BASIS;
}

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
