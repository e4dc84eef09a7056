// The shield storing the slices the edge reads ahead (SliceRequest.warm): looked up, the missing ones fetched from the
// origin and stored, the answer's body one word once they are in (slice-protocol.ts warmWord).

import { warmWord } from '../shared/hop/slice-protocol.ts';
import { moveDeadlineMs } from '../shared/slices/move-deadline.ts';
import { sliceLength } from '../shared/slices/slice-plan.ts';
import { FETCH, LOOKUP, PUT, WARMED_SLICE } from '../shared/slices/subrequest-costs.ts';
import { identityPipe } from '../shared/streams/identity-pipe.ts';
import type { Budget, ObjectRead } from '../shared/tier/ports.ts';
import { cancelPrefetched, type SlicedObject } from '../shared/tier/resolved.ts';
import { tierSlices } from '../shared/tier/slice-reader/cached-slices.ts';
import { isolateUrgency, URGENT_HOLD_MS } from '../shared/tier/slice-reader/isolate-pool.ts';
import type { SliceStore } from '../shared/tier/slice-reader/ports.ts';
import { deadline } from '../shared/tier/slice-reader/read-ahead.ts';
import { pinnedSpans } from '../shared/tier/slice-reader/reader.ts';

/**
 * How often the answer's body says the shield is still at it, so that it hears when the edge is gone. Once its
 * headers are out, a request no longer reliably hears that its caller went away (workerd aborts `request.signal`
 * before; after, only at times), so the body beats (a `.`) while the slices are stored: a beat that cannot be written
 * means the edge is gone (its client left), and the slices not started yet are dropped (the one being fetched is
 * completed into the store).
 */
const HEARTBEAT_MS = 250;

export interface Warming {
  /** Of the slices looked up: how many were stored here already. */
  hits: number;
  checked: number;
  /** Of the slices missing here, how many it asks the origin for once the answer's headers are out. */
  fetching: number;
  /** The answer's body: its one word once the missing slices are stored (or not). */
  body: ReadableStream<Uint8Array>;
  /** The bytes of the slices stored here for the edge to copy, once they all are; undefined when they are not. */
  stored: Promise<number | undefined>;
}

/**
 * Looks `indices` up here, then fetches and stores those missing, saying how in the body. Each slice is looked up
 * first (another request fetching it is waited for), and the answer's headers go as soon as that is known, with the
 * Cache-Status of what was found, so the edge's request waits for its headers no longer than a lookup (what the
 * platform's connection limit counts). The slices missing are fetched pinned to the version the edge named and stored
 * by the runtime itself (no byte through JavaScript); the body's word is `stored <bytes from the origin>` or `failed`.
 * The edge then fetches each slice when its reader gets there: a hit here, streamed from the cache.
 */
export async function warmSlices(
  read: ObjectRead,
  sliced: SlicedObject,
  indices: readonly number[],
  budget: Budget,
  idleMs: number,
): Promise<Warming> {
  const { meta } = sliced;
  const store = tierSlices(read.cache, read.key, meta, sliced.entry, read.waitUntil, read.collapseWait);
  const missing: number[] = [];
  let possible = store.storing && budget.remaining >= WARMED_SLICE * indices.length;
  for (const index of possible ? indices : []) {
    budget.remaining -= LOOKUP;
    if (sliced.prefetched.has(index)) {
      // Fetched with discovery: this request is the one storing it; others wait for it.
      store.claim?.(index);
      missing.push(index);
      continue;
    }
    const found = await store.get(index, length(sliced, index));
    if (found === undefined) missing.push(index);
    else await found.cancel();
  }
  void cancelPrefetched(sliced, missing);
  possible &&= budget.remaining >= (FETCH + PUT) * missing.length;
  const pipe = identityPipe(undefined);
  const gone = new AbortController();
  const signal = read.signal === undefined ? gone.signal : AbortSignal.any([read.signal, gone.signal]);
  // The edge gone, the slices not started yet are dropped; the one being fetched is still stored (the cache's).
  const beat = new TextEncoder().encode('.');
  const beating = setInterval(
    () => void pipe.writer.write(beat).catch((error: unknown) => gone.abort(error)),
    HEARTBEAT_MS,
  );
  // The edge went away while the slices were stored (a beat it could not take), or they were stored first.
  const left = new Promise<{ departed: boolean }>((resolve) =>
    gone.signal.addEventListener('abort', () => resolve({ departed: true }), { once: true }),
  );
  const storing = possible
    ? fetchMissing({ ...read, signal }, sliced, store, missing, budget, idleMs).catch(() => undefined)
    : Promise.resolve(undefined);
  read.waitUntil(storing);
  read.bodyEnd?.(Promise.race([left, storing.then(() => ({ departed: gone.signal.aborted }))]));
  void storing
    .then(async (fetched) => {
      clearInterval(beating);
      await pipe.writer.write(new TextEncoder().encode(warmWord(fetched)));
      await pipe.writer.close();
    })
    .catch(() => undefined);
  const checked = possible ? indices.length : 0;
  const stored = storing.then((fetched) =>
    fetched === undefined ? undefined : indices.reduce((sum, index) => sum + length(sliced, index), 0),
  );
  const fetching = possible ? missing.filter((index) => !sliced.prefetched.has(index)).length : 0;
  return { hits: checked - missing.length, checked, fetching, body: pipe.readable, stored };
}

/** Fetches and stores `missing`: the bytes fetched once all are stored; undefined when one could not be. */
async function fetchMissing(
  read: ObjectRead,
  sliced: SlicedObject,
  store: SliceStore,
  missing: readonly number[],
  budget: Budget,
  idleMs: number,
): Promise<number | undefined> {
  const fetchSpan = pinnedSpans(read, sliced.meta);
  let fetched = 0;
  let dropped = false;
  for (const [at, index] of missing.entries()) {
    // Nobody waits for this slice yet: its origin fetch waits while a request of this isolate waits for its first byte
    // (first-byte-urgency.ts), at most URGENT_HOLD_MS, so a download started now is not queued at the origin and in
    // the store behind slices read ahead for others. One that came with discovery is in hand already.
    if (!sliced.prefetched.has(index)) await isolateUrgency.clear(URGENT_HOLD_MS);
    // The edge gone: a slice not fetched yet is not started (one that came with discovery is in hand: stored).
    if (read.signal?.aborted && !sliced.prefetched.has(index)) {
      store.release?.(index);
      dropped = true;
      continue;
    }
    budget.remaining -= FETCH + PUT;
    const bytes = length(sliced, index);
    let body: ReadableStream<Uint8Array>;
    try {
      body = sliced.prefetched.get(index) ?? (await fetchSpan({ first: index, last: index }));
    } catch (error) {
      for (const left of missing.slice(at)) store.release?.(left);
      throw error;
    }
    // Bounded by its deadline, not by the edge: a slice whose fetch started is completed into the store.
    if (!(await store.put(index, bytes, body, deadline(undefined, moveDeadlineMs(bytes, idleMs))))) {
      for (const left of missing.slice(at + 1)) store.release?.(left);
      return undefined;
    }
    fetched += bytes;
  }
  return dropped ? undefined : fetched;
}

function length(sliced: SlicedObject, index: number): number {
  return sliceLength(index, sliced.meta.sliceSize, sliced.meta.size);
}
