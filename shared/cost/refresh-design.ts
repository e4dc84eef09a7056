// How the isolates learn of purges and where their stats go, and the KV and Durable Object operations a month of traffic
// makes under each way (docs/costs.md "Operations per isolate per interval"). Each design is a value: the default model
// (traffic-mix.ts) prices DEPLOYED_DESIGN, the code that runs; the scale grid (scale-model.ts) sets BEFORE beside it.
// The counts per step priced here: shared/purge/README.md "The head".

import { KV_WRITES_PER_KEY_PER_SECOND } from '../config/platform-limits.ts';
import { KV_PROPAGATION_MS } from '../purge/purge-bounds.ts';
import { HEAD_SETTLE_MS, SAFETY_LIST_MS, SHARE_MS } from '../purge/purge-head.ts';
import { FLUSH_STORAGE, operationsPerPeriod } from './platform-operations.ts';
import type { Operations, Traffic } from './usage.ts';

/**
 * Who reads the purge head key (one KV get) at a tier: nobody (no head key), each location (its isolates share the last
 * read through the Cache API), or each isolate (where the Cache API keeps nothing: a *.workers.dev hostname, and the
 * shield, a Worker without a route, whose Cache API is not documented to work: docs/deploying.md "What each cache holds").
 */
type HeadReaders = 'none' | 'location' | 'isolate';

/** How often an isolate flushes its stats (STATS_FLUSH_MS) and re-reads the purge list (REFRESH_MS). */
export interface Intervals {
  flushMs: number;
  refreshMs: number;
}

/**
 * Locations an edge's isolates spread over at most: an assumption (Cloudflare runs in over 300 cities; how many of them
 * serve a given Worker, and with how many machines each, is Cloudflare's to decide and not published). Below it, each
 * edge isolate is taken to be in a location of its own: none shares a read of the head, the costlier case.
 */
export const EDGE_LOCATIONS_MAX = 300;

/** How the isolates learn of purges and where their stats go. */
export interface RefreshDesign {
  name: string;
  headReaders: { edge: HeadReaders; shield: HeadReaders };
  /** When an isolate lists the purge namespace (one KV list): every refresh, or only when the head says so. */
  listing: 'every-refresh' | 'on-head-change';
  /**
   * How old a location's shared read of the head its isolates take (SHARE_MS): a location reads KV at most once per this
   * (24 gets a minute), and never more often than its isolates re-read.
   */
  shareMs?: number;
  /**
   * How long after a head's time an isolate that sees it at once keeps listing at each of its re-reads: until its list is
   * complete past the head's time and HEAD_SETTLE_MS, its horizon being the read's time less KV's propagation.
   */
  settleListMs?: number;
  /** A safety list each isolate makes at most this often whatever the head says (SAFETY_LIST_MS); undefined = none. */
  safetyListMs?: number;
  /** Durable Objects the stats batches spread over (each isolate flushes to one of them). */
  statsShards: number;
}

/** Before the purge head key: every isolate lists the purge namespace every REFRESH_MS it serves; one stats object for everything. */
export const BEFORE: RefreshDesign = {
  name: 'before',
  headReaders: { edge: 'none', shield: 'none' },
  listing: 'every-refresh',
  statsShards: 1,
};

/**
 * The code that runs: a head key written with each purge batch, read with a get once per location per
 * SHARE_MS at the edge (shared through the Cache API), by each isolate at the shield; a list while the head changed or
 * settles, and once a minute; the stats batches spread over 16 Durable Objects (shield/stats-store.ts).
 */
export const AFTER: RefreshDesign = {
  name: 'after',
  headReaders: { edge: 'location', shield: 'isolate' },
  listing: 'on-head-change',
  shareMs: SHARE_MS,
  settleListMs: KV_PROPAGATION_MS + HEAD_SETTLE_MS,
  safetyListMs: SAFETY_LIST_MS,
  statsShards: 16,
};

/** The after design where the Cache API keeps nothing at either tier (workers.dev): each isolate reads the head. */
export const AFTER_WITHOUT_CACHE_API: RefreshDesign = {
  ...AFTER,
  name: 'after, workers.dev',
  headReaders: { edge: 'isolate', shield: 'isolate' },
};

/**
 * What `npm run cost`, its examples and docs/costs.md price: the design the code runs.
 * @alias AFTER, named for what it is (so not a duplicate export)
 */
export const DEPLOYED_DESIGN = AFTER;

/**
 * KV writes per purge request besides its batch and the head: every SNAPSHOT_AFTER (50, shared/purge/purge-snapshot.ts)
 * batches the recording isolate writes its list as a snapshot and deletes the one it supersedes (a delete is billed as a
 * write). The same in both designs.
 */
export const SNAPSHOT_WRITES_PER_PURGE = 2 / 50;

