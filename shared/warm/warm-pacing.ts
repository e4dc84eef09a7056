// How a warm is paced (docs/warming.md "Budget and pacing"): a call starts at most WARM_URLS_PER_CALL of its list's
// targets, a few at once, none once its subrequests or its time are spent, and answers where the next call starts. A
// warm of MAX_WARM_URLS is then that many calls in turn, each within Cloudflare's limits for one invocation. Pure: the
// costs named once, the ledger a call keeps, and the pool that runs what it is handed.

import { SIMULTANEOUS_CONNECTIONS } from '../config/platform-limits.ts';
import { FETCH, LOOKUP, PUT, SLICE_READ } from '../slices/subrequest-costs.ts';
import type { WarmTier } from './warm-request.ts';

/**
 * Targets one call starts at most. At the shield's pace (one origin round trip each, six at once) a call of this many
 * answers within seconds, well inside WARM_CALL_MS, so a client's connection never waits minutes for a report.
 */
export const WARM_URLS_PER_CALL = 250;
/**
 * After this long a call starts no more targets (those started finish), and its answer says where the next call starts:
 * the answer comes in bounded time whatever the origin's pace, long before a proxy in front gives the connection up.
 */
export const WARM_CALL_MS = 20_000;
/**
 * Subrequests a call keeps for itself before its targets: the purge list's read (KV) and its own answer's work. The rest
 * of SUBREQUEST_LIMIT is the targets' and the playlists'.
 */
export const WARM_CALL_RESERVE = 16;
/** Playlists one call reads at most: the prefixes' own, and a master playlist's renditions. */
export const MAX_PLAYLISTS = 64;

/**
 * Targets warmed at once. Each warm of the shield holds one of the invocation's connections until the shield's answer
 * (SIMULTANEOUS_CONNECTIONS: six; more are queued by the runtime, never refused); warming both tiers, a target also
 * reads through the edge's cache and holds two, so half as many go at once.
 */
export const WARM_CONCURRENCY: Readonly<Record<WarmTier, number>> = {
  shield: SIMULTANEOUS_CONNECTIONS.value,
  both: Math.floor(SIMULTANEOUS_CONNECTIONS.value / 2),
};

/**
 * What warming one target at the shield costs the edge's invocation: one call over the service binding. The shield
 * reads it in an invocation of its own, with its own subrequests (docs/warming.md).
 */
export const SHIELD_WARM_COST = FETCH;

/**
 * At most what the edge's own read of an object of `size` bytes costs (warming both tiers): its lookup and manifest,
 * then each slice read through the caches (SLICE_READ); an object not sliced costs less (a lookup, a fetch, its put).
 */
export function edgeReadCost(size: number, sliceSize: number): number {
  const slices = Math.max(1, Math.ceil(size / sliceSize));
  return LOOKUP + PUT + slices * SLICE_READ;
}

/** What reading one playlist costs the edge: a call to the shield, or (both tiers) its read through the edge's cache. */
export function playlistCost(tier: WarmTier): number {
  return tier === 'shield' ? FETCH : LOOKUP + FETCH + PUT;
}

/** A call's budget as it spends it: subrequests left, and when it stops starting targets. */
export class WarmLedger {
  /** The subrequests the call may spend on playlists and targets (SUBREQUEST_LIMIT less WARM_CALL_RESERVE). */
  readonly subrequests: number;
  /** When the call stops starting targets (ms, on `now`'s clock). */
  private readonly deadline: number;
  private readonly now: () => number;
  private spent = 0;

  constructor(subrequests: number, deadline: number, now: () => number) {
    this.subrequests = subrequests;
    this.deadline = deadline;
    this.now = now;
  }

  /** A call of SUBREQUEST_LIMIT `limit`, started at `started`. */
  static forCall(limit: number, started: number, now: () => number): WarmLedger {
    return new WarmLedger(Math.max(0, limit - WARM_CALL_RESERVE), started + WARM_CALL_MS, now);
  }

  /** Subrequests spent so far. */
  get used(): number {
    return this.spent;
  }

  /** Spends `cost` if the budget holds it: whether it did (nothing is spent when it does not). */
  charge(cost: number): boolean {
    if (this.spent + cost > this.subrequests) return false;
    this.spent += cost;
    return true;
  }

  /** Whether another target may start: there is time left, and `cost` (its least) fits. */
  mayStart(cost: number): boolean {
    return this.now() < this.deadline && this.spent + cost <= this.subrequests;
  }
}

/** What warming one target came to, as the pool sees it: done, or put off to the next call (its cost did not fit). */
export type Paced = 'done' | 'deferred';

/**
 * Warms `from` onwards, up to `end` (exclusive) and at most WARM_URLS_PER_CALL of them, `concurrency` at once, in
 * order; starts none once `mayStart` says no or one was deferred. Answers where the next call starts: the first target
 * not started or deferred (`end`: all done). A target started after one that was deferred is warmed all the same, and
 * warmed again by the next call (a hit then).
 */
export async function warmPaced(
  from: number,
  end: number,
  concurrency: number,
  mayStart: () => boolean,
  warm: (index: number) => Promise<Paced>,
): Promise<number> {
  const last = Math.min(end, from + WARM_URLS_PER_CALL);
  let nextIndex = from;
  let deferred = Number.POSITIVE_INFINITY;
  const worker = async (): Promise<void> => {
    while (nextIndex < last && deferred === Number.POSITIVE_INFINITY && mayStart()) {
      const index = nextIndex++;
      if ((await warm(index)) === 'deferred') deferred = Math.min(deferred, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return Math.min(deferred, nextIndex);
}
