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
const WARM_CALL_RESERVE = 16;
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

/** What paying for a part of a target came to: paid; too much for what is left (the next call pays); too much ever. */
export type Payment = 'spent' | 'later' | 'never';

/**
 * A call's budget as it spends it: subrequests (its list's playlists first, then its targets), and when it stops
 * starting targets. What the list cost, every call of the warm pays again: a target costing more than the rest can
 * never be paid for, and is said so rather than put off for ever.
 */
export class WarmLedger {
  /** The subrequests the call may spend on playlists and targets (SUBREQUEST_LIMIT less its reserve). */
  readonly subrequests: number;
  /** When the call stops starting targets (ms, on `now`'s clock). */
  private readonly deadline: number;
  private readonly now: () => number;
  private spent = 0;
  private listed = 0;

  constructor(subrequests: number, deadline: number, now: () => number) {
    this.subrequests = subrequests;
    this.deadline = deadline;
    this.now = now;
  }

  /**
   * A call of SUBREQUEST_LIMIT `limit`, started at `started`: WARM_CALL_RESERVE kept back, or half of a limit too small
   * for it (Workers Free's 50 leaves 34; the least SUBREQUEST_LIMIT, 10, leaves 5).
   */
  static forCall(limit: number, started: number, now: () => number): WarmLedger {
    const reserve = Math.min(WARM_CALL_RESERVE, Math.floor(limit / 2));
    return new WarmLedger(Math.max(0, limit - reserve), started + WARM_CALL_MS, now);
  }

  /** Subrequests spent so far. */
  get used(): number {
    return this.spent;
  }

  /** What the targets may spend at most, once the list is paid for. */
  get forTargets(): number {
    return this.subrequests - this.listed;
  }

  /** Pays for a part of the list (a playlist's read): whether the budget held it (nothing is spent when not). */
  charge(cost: number): boolean {
    if (this.spent + cost > this.subrequests) return false;
    this.spent += cost;
    return true;
  }

  /** The list is made: what it cost is paid by every call of this warm, and no target can have it. */
  listMade(): void {
    this.listed = this.spent;
  }

  /**
   * Pays `cost` for a part of a target of which `paid` is paid already: `never` when the two are more than any call
   * may spend on a target, `later` when they are more than this call has left (nothing is spent then).
   */
  pay(cost: number, paid = 0): Payment {
    if (paid + cost > this.forTargets) return 'never';
    if (this.spent + cost > this.subrequests) return 'later';
    this.spent += cost;
    return 'spent';
  }

  /** Whether another target may start: there is time left, and `cost` (its least) fits. */
  mayStart(cost: number): boolean {
    return this.now() < this.deadline && this.spent + cost <= this.subrequests;
  }
}

/** What warming one target came to, as the pool sees it: done, or put off to the next call (its cost did not fit). */
export type Paced = 'done' | 'deferred';

/**
 * Warms `from` onwards, up to `end` (exclusive) and at most WARM_URLS_PER_CALL of them, in order: the first alone, so
 * that whatever the others would spend it is paid for (a ledger that has paid for nothing but the list defers nothing:
 * WarmLedger.pay) and every call moves the list on; then `concurrency` at once, none started once `mayStart` says no
 * or one was deferred. Answers where the next call starts: the first target not started or deferred (`end`: all
 * done). A target started after one that was deferred is warmed all the same, and again by the next call (a hit then).
 */
export async function warmPaced(
  from: number,
  end: number,
  concurrency: number,
  mayStart: () => boolean,
  warm: (index: number) => Promise<Paced>,
): Promise<number> {
  if (from >= end) return end;
  if ((await warm(from)) === 'deferred') return from;
  const last = Math.min(end, from + WARM_URLS_PER_CALL);
  let nextIndex = from + 1;
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