/** One tier's month: the invocations that read the purge list, the records it flushes, where it runs. */
export interface TierLoad {
  tier: 'edge' | 'shield';
  /** Invocations that read the purge list (at the shield, the copy of each slice read ahead among them). */
  requests: number;
  /** Requests whose records are flushed to the stats. */
  flushed: number;
  isolates: number;
  locations: number;
}

/** A month of `traffic` as each tier's load, the isolates and locations given. */
export function tierLoads(
  traffic: Traffic,
  isolates: { edge: number; shield: number },
  locations: { edge: number; shield: number },
): TierLoad[] {
  const edgeRequests =
    traffic.edge.memoryHits.requests +
    traffic.edge.cacheHits.requests +
    traffic.edge.misses.requests +
    traffic.edge.other.requests;
  const shieldRecords = traffic.shield.hits.requests + traffic.shield.misses.requests + traffic.shield.other.requests;
  return [
    { tier: 'edge', requests: edgeRequests, flushed: edgeRequests, isolates: isolates.edge, locations: locations.edge },
    {
      tier: 'shield',
      // Every shield invocation reads the list, the copy of a slice read ahead among them.
      requests: shieldRecords + traffic.sliceRequests,
      flushed: shieldRecords,
      isolates: isolates.shield,
      locations: locations.shield,
    },
  ];
}

/**
 * The operations `tiers` make over `periodMs` under `design`, with `purges` purge requests. Flushes are the same in
 * every design (one per isolate per STATS_FLUSH_MS at most, to whichever shard). The purge list:
 * - every-refresh: each isolate lists every REFRESH_MS it serves (operationsPerPeriod's reread);
 * - on-head-change: the head is read with a get by each reader (a location at most once per SHARE_MS, never more often
 *   than its isolates re-read; or each isolate at each re-read); each isolate lists at each re-read while a head change
 *   settles (the head taken as seen at once everywhere, the costlier case: up to ⌈62 s / 5 s⌉ + 1 = 14 lists a change
 *   for a busy isolate, one for a quiet one), and once per safety interval; never more than once per re-read.
 * KV writes: a batch per purge and its share of snapshots, and after, the head, at most once a second (KV's per-key
 * limit).
 */
export function refreshOperations(
  tiers: readonly TierLoad[],
  periodMs: number,
  purges: number,
  design: RefreshDesign,
  intervals: Intervals,
): { operations: Operations; kvWrites: number } {
  const reread = (tier: TierLoad, readers: number, interval: number): number =>
    operationsPerPeriod('reread', tier.requests, periodMs, readers, interval);
  const headed = design.listing === 'on-head-change';
  const headWrites = headed ? Math.min(purges, (periodMs / 1000) * KV_WRITES_PER_KEY_PER_SECOND.value) : 0;
  let flushes = 0;
  let kvLists = 0;
  let kvReads = 0;
  for (const tier of tiers) {
    flushes += operationsPerPeriod('flush', tier.flushed, periodMs, tier.isolates, intervals.flushMs);
    const refreshes = reread(tier, tier.isolates, intervals.refreshMs);
    const readers = design.headReaders[tier.tier];
    kvReads +=
      readers === 'isolate'
        ? refreshes
        : readers === 'location'
          ? Math.min(refreshes, reread(tier, tier.locations, design.shareMs ?? intervals.refreshMs))
          : 0;
    if (!headed) {
      kvLists += refreshes;
      continue;
    }
    const safety = design.safetyListMs === undefined ? 0 : reread(tier, tier.isolates, design.safetyListMs);
    const perChange = listsPerHeadChange(tier, periodMs, design.settleListMs ?? 0, intervals.refreshMs);
    kvLists += Math.min(refreshes, safety + headWrites * tier.isolates * perChange);
  }
  return {
    operations: {
      flushes,
      durableObjectRowsRead: flushes * FLUSH_STORAGE.rowsRead,
      durableObjectRowsWritten: flushes * FLUSH_STORAGE.rowsWritten,
      kvLists,
      kvReads,
    },
    kvWrites: purges * (1 + SNAPSHOT_WRITES_PER_PURGE) + headWrites,
  };
}

/**
 * Lists one isolate of `tier` makes for one head change: one at the re-read that sees it, then one at each re-read
 * within `settleMs` (a re-read every REFRESH_MS + 1/λ on average), at most ⌈settleMs / REFRESH_MS⌉ + 1.
 */
export function listsPerHeadChange(tier: TierLoad, periodMs: number, settleMs: number, refreshMs: number): number {
  if (!(tier.requests > 0) || !(tier.isolates > 0) || !(periodMs > 0)) return 0;
  const perMs = tier.requests / periodMs / tier.isolates;
  const cycleMs = refreshMs + 1 / perMs;
  return Math.min(Math.ceil(settleMs / refreshMs) + 1, 1 + settleMs / cycleMs);
}
