// Reads the slices a request needs, in order, from this tier's store or from upstream, with a
// bounded window of slices in flight ahead of the reader (the read-ahead that lets a cold
// download pull several slices at once). Slices fetched from upstream are stored as they pass,
// the store setting the pace (fill.ts): a slice read ahead goes into the store, the reader
// keeping at most a little of it and reading the rest back when it gets there, so a reader
// that stops or slows holds neither memory nor a share of the isolate's read-ahead for longer
// than the slices it started take to arrive. When the read is given up (the client went away),
// every fetch it started is cancelled.

import { bodySource } from '../streams/body-source.ts';
import type { Piece } from '../streams/byte-stream.ts';
import { type Fill, startFill } from './fill.ts';
import { splitStream } from '../streams/split-stream.ts';
import type { ObjectMeta } from '../slices/object-meta.ts';
import { type SliceSpan, sliceBytes } from '../slices/slice-plan.ts';
import type { OpenPut } from './tier-cache.ts';

/** This tier's slices of one version of one object. */
export interface SliceStore {
  /** False when the object may not be stored here: slices are then read straight through, none ahead. */
  readonly storing: boolean;
  /** The stored slice (its reader counts it); undefined on a miss. */
  get(index: number, length: number): Promise<ReadableStream<Uint8Array> | undefined>;
  /** A put of slice `index` to write its bytes into; undefined when nothing is stored. */
  open(index: number, length: number): OpenPut | undefined;
  /** Slice `index` as stored read wrong: never again. */
  forget(index: number): void;
  /** This request holds slice `index` already and will store it: others should wait for that. */
  claim?(index: number): void;
  /** This request will not store a slice it missed after all (others waiting for it may go on). */
  release?(index: number): void;
}

/** The next hop, asked for exactly the bytes of a span of slices of the pinned version (from `from` on), healing as they come. */
export type SpanFetch = (span: SliceSpan, from?: number) => Promise<ReadableStream<Uint8Array>>;

/**
 * Read-ahead shared by every request of an isolate: slices started ahead of their reader (not
 * the one each reader needs next), at most `limit` at once. A share is held while its slice is
 * on its way into the store (or taken by its reader), so N cold downloads in one isolate share
 * one window of fetches, and each still has its next slice.
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

/** Subrequests a tier spends on a slice it reads and stores: look it up, fetch it, store it, read the rest back. */
export const SUBREQUESTS_PER_SLICE = 4;

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
  /** Hears once how the read ended: every slice taken (`complete`), and whether all of them came from the store. */
  onEnd?(outcome: { complete: boolean; allStored: boolean }): void;
  /** The client's request signal: when it aborts, the read is given up (every fetch it started cancelled). */
  signal?: AbortSignal | undefined;
  /**
   * Keeps the request's work alive to its end: a slot started is seen through (its fetch, its
   * store, the claims and shares it holds given back) even once the response is done or the
   * client has gone, which workerd would otherwise drop unfinished.
   */
  waitUntil?(promise: Promise<unknown>): void;
}

/**
 * The pieces in order. `return()` ends the read (what is being stored goes on being stored);
 * `throw()` gives it up: every fetch it started is cancelled, and nothing half-read is stored.
 */
export interface SliceRead {
  pieces: AsyncIterator<Piece>;
  /** Of the slices looked up in this tier's store before the first byte: how many were there. */
  hits: number;
  checked: number;
}

/** Starts reading; resolves once the first slice is in hand, so a version change seen before any byte went out can still restart the request. */
export async function readSlices(options: SliceReadOptions): Promise<SliceRead> {
  const reading = new SliceReading(options);
  let first: IteratorResult<Piece>;
  try {
    first = await reading.take();
    await reading.firstLookups();
  } catch (error) {
    // No reader will ever see these: let go of them and of their share of the pool.
    reading.giveUp(error);
    throw error;
  }
  let pending: IteratorResult<Piece> | undefined = first;
  const pieces: AsyncIterator<Piece> = {
    next: () => {
      if (pending === undefined) return reading.take();
      const result = pending;
      pending = undefined;
      return Promise.resolve(result);
    },
    return: async () => {
      if (pending !== undefined && !pending.done) await pending.value.body.cancel().catch(() => undefined);
      pending = undefined;
      reading.finish();
      return { done: true, value: undefined };
    },
    throw: async (error: unknown) => {
      if (pending !== undefined && !pending.done) await pending.value.body.cancel(error).catch(() => undefined);
      pending = undefined;
      reading.giveUp(error);
      return { done: true, value: undefined };
    },
  };
  return { pieces, hits: reading.stats.hits, checked: reading.stats.checked };
}

