// The segments this shield isolate prefetched (shield/segment-prefetch.ts), and what became of each: read by a client
// here within its window (used), or not (wasted: origin egress nobody asked for by then), counted until the next stats
// flush takes them (record-sinks.ts), as the hedges are: the stats store adds them per minute, the page shows and
// prices them (docs/costs.md). The time is handed in: the shield's clock, which its tests move.

import { noPrefetches, type PrefetchCounts } from '../stats/store-operations.ts';

/**
 * Prefetched segments awaiting a read, at most: past it the oldest is counted wasted at once. A window is a few segment
 * durations, so an isolate prefetching its limit (prefetch-budget.ts: 600 a minute) awaits far fewer.
 */
const PENDING_LIMIT = 4096;
/** How often the pending ones are looked over for those whose window has passed. */
const EXPIRE_EVERY_MS = 1000;

interface Pending {
  bytes: number;
  /** Unread by then, it was wasted. */
  until: number;
}

export class PrefetchTally {
  #counts = noPrefetches();
  readonly #pending = new Map<string, Pending>();
  #expiredAt = Number.NEGATIVE_INFINITY;

  /** A prefetch fetched `bytes` of `key` from the origin and stored them at `now`; a client read within `windowMs` uses it. */
  stored(key: string, bytes: number, now: number, windowMs: number): void {
    this.#counts.prefetched += 1;
    this.#counts.prefetchBytes += bytes;
    const before = this.#pending.get(key);
    if (before !== undefined) this.#waste(key, before);
    this.#pending.set(key, { bytes, until: now + windowMs });
    const oldest = this.#pending.keys().next().value;
    if (this.#pending.size > PENDING_LIMIT && oldest !== undefined)
      this.#waste(oldest, this.#pending.get(oldest) ?? { bytes: 0, until: now });
  }

  /** A client read `key` at `now`: a prefetch of it awaiting that read is used (or wasted, its window past). */
  read(key: string, now: number): void {
    const pending = this.#pending.get(key);
    if (pending === undefined) return;
    if (now > pending.until) {
      this.#waste(key, pending);
      return;
    }
    this.#pending.delete(key);
    this.#counts.prefetchesUsed += 1;
  }

  /** Those whose window has passed by `now`, counted wasted (looked over at most every EXPIRE_EVERY_MS). */
  expire(now: number): void {
    if (now - this.#expiredAt < EXPIRE_EVERY_MS) return;
    this.#expiredAt = now;
    for (const [key, pending] of this.#pending) if (now > pending.until) this.#waste(key, pending);
  }

  /** The counts since the last take, and a fresh start (those awaiting a read stay pending). */
  take(): PrefetchCounts {
    const counts = this.#counts;
    this.#counts = noPrefetches();
    return counts;
  }

  #waste(key: string, pending: Pending): void {
    this.#pending.delete(key);
    this.#counts.prefetchesWasted += 1;
    this.#counts.prefetchWastedBytes += pending.bytes;
  }
}

/** This isolate's prefetches (module state, declared: one tally per isolate, its counts emptied at each flush). */
export const isolatePrefetches = new PrefetchTally();
