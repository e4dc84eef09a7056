// A tier's slices of one object version, in the tier's own cache: each slice a complete 200 at
// a key naming the version (slice-plan.ts sliceKey), checked on the way out to be the slice
// asked for, with its exact length.

import { withLength } from './byte-stream.ts';
import { type ObjectMeta, isSliceEntry, sliceEntryHeaders } from './object-meta.ts';
import { sliceKey } from './slice-plan.ts';
import type { SliceStore } from './slice-reader.ts';
import type { EntryMeta } from './stored-entry.ts';
import { type TierCache, lookup, store } from './tier-cache.ts';

/**
 * `entry` is the timing the slices are stored with (the manifest's); undefined when the object
 * may not be stored, so nothing is looked up or kept.
 */
export function tierSlices(cache: TierCache, objectKey: string, meta: ObjectMeta, entry: EntryMeta | undefined, waitUntil: (promise: Promise<unknown>) => void): SliceStore {
  const key = (index: number): string => sliceKey(objectKey, meta, meta.sliceSize, index);
  return {
    async get(index, length) {
      if (entry === undefined) return undefined;
      const found = await lookup(cache, key(index));
      if (found === undefined) return undefined;
      if (found.body === null || !isSliceEntry(found.headers, index, length)) {
        await found.body?.cancel();
        return undefined;
      }
      return found.body;
    },
    put(index, length, body) {
      if (entry === undefined) {
        void body.cancel();
        return;
      }
      // Slices live as long as their manifest: a fresh manifest of the same version keeps using them.
      const retention = Math.max(1, entry.lifetime - entry.initialAge);
      // A known length: the platform cache stores a body of unknown length badly or not at all.
      const sized = withLength(body, length);
      waitUntil(store(cache, key(index), { status: 200, headers: sliceEntryHeaders(index, length), body: sized, meta: entry, retention }).catch(() => undefined));
    },
  };
}
