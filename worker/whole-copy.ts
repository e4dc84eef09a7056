// The edge's whole copy of a sliced object: one more entry beside its slices, keyed by the same version, holding
// every byte, so that a GET of every byte passes a stored body through instead of piping slices.

import { retention } from '../shared/http/stale.ts';
import { sliceEntryHeaders, WHOLE_COPY } from '../shared/slices/object-meta.ts';
import { sliceBytes, sliceCount, sliceKey, wholeCopyKey } from '../shared/slices/slice-plan.ts';
import { LOOKUP, PUT } from '../shared/slices/subrequest-costs.ts';
import { type Piece, rangesStream } from '../shared/streams/byte-stream.ts';
import { claim, isFilling } from '../shared/tier/collapse.ts';
import type { Budget, ObjectRead } from '../shared/tier/ports.ts';
import type { SlicedObject } from '../shared/tier/resolved.ts';
import { storedPart } from '../shared/tier/slice-reader/cached-slices.ts';
import { remove, store } from '../shared/tier/tier-cache.ts';

/**
 * The stored whole copy of `sliced`'s version, if this tier has one (one lookup). A GET of every byte (no Range, or a
 * browser's `bytes=0-`) is answered with it passed through untouched, as an object cached whole is, instead of its
 * slices piped one after another into one stream in JavaScript: in workerd that pipe costs a core at ~2 GB/s and,
 * under load, stalls now and then (bench/stream-stall.ts); a stored body passes through at well under half the CPU.
 * Other ranges still read slices.
 */
export async function storedWholeCopy(
  read: ObjectRead,
  sliced: SlicedObject,
  budget: Budget,
): Promise<ReadableStream<Uint8Array> | undefined> {
  if (budget.remaining < LOOKUP) return undefined;
  budget.remaining -= LOOKUP;
  const { meta } = sliced;
  // Handed to the client as it is: the point of the copy is the runtime's own pass-through.
  return storedPart(read.cache, wholeCopyKey(read.key, meta, meta.sliceSize), WHOLE_COPY, meta.size);
}

/**
 * Starts storing the whole copy of `sliced` from this tier's slices, unless one is under way or the budget is short;
 * once a full read from them is over. Called only for objects up to WHOLE_COPY_MAX, once this tier has served a full
 * read whose every slice came from its own store (serve-object.ts); the slices are read again and each counted, in the
 * background, one at a time per version and isolate, and nothing is kept unless every slice is there and every byte
 * of the object arrives.
 */
export function copyWhole(read: ObjectRead, sliced: SlicedObject, budget: Budget): void {
  const { meta, entry } = sliced;
  if (entry === undefined) return;
  const count = sliceCount(meta.size, meta.sliceSize);
  const key = wholeCopyKey(read.key, meta, meta.sliceSize);
  // A lookup per slice and the put (the read that asked for it is over).
  const cost = count * LOOKUP + PUT;
  if (budget.remaining < cost || isFilling(key)) return;
  budget.remaining -= cost;
  const filling = claim(key);
  // Every slice counted as it is read, and the copy as it is stored: a slice gone, short or
  // long errors the body, and nothing is kept.
  const body = rangesStream(
    storedSlices(read, sliced, count),
    [{ start: 0, end: meta.size - 1 }],
    [],
    undefined,
    meta.size,
  );
  const put = store(read.cache, key, {
    status: 200,
    headers: sliceEntryHeaders(WHOLE_COPY, meta.size),
    body,
    meta: entry,
    retention: retention(entry.lifetime, entry.initialAge, entry),
    length: meta.size,
  });
  read.waitUntil(put.finally(() => filling.release()));
}

/** The version's slices as this tier stores them, looked up one at a time as the copy reaches them. */
function storedSlices(read: ObjectRead, sliced: SlicedObject, count: number): AsyncIterator<Piece> {
  const { meta } = sliced;
  let index = 0;
  return {
    async next() {
      if (index >= count) return { done: true, value: undefined };
      const bytes = sliceBytes(index, meta.sliceSize, meta.size);
      const length = bytes.end - bytes.start + 1;
      const key = sliceKey(read.key, meta, meta.sliceSize, index);
      const body = await storedPart(read.cache, key, index, length);
      if (body === undefined) throw new Error(`slice ${index} is no longer stored here: no whole copy`);
      index++;
      // A slice that reads wrong is forgotten; the copy, already failing, keeps nothing.
      return {
        done: false,
        value: { offset: bytes.start, length, body, onInexact: () => void remove(read.cache, key).catch(() => false) },
      };
    },
  };
}
