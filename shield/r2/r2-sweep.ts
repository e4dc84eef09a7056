// The R2 tier's entries removed once they stop paying: each carries the end of the retention its admission gave it
// (r2-cache.ts, its custom metadata), and R2's lifecycle rules delete only by age and prefix
// (developers.cloudflare.com/r2/buckets/object-lifecycles/), so the tier keeps this index of its own and walks it: a
// page of its listing at a time, at most once per SWEEP_EVERY_MS per isolate, deleting what has expired. A lookup never
// serves an expired entry whether or not the walk has reached it (r2-cache.ts match): the walk frees what nobody asks
// for again, which is what stopped paying. Past MAX_RETENTION_S a lifecycle rule on the prefix is the backstop.

import { R2_SWEEP_EVERY_MS } from '../../shared/cost/platform-operations.ts';
import { expiryOf, R2_PREFIX, type R2Store } from './r2-cache.ts';

/** One page of the listing a walk reads (R2 lists at most 1,000 keys a call; each call is a Class A operation). */
export const SWEEP_PAGE = 1000;
/** A page a minute per isolate at most (the cost model counts its lists by it). */
export const SWEEP_EVERY_MS = R2_SWEEP_EVERY_MS;

/** Where an isolate's walk is: the listing's cursor, and when it last read a page. */
export interface SweepState {
  cursor: string | undefined;
  lastAt: number | undefined;
  running: boolean;
}

export function newSweep(): SweepState {
  return { cursor: undefined, lastAt: undefined, running: false };
}

/**
 * One page of the walk when one is due at `now` (ms epoch): the expired entries of it deleted (one call; deletes are
 * free), the cursor moved on, back to the start at the listing's end. Resolves with the keys deleted; never rejects
 * (a walk that fails is tried again when the next is due).
 */
export async function sweepExpired(bucket: R2Store, state: SweepState, now: number): Promise<string[]> {
  if (state.running || (state.lastAt !== undefined && now - state.lastAt < SWEEP_EVERY_MS)) return [];
  state.running = true;
  state.lastAt = now;
  try {
    const page = await bucket.list({
      prefix: R2_PREFIX,
      limit: SWEEP_PAGE,
      include: ['customMetadata'],
      ...(state.cursor !== undefined ? { cursor: state.cursor } : {}),
    });
    state.cursor = page.truncated ? page.cursor : undefined;
    const expired = page.objects
      .filter((object) => (expiryOf(object.customMetadata) ?? Number.NEGATIVE_INFINITY) <= now)
      .map((object) => object.key);
    if (expired.length > 0) await bucket.delete(expired);
    return expired;
  } catch {
    return [];
  } finally {
    state.running = false;
  }
}
