// A tier's slices of one object version, in the tier's own cache: each slice a complete 200 at
// a key naming the version (slice-plan.ts sliceKey), checked on the way out to be the slice
// asked for, with its exact length, and counted as it is read: a stored slice that reads short
// or long is deleted, and the read fails rather than pass on a shifted byte.

import { countedBody } from './counted-body.ts';
import { type ObjectMeta, type WHOLE_COPY, isSliceEntry, sliceEntryHeaders } from './object-meta.ts';
import { sliceKey } from './slice-plan.ts';
import { retention } from './stale.ts';
import type { SliceStore } from './slice-reader.ts';
import type { EntryMeta } from './stored-entry.ts';
import { type Claim, claim, claimOrWait } from './collapse.ts';
import { type TierCache, lookup, remove, store } from './tier-cache.ts';

/**
 * The body stored at `key` if it is the part asked for (slice `index`, or the whole copy) with
 * exactly `length` bytes, counted as it is read; anything else there is left unread. `raw`:
 * the stored body itself, for a caller that hands it to the client as it is (a whole copy:
 * its length was counted when it was stored and is checked against the platform's here).
 */
export async function storedPart(cache: TierCache, key: string, index: number | typeof WHOLE_COPY, length: number, raw = false): Promise<ReadableStream<Uint8Array> | undefined> {
  const found = await lookup(cache, key);
  if (found === undefined) return undefined;
  if (found.body === null || !isSliceEntry(found.headers, index, length) || (found.length !== undefined && found.length !== length)) {
    await found.body?.cancel();
    return undefined;
  }
  if (raw) return found.body as ReadableStream<Uint8Array>;
  return countedBody(found.body as ReadableStream<Uint8Array>, length, {
    // Not the bytes that were counted in: never again.
    onInexact: () => void remove(cache, key).catch(() => false),
  });
}

/**
 * `entry` is the timing the slices are stored with (the manifest's); undefined when the object
 * may not be stored, so nothing is looked up or kept.
 */
export function tierSlices(cache: TierCache, objectKey: string, meta: ObjectMeta, entry: EntryMeta | undefined, waitUntil: (promise: Promise<unknown>) => void, collapseWait: number): SliceStore {
  const key = (index: number): string => sliceKey(objectKey, meta, meta.sliceSize, index);
  /** Slices this request missed and is now the one to fetch and store (collapse.ts). */
  const claims = new Map<number, Claim>();
  const release = (index: number): void => {
    claims.get(index)?.release();
    claims.delete(index);
  };
  const stored = (index: number, length: number): Promise<ReadableStream<Uint8Array> | undefined> => storedPart(cache, key(index), index, length);
  return {
    storing: entry !== undefined,
    async get(index, length) {
      if (entry === undefined) return undefined;
      // Another request of this isolate fetching the same slice: wait for it rather than fetch again.
      const claimed = await claimOrWait(key(index), () => stored(index, length), collapseWait);
      if (claimed.found !== undefined) return claimed.found;
      claims.set(index, claimed.claim);
      return undefined;
    },
    put(index, length, body) {
      if (entry === undefined) {
        void body.cancel();
        return Promise.resolve(false);
      }
      // Slices are kept as long as their manifest (and its stale and keep windows): a manifest
      // refreshed by a 304 goes on using the slices of its version.
      const keep = retention(entry.lifetime, entry.initialAge, entry);
      const put = store(cache, key(index), { status: 200, headers: sliceEntryHeaders(index, length), body, meta: entry, retention: keep, length });
      waitUntil(put.finally(() => release(index)));
      return put;
    },
    claim(index) {
      if (entry !== undefined && !claims.has(index)) claims.set(index, claim(key(index)));
    },
    release,
  };
}
