// Reads the slices a request needs, in order, from this tier's store or from upstream, with
// a bounded window of slices in flight ahead of the reader (the read-ahead that lets a cold
// download pull several slices at once). Slices fetched from upstream are stored as they pass.
// Memory stays bounded by `window` slices: nothing past the window is started.

import type { Piece } from './byte-stream.ts';
import { splitStream } from './split-stream.ts';
import type { ObjectMeta } from './object-meta.ts';
import { type SliceSpan, sliceBytes } from './slice-plan.ts';

/** This tier's slices of one version of one object. */
export interface SliceStore {
  get(index: number, length: number): Promise<ReadableStream<Uint8Array> | undefined>;
  put(index: number, length: number, body: ReadableStream<Uint8Array>): void;
  /** This request holds slice `index` already and will store it: others should wait for that. */
  claim?(index: number): void;
  /** This request will not store a slice it missed after all (others waiting for it may go on). */
  release?(index: number): void;
}

/** The next hop, asked for exactly the bytes of a span of slices of the pinned version. */
export type SpanFetch = (span: SliceSpan) => Promise<ReadableStream<Uint8Array>>;

/**
 * Read-ahead shared by every request of an isolate: slices started ahead of their reader (not
 * the one each reader needs next), at most `limit` at once. Each slice ahead is buffered whole
 * until its reader gets to it, so without a shared bound N cold downloads in one isolate would
 * hold N windows of slices; with it they share one window, and each still has its next slice.
 */
export interface ReadaheadPool {
  limit: number;
  inUse: number;
}

/** This isolate's pool for a tier reading `window` slices at a time: one window's worth ahead in all. */
export function isolatePool(pool: ReadaheadPool, window: number): ReadaheadPool {
  pool.limit = Math.max(0, window - 1);
  return pool;
}

/** Subrequests a tier spends on a slice it reads and stores: look it up, fetch it, store it. */
export const SUBREQUESTS_PER_SLICE = 3;

/** Subrequests this request may still make (Workers cap them per request). */
export interface Budget {
  remaining: number;
}

export interface SliceReadOptions {
  meta: ObjectMeta;
  /** The slices to read, ascending. */
  indices: readonly number[];
  store: SliceStore;
  fetchSpan: SpanFetch;
  /** Slices in flight ahead of the reader. */
  window: number;
  /** Most slices one upstream request may carry. */
  maxSpan: number;
  budget: Budget;
  /** Slices already in hand (the one that came with discovery), not yet stored. */
  prefetched?: ReadonlyMap<number, ReadableStream<Uint8Array>>;
  /** The isolate's read-ahead, shared with its other requests; absent = only `window` bounds it. */
  pool?: ReadaheadPool;
}

export interface SliceRead {
  pieces: AsyncIterator<Piece>;
  /** Of the slices looked up in this tier's store before the first byte: how many were there. */
  hits: number;
  checked: number;
}