/** One read's slots: the slices it has started, in order, and what each costs. */
class SliceReading {
  readonly stats = { hits: 0, checked: 0 };
  private readonly options: SliceReadOptions;
  private position = 0;
  /** Slices started and not yet taken by the reader. */
  private readonly slots = new Map<number, Promise<ReadableStream<Uint8Array>>>();
  /** Slots holding a share of the pool: given back once their slice is stored, taken or dropped. */
  private readonly pooled = new Set<number>();
  /** Slices coming in a span with an earlier one. */
  private readonly fromSpan = new Map<number, Promise<ReadableStream<Uint8Array>>>();
  /** Slices that came from the store rather than upstream. */
  private readonly stored = new Set<number>();
  /** Every fill under way (a slice fetched and stored), to cancel when the read is given up. */
  private readonly fills = new Set<Fill>();
  private taken = 0;
  private ended = false;
  /** Lookups under way: each may still turn into a span of its own, so their budget is held back. */
  private lookingUp = 0;
  /** Positions before this one have a source (a lookup under way, a stored slice or a span). */
  private frontier = 0;
  /** Lookups of the first window, awaited before the first byte so the counts are exact. */
  private initialLookups: Promise<unknown>[] | undefined = [];

  constructor(options: SliceReadOptions) {
    this.options = options;
    for (const [index, body] of options.prefetched ?? []) {
      if (options.indices.includes(index)) options.store.claim?.(index);
      else void body.cancel().catch(() => undefined);
    }
    const { signal } = options;
    // The client went away: nothing it started should go on (workerd tells no one else).
    if (signal?.aborted) this.giveUp(signal.reason);
    else signal?.addEventListener('abort', () => this.giveUp(signal.reason), { once: true });
  }

  async firstLookups(): Promise<void> {
    await Promise.all(this.initialLookups ?? []);
    this.initialLookups = undefined;
  }

  /** The next piece: the slot at the reader's position, after starting those ahead of it. */
  async take(): Promise<IteratorResult<Piece>> {
    const { indices, meta } = this.options;
    if (this.ended || this.position >= indices.length) return { done: true, value: undefined };
    const index = indices[this.position] ?? -1;
    // The slice needed now is no longer ahead of the reader: its share goes back before the
    // window refills, so one download alone keeps `window` slices in flight.
    this.giveBack(index);
    this.fill();
    const slot = this.slots.get(index) as Promise<ReadableStream<Uint8Array>>;
    let body: ReadableStream<Uint8Array>;
    try {
      body = await slot;
    } finally {
      this.slots.delete(index);
    }
    this.position++;
    this.taken++;
    const piece: Piece = { offset: index * meta.sliceSize, length: this.length(index), body };
    if (this.stored.has(index)) piece.onInexact = () => this.options.store.forget(index);
    return { done: false, value: piece };
  }

  /** The reader is done: untaken slots are let go; fills under way finish storing. */
  finish(): void {
    this.end();
  }

  /** The read is given up: untaken slots and every fill under way are cancelled. */
  giveUp(reason: unknown): void {
    this.end();
    for (const fill of this.fills) fill.abort(reason);
    this.fills.clear();
  }

  private end(): void {
    if (this.ended) return;
    const complete = this.taken === this.options.indices.length;
    this.ended = true;
    this.position = this.options.indices.length;
    for (const [index, slot] of this.slots) {
      void slot.then((body) => body.cancel()).catch(() => undefined);
      this.giveBack(index);
    }
    this.slots.clear();
    this.options.onEnd?.({ complete, allStored: complete && this.stored.size === this.options.indices.length });
  }

  /** Starts the slots of the window; the slice needed next always, those ahead within the pool. */
  private fill(): void {
    const { pool, indices, window, store } = this.options;
    for (let at = this.position; at < Math.min(indices.length, this.position + window); at++) {
      const index = indices[at] ?? -1;
      if (this.slots.has(index)) continue;
      if (at > this.position) {
        // Reading ahead means holding slices for later: only into a store.
        if (!store.storing) break;
        if (pool !== undefined) {
          if (pool.inUse >= pool.limit) break;
          pool.inUse++;
          this.pooled.add(index);
        }
      }
      const slot = this.produce(at);
      const settled = slot.catch(() => undefined);
      this.options.waitUntil?.(settled);
      this.slots.set(index, slot);
    }
  }

  private giveBack(index: number): void {
    if (this.pooled.delete(index) && this.options.pool !== undefined) this.options.pool.inUse--;
  }

  private length(index: number): number {
    const { meta } = this.options;
    const bytes = sliceBytes(index, meta.sliceSize, meta.size);
    return bytes.end - bytes.start + 1;
  }

