// The R2 tier's entries removed once they stop paying, or once a purge has reached them: each carries the end of the
// retention its admission gave it and what the read path stored it with (r2-cache.ts, its custom metadata), and R2's
// lifecycle rules delete only by age and prefix (developers.cloudflare.com/r2/buckets/object-lifecycles/), so the tier
// keeps this index of its own and walks it: a page of its listing at a time, at most once per SWEEP_EVERY_MS per
// isolate, deleting what has expired and what the purge list says is purged (a hard purge: a soft one leaves the entry
// to be revalidated). A lookup never serves either whether or not the walk has reached it (r2-cache.ts match; the read
// path's purge check): the walk frees what nobody asks for again, so a purge stops costing its storage. Past
// MAX_RETENTION_S a lifecycle rule on the prefix is the backstop.

import { R2_SWEEP_EVERY_MS } from '../../shared/cost/platform-operations.ts';
import { type PurgeList, purgedBy } from '../../shared/purge/purge-rules.ts';
import { expiryOf, listedEntry, R2_PREFIX, type R2Listed, type R2Store } from './r2-cache.ts';

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
 * One page of the walk when one is due at `now` (ms epoch): the entries of it expired or purged by the list `purges`
 * reads (none when absent) deleted (a call per SWEEP_PAGE keys; deletes are free), the cursor moved on, back to the start at the
 * listing's end. Resolves with the keys deleted; never rejects (a walk that fails is tried again when the next is due).
 */
export async function sweep(
  bucket: R2Store,
  state: SweepState,
  now: number,
  purges?: () => Promise<PurgeList>,
): Promise<string[]> {
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
    const purged = purges === undefined ? () => [] : purgedOf(await purges());
    const gone = [
      ...new Set(
        page.objects.flatMap((object) =>
          (expiryOf(object.customMetadata) ?? Number.NEGATIVE_INFINITY) <= now ? [object.key] : purged(object),
        ),
      ),
    ];
    // R2 deletes up to 1,000 keys a call (developers.cloudflare.com/r2/api/workers/workers-api-reference/).
    for (let at = 0; at < gone.length; at += SWEEP_PAGE) await bucket.delete(gone.slice(at, at + SWEEP_PAGE));
    return gone;
  } catch {
    return [];
  } finally {
    state.running = false;
  }
}

/**
 * The keys a listed entry that `list` purged takes with it, judged by its target and what it was stored with, as a
 * lookup would: itself, and a manifest its version's slices (a tag purge names the object, whose slices carry no tags);
 * none when it is not purged.
 */
function purgedOf(list: PurgeList): (object: R2Listed) => string[] {
  // By its records alone, not by what the list vouches for: an isolate whose reads of the list fail counts everything
  // older than a minute as purged until a read succeeds (docs/purge.md "When KV cannot be read"), which a lookup may
  // act on (it fetches the object again), but the walk must not: it would empty the persistent tier of what nobody
  // asked for during a KV outage. Past the records' own bound, an entry has expired (MAX_RETENTION_S) anyway.
  const records = { records: list.records, vouchedSince: Number.NEGATIVE_INFINITY };
  return (object) => {
    const entry = listedEntry(object);
    if (entry === undefined || !purgedBy(records, entry.target)(entry.candidate)) return [];
    return [object.key, ...entry.slices];
  };
}