/** Starts reading; resolves once the first slice is in hand, so a version change seen before any byte went out can still restart the request. */
export async function readSlices(options: SliceReadOptions): Promise<SliceRead> {
  const { meta, indices, store, budget } = options;
  for (const index of options.prefetched?.keys() ?? []) if (indices.includes(index)) store.claim?.(index);
  const slots = new Map<number, Promise<ReadableStream<Uint8Array>>>();
  /** Slots holding a share of the pool: given back when their slice is taken or dropped. */
  const pooled = new Set<number>();
  const giveBack = (index: number): void => {
    if (pooled.delete(index) && options.pool !== undefined) options.pool.inUse--;
  };
  const fromSpan = new Map<number, Promise<ReadableStream<Uint8Array>>>();
  const stats = { hits: 0, checked: 0 };
  let position = 0;
  /** Lookups under way: each may still turn into a span of its own, so their budget is held back. */
  let lookingUp = 0;
  /** Positions before this one have a source (a lookup under way, a stored slice or a span). */
  let frontier = 0;
  /** What the rest of the read may still need: a span per pending lookup, packed spans past the frontier. */
  const held = (from = frontier): number => lookingUp + reserve(from);
  /** Lookups of the first window, awaited before the first byte so the counts are exact. */
  let initialLookups: Promise<unknown>[] | undefined = [];

  const length = (index: number): number => {
    const bytes = sliceBytes(index, meta.sliceSize, meta.size);
    return bytes.end - bytes.start + 1;
  };
  /**
   * Upstream requests still needed for the slices from position `at` on, were all of them
   * misses: a lookup or a store may only spend what is left over, so every byte is still delivered.
   */
  const reserve = (at: number): number => Math.ceil((indices.length - at) / options.maxSpan);

  const produce = async (at: number): Promise<ReadableStream<Uint8Array>> => {
    const index = indices[at] ?? -1;
    const prefetched = options.prefetched?.get(index);
    if (prefetched !== undefined) {
      // Fetched with discovery: known to be missing here.
      if (initialLookups !== undefined) stats.checked++;
      return storing(index, at, prefetched);
    }
    const spanned = fromSpan.get(index);
    if (spanned !== undefined) return spanned;
    frontier = Math.max(frontier, at + 1);
    // Looking it up costs one; should it and every lookup under way miss, each needs a span of
    // its own, and the rest packs into spans from the next slice on.
    if (budget.remaining - 1 >= 1 + held()) {
      budget.remaining--;
      lookingUp++;
      const lookup = store.get(index, length(index));
      if (initialLookups !== undefined) {
        stats.checked++;
        initialLookups.push(lookup.then((found) => (stats.hits += found === undefined ? 0 : 1), () => undefined));
      }
      const found = await lookup.catch(() => undefined);
      // Released in the same step as the span it may turn into spends its subrequest: no gap
      // in which a store could take what that span needs.
      lookingUp--;
      if (found !== undefined) {
        // A stored slice is read as the reader goes, not buffered ahead: it needs no share.
        giveBack(index);
        return found;
      }
    }
    return startSpan(at);
  };

  const startSpan = (at: number): Promise<ReadableStream<Uint8Array>> => {
    const first = indices[at] ?? -1;
    let last = first;
    // Extend over following slices nobody has started yet, while they are consecutive.
    for (let next = at + 1; next < indices.length && last - first + 1 < options.maxSpan; next++) {
      const index = indices[next] ?? -1;
      if (index !== last + 1 || slots.has(index) || options.prefetched?.has(index)) break;
      last = index;
    }
    budget.remaining--;
    frontier = Math.max(frontier, at + last - first + 1);
    const parts = options.fetchSpan({ first, last }).then((body) => {
      const lengths = Array.from({ length: last - first + 1 }, (_, i) => length(first + i));
      return splitStream(body, lengths);
    });
    parts.catch(() => {
      for (let index = first; index <= last; index++) store.release?.(index);
    });
    for (let index = first; index <= last; index++) {
      const part = parts.then((streams) => storing(index, at + index - first, streams[index - first] as ReadableStream<Uint8Array>));
      void part.catch(() => undefined);
      fromSpan.set(index, part);
    }
    return fromSpan.get(first) as Promise<ReadableStream<Uint8Array>>;
  };

  const storing = (index: number, at: number, body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> => {
    if (budget.remaining - 1 < held()) {
      store.release?.(index);
      return body;
    }
    budget.remaining--;
    const [toStore, toReader] = body.tee();
    store.put(index, length(index), toStore);
    return toReader;
  };

  const fill = (): void => {
    const { pool } = options;
    for (let at = position; at < Math.min(indices.length, position + options.window); at++) {
      const index = indices[at] ?? -1;
      if (slots.has(index)) continue;
      // The slice the reader needs next always starts; those ahead of it only within the pool.
      if (pool !== undefined && at > position) {
        if (pool.inUse >= pool.limit) break;
        pool.inUse++;
        pooled.add(index);
      }
      const slot = produce(at);
      void slot.catch(() => undefined);
      slots.set(index, slot);
    }
  };

  const take = async (): Promise<IteratorResult<Piece>> => {
    if (position >= indices.length) return { done: true, value: undefined };
    const index = indices[position] ?? -1;
    // The slice needed now is no longer ahead of the reader: its share goes back before the
    // window refills, so one download alone keeps `window` slices in flight.
    giveBack(index);
    fill();
    const slot = slots.get(index) as Promise<ReadableStream<Uint8Array>>;
    let body: ReadableStream<Uint8Array>;
    try {
      body = await slot;
    } finally {
      slots.delete(index);
    }
    position++;
    return { done: false, value: { offset: index * meta.sliceSize, length: length(index), body } };
  };

  const dropSlots = (): void => {
    for (const [index, slot] of slots) {
      void slot.then((body) => body.cancel()).catch(() => undefined);
      giveBack(index);
    }
    slots.clear();
  };
  let first: IteratorResult<Piece>;
  try {
    first = await take();
    await Promise.all(initialLookups);
  } catch (error) {
    // No reader will ever see these: let go of them and of their share of the pool.
    position = indices.length;
    dropSlots();
    throw error;
  }
  initialLookups = undefined;
  let pending: IteratorResult<Piece> | undefined = first;
  const pieces: AsyncIterator<Piece> = {
    next: () => {
      if (pending !== undefined) {
        const result = pending;
        pending = undefined;
        return Promise.resolve(result);
      }
      return take();
    },
    return: async () => {
      position = indices.length;
      if (pending !== undefined && !pending.done) await pending.value.body.cancel().catch(() => undefined);
      pending = undefined;
      dropSlots();
      return { done: true, value: undefined };
    },
  };
  return { pieces, hits: stats.hits, checked: stats.checked };
}
