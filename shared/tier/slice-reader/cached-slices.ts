// A tier's slices of one object version, in the tier's own cache (the SliceStore port): each a complete 200 at a
// key naming the version (slice-plan.ts sliceKey), checked on the way out to be the slice asked for.

import { retention } from '../../http/stale.ts';
import { isSliceEntry, type ObjectMeta, sliceEntryHeaders, type WHOLE_COPY } from '../../slices/object-meta.ts';
import { sliceKey } from '../../slices/slice-plan.ts';
import type { EntryMeta } from '../../store/stored-entry.ts';
import { nativeBody } from '../../streams/native-body.ts';
import { type Claim, claim, claimOrWait } from '../collapse.ts';

import { admits, lookup, openPut, remove, type Storable, storeNatively, type TierCache } from '../tier-cache.ts';
import type { SliceStore } from './ports.ts';

/**
 * The body stored at `key` if it is the part asked for (slice `index`, or the whole copy) with
 * exactly `length` bytes by its headers and by the length it was counted at when stored;
 * anything else there is left unread. The body itself is counted by whoever reads it.
 */
export async function storedPart(
  cache: TierCache,
  key: string,
  index: number | typeof WHOLE_COPY,
  length: number,
): Promise<ReadableStream<Uint8Array> | undefined> {
  const found = await lookup(cache, key);
  if (found === undefined) return undefined;
  if (
    found.body === null ||
    !isSliceEntry(found.headers, index, length) ||
    (found.length !== undefined && found.length !== length)
  ) {
    await found.body?.cancel();
    return undefined;
  }
  return found.body as ReadableStream<Uint8Array>;
}

/**
 * This tier's slices of `meta`'s version. `entry` is the timing they are stored with (the
 * manifest's); undefined when the object may not be stored, so nothing is looked up or kept.
 * Stored slices are counted as they are read (byte-stream.ts, fill.ts); one that reads short or
 * long is forgotten, and the read fails rather than pass on a shifted byte.
 */
export function tierSlices(
  cache: TierCache,
  objectKey: string,
  meta: ObjectMeta,
  entry: EntryMeta | undefined,
  waitUntil: (promise: Promise<unknown>) => void,
  collapseWait: number,
): SliceStore {
  const key = (index: number): string => sliceKey(objectKey, meta, meta.sliceSize, index);
  /** Slices this request missed and is now the one to fetch and store (collapse.ts). */
  const claims = new Map<number, Claim>();
  const release = (index: number): void => {
    claims.get(index)?.release();
    claims.delete(index);
  };
  const stored = (index: number, length: number): Promise<ReadableStream<Uint8Array> | undefined> =>
    storedPart(cache, key(index), index, length);
  // However a put ends, others waiting for this slice may go on once it has.
  const ended = (index: number, settling: Promise<boolean>): Promise<boolean> => {
    const settled = settling.finally(() => release(index));
    waitUntil(settled);
    return settled;
  };
  return {
    storing: entry !== undefined,
    async get(index, length) {
      if (entry === undefined) return undefined;
      // Another request of this isolate fetching the same slice: wait for it rather than fetch again.
      const claimed = await claimOrWait(key(index), () => stored(index, length), collapseWait);
      if (claimed.found !== undefined) return nativeBody(claimed.found);
      claims.set(index, claimed.claim);
      return undefined;
    },
    open(index, length) {
      if (entry === undefined || !admits(cache, key(index), sliceEntry(entry, index, length))) return undefined;
      const put = openPut(cache, key(index), sliceEntry(entry, index, length));
      return {
        write: (bytes) => put.write(bytes),
        close: () => ended(index, put.close()),
        abort: (reason) => ended(index, put.abort(reason)),
      };
    },
    put(index, length, body, signal) {
      if (entry === undefined || !admits(cache, key(index), sliceEntry(entry, index, length))) {
        void body.cancel().catch(() => undefined);
        return Promise.resolve(false);
      }
      return ended(index, storeNatively(cache, key(index), { ...sliceEntry(entry, index, length), body }, signal));
    },
    async read(index, length) {
      if (entry === undefined) return undefined;
      const found = await stored(index, length);
      return found === undefined ? undefined : nativeBody(found);
    },
    forget(index) {
      waitUntil(remove(cache, key(index)).catch(() => false));
    },
    claim(index) {
      if (entry !== undefined && !claims.has(index)) claims.set(index, claim(key(index)));
    },
    release,
  };
}

/**
 * Slice `index` of `length` bytes as stored: a complete 200, kept as long as its manifest (and its stale and keep
 * windows), whose timing it is stored with: a manifest refreshed by a 304 goes on using the slices of its version.
 */
function sliceEntry(
  entry: EntryMeta,
  index: number,
  length: number,
): Omit<Storable, 'body' | 'fill'> & { length: number } {
  return {
    status: 200,
    headers: sliceEntryHeaders(index, length),
    meta: entry,
    retention: retention(entry.lifetime, entry.initialAge, entry),
    length,
  };
}