  /**
   * Upstream requests still needed for the slices from position `at` on, were all of them
   * misses: a lookup or a store may only spend what is left over, so every byte is still delivered.
   */
  private reserve(at: number): number {
    return Math.ceil((this.options.indices.length - at) / this.options.maxSpan);
  }

  /** What the rest of the read may still need: a span per pending lookup, packed spans past the frontier. */
  private held(): number {
    return this.lookingUp + this.reserve(this.frontier);
  }

  /** The slice at position `at`: came with discovery, comes with a span, is stored here, or is fetched. */
  private async produce(at: number): Promise<ReadableStream<Uint8Array>> {
    const { indices, prefetched, budget, store } = this.options;
    const index = indices[at] ?? -1;
    const came = prefetched?.get(index);
    if (came !== undefined) {
      // Fetched with discovery: known to be missing here.
      if (this.initialLookups !== undefined) this.stats.checked++;
      return this.storing(index, came);
    }
    const spanned = this.fromSpan.get(index);
    if (spanned !== undefined) return spanned;
    this.frontier = Math.max(this.frontier, at + 1);
    // Looking it up costs one; should it and every lookup under way miss, each needs a span of
    // its own, and the rest packs into spans from the next slice on.
    if (budget.remaining - 1 >= 1 + this.held()) {
      budget.remaining--;
      this.lookingUp++;
      const lookup = store.get(index, this.length(index));
      if (this.initialLookups !== undefined) {
        this.stats.checked++;
        this.initialLookups.push(lookup.then((found) => (this.stats.hits += found === undefined ? 0 : 1), () => undefined));
      }
      const found = await lookup.catch(() => undefined);
      // Released in the same step as the span it may turn into spends its subrequest: no gap
      // in which a store could take what that span needs.
      this.lookingUp--;
      if (found !== undefined) {
        // A stored slice is read as the reader goes, not buffered ahead: it needs no share.
        this.giveBack(index);
        this.stored.add(index);
        return found;
      }
    }
    return this.startSpan(at);
  }

  /** Fetches the slice at `at` and the following ones nobody started yet, while consecutive, as one span. */
  private startSpan(at: number): Promise<ReadableStream<Uint8Array>> {
    const { indices, maxSpan, prefetched, budget, store, fetchSpan } = this.options;
    const first = indices[at] ?? -1;
    let last = first;
    for (let next = at + 1; next < indices.length && last - first + 1 < maxSpan; next++) {
      const index = indices[next] ?? -1;
      if (index !== last + 1 || this.slots.has(index) || prefetched?.has(index)) break;
      last = index;
    }
    budget.remaining--;
    this.frontier = Math.max(this.frontier, at + last - first + 1);
    const parts = fetchSpan({ first, last }).then((body) => {
      const lengths = Array.from({ length: last - first + 1 }, (_, i) => this.length(first + i));
      return splitStream(body, lengths);
    });
    parts.catch(() => {
      for (let index = first; index <= last; index++) store.release?.(index);
    });
    for (let index = first; index <= last; index++) {
      const part = parts.then((streams) => this.storing(index, streams[index - first] as ReadableStream<Uint8Array>));
      void part.catch(() => undefined);
      this.fromSpan.set(index, part);
    }
    return this.fromSpan.get(first) as Promise<ReadableStream<Uint8Array>>;
  }

  /**
   * A slice fetched from upstream: stored as it arrives, the reader getting its share (and the
   * rest from the store, should it fall behind). Straight through (its pace the reader's) when
   * it may not be stored, or the budget has no room for the store and a read back.
   */
  private storing(index: number, body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    const { store, budget } = this.options;
    if (this.ended) {
      void body.cancel().catch(() => undefined);
      store.release?.(index);
      return body;
    }
    const length = this.length(index);
    const put = store.storing && budget.remaining - 2 >= this.held() ? store.open(index, length) : undefined;
    if (put === undefined) store.release?.(index);
    else budget.remaining -= 2;
    const fill = startFill(bodySource(body, { length }), {
      length,
      store: put,
      resume: async (offset) => {
        if (put !== undefined && (await stored)) {
          const found = await store.get(index, length);
          if (found !== undefined) return { body: found, from: 0 };
        }
        // Not stored after all: the rest from the next hop (the subrequest was reserved).
        return { body: await this.options.fetchSpan({ first: index, last: index }, offset), from: offset };
      },
    });
    const { stored } = fill;
    // Seen through even once the response is done (a range that ended inside this slice).
    this.options.waitUntil?.(stored);
    this.fills.add(fill);
    void stored.finally(() => {
      this.fills.delete(fill);
      // On its way no more: a slice ahead of the reader gives its share back.
      this.giveBack(index);
    });
    return fill.client;
  }
}
