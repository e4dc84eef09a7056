// The isolate's read-ahead pool, shared by every read of the isolate (module state: each tier is its own
// isolate, with its own pool), and the shares of it one read holds.

import type { ReadaheadPool, UrgentRequests } from './ports.ts';

const pool: ReadaheadPool = { limit: 0, inUse: 0 };

/**
 * This isolate's pool for a tier reading `window` slices at a time: one window's worth ahead in all.
 * Slices started ahead of their reader (not the one each reader needs next) count against it, a
 * share held while its slice is on its way into the store (or until its reader takes it): so N cold
 * downloads in one isolate share one window of fetches, and each still has its next slice.
 */
export function isolateReadahead(window: number): ReadaheadPool {
  pool.limit = Math.max(0, window - 1);
  return pool;
}

/** The shares of a pool one read holds, by slice; without a pool, every share is granted and none counted. */
export class PoolShares {
  private readonly pool: ReadaheadPool | undefined;
  private readonly held = new Set<number>();

  constructor(pool: ReadaheadPool | undefined) {
    this.pool = pool;
  }

  /** A share for slice `index`, started ahead of its reader: false when the pool has none left. */
  take(index: number): boolean {
    if (this.pool === undefined) return true;
    if (this.pool.inUse >= this.pool.limit) return false;
    this.pool.inUse++;
    this.held.add(index);
    return true;
  }

  /** Slice `index` is no longer ahead of its reader on the way: its share, if it holds one, goes back. */
  giveBack(index: number): void {
    if (this.held.delete(index) && this.pool !== undefined) this.pool.inUse--;
  }
}

/**
 * Longest a slice ahead of its reader waits for the isolate's urgent requests (Urgency) before it goes upstream
 * regardless: a request stuck before its first byte (a slow origin) holds read-ahead back no longer. The edge's slices
 * read ahead (sources.ts) and the shield's warms (shield/slice-warm.ts) wait alike.
 */
export const URGENT_HOLD_MS = 250;

/**
 * The isolate's requests still waiting for their answer's first byte. Read-ahead waits for them (at most a bound), so
 * a new download is never queued behind slices read ahead for another (module state: one per isolate).
 */
export class Urgency implements UrgentRequests {
  private waiting = 0;
  private wakers: (() => void)[] = [];

  /** A request starts waiting for its first byte; the function returned says it has it (once). */
  begin(): () => void {
    this.waiting++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--this.waiting > 0) return;
      const wakers = this.wakers;
      this.wakers = [];
      for (const wake of wakers) wake();
    };
  }

  /** Settles once nobody waits for a first byte, or after `maxMs`, whichever comes first. */
  clear(maxMs: number): Promise<void> {
    if (this.waiting === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, maxMs);
      this.wakers.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

/** This isolate's urgency, shared by every request of the tier. */
export const isolateUrgency = new Urgency();
