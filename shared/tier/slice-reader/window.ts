// One read's window: the slots it has started, in order, ahead of the reader, how many may be in flight, and
// the shares of the isolate's pool they hold. It drives the sources (sources.ts); they never call back into it.

import { Parallelism } from '../../slices/parallelism.ts';
import { sliceBytes } from '../../slices/slice-plan.ts';
import type { Piece } from '../../streams/byte-stream.ts';
import { cancelPrefetched } from '../resolved.ts';
import { Demand } from './demand.ts';
import { PoolShares } from './isolate-pool.ts';
import type { SliceReadOptions } from './ports.ts';
import { SliceSources } from './sources.ts';

/** Where a download's parallelism starts (at most SLICE_PARALLEL): 16 slices of 8 MiB, 128 MiB on their way. */
const START_PARALLEL = 16;
/**
 * How far past the reader slices are read ahead through the caches, in multiples of the parallelism: one, so slices
 * in flight or stored and not yet read are at most the parallelism. Four let the tiers run far ahead of a reader
 * whose own read back from the store they starved (all of it on the tiers' CPU): a cold 1 GiB download through
 * `npm start` read 88 MiB in its first 11 s while 1 GiB was stored ahead of it, then the rest from the store
 * (bench/cold-download.ts); paced by its reader, the download streams from the start.
 */
const AHEAD_REACH = 1;

/**
 * Longest the first byte waits for the first window's lookups (only their counts need them: Cache-Status): far above
 * what a store takes to answer, far below what a store under a burst of fills can take (half a second, locally).
 */
const FIRST_LOOKUPS_MS = 100;

export class SliceWindow {
  private readonly options: SliceReadOptions;
  private readonly sources: SliceSources;
  private position = 0;
  /** Slices started and not yet taken by the reader. */
  private readonly slots = new Map<number, Promise<ReadableStream<Uint8Array>>>();
  /** The shares of the pool the slots ahead hold: given back once their slice is stored, taken or dropped. */
  private readonly shares: PoolShares;
  private taken = 0;
  private ended = false;
  /** Slots read ahead through the caches not settled yet. */
  private flying = 0;
  /** Slices in flight ahead of the reader, when they are read through the caches; else the options' window. */
  private readonly parallelism: Parallelism | undefined;
  /** What the reader has earned ahead of it by reading. */
  private readonly demand = new Demand(() => {
    if (!this.ended) this.startWindow();
  });

  constructor(options: SliceReadOptions) {
    this.options = options;
    this.parallelism =
      options.readAhead === undefined
        ? undefined
        : new Parallelism({ start: START_PARALLEL, min: 2, max: options.window, now: Date.now });
    this.shares = new PoolShares(options.pool);
    // What the sources report to (a slice stored, one read ahead done) are these two, not the window.
    this.sources = new SliceSources(options, this.shares, this.parallelism);
    // This read stores the slices discovery brought that it takes (others wait for it); the rest go.
    for (const index of options.prefetched?.keys() ?? [])
      if (options.indices.includes(index)) options.store.claim?.(index);
    void cancelPrefetched(options, options.indices);
    const { signal } = options;
    // The client went away: nothing more is started for it (what it started is the cache's to finish).
    if (signal?.aborted) this.giveUp(signal.reason);
    else signal?.addEventListener('abort', () => this.giveUp(signal.reason), { once: true });
  }

  /** Waits for the lookups of the first window, so the counts of `lookups()` are exact. */
  firstLookups(): Promise<void> {
    return this.sources.firstLookups(FIRST_LOOKUPS_MS);
  }

  /** Of the slices looked up before the first byte: how many, and how many were stored here. */
  lookups(): { hits: number; checked: number } {
    return { ...this.sources.stats };
  }

  /** The next piece: the slot at the reader's position, after starting those ahead of it. */
  async take(): Promise<IteratorResult<Piece>> {
    const { indices, meta, store } = this.options;
    if (this.ended || this.position >= indices.length) return { done: true, value: undefined };
    const index = indices[this.position] ?? -1;
    // The slice needed now is no longer ahead of the reader: its share goes back before the
    // window refills, so one download alone keeps `window` slices in flight.
    this.shares.giveBack(index);
    // Asking for it, the reader has read the slices before it whole: what that earned starts now (demand.ts).
    this.demand.asked(this.position);
    this.startWindow(this.position);
    const slot = this.slots.get(index) as Promise<ReadableStream<Uint8Array>>;
    let body: ReadableStream<Uint8Array>;
    try {
      body = await slot;
    } finally {
      this.slots.delete(index);
    }
    this.position++;
    this.taken++;
    this.demand.took();
    const bytes = sliceBytes(index, meta.sliceSize, meta.size);
    const piece: Piece = { offset: bytes.start, length: bytes.end - bytes.start + 1, body };
    if (this.sources.stored.has(index)) piece.onInexact = () => store.forget(index);
    return { done: false, value: piece };
  }

  /** The reader is done: untaken slots are let go; fills under way finish storing. */
  finish(): void {
    this.end();
  }

  /**
   * The read is given up (the client went away): untaken slots are let go of and nothing more starts; what was
   * started is completed into the store, except what stores nothing (a slice passed straight through), cancelled.
   */
  giveUp(reason: unknown): void {
    this.end();
    this.sources.abort(reason);
  }

  private end(): void {
    if (this.ended) return;
    const { indices, onEnd } = this.options;
    const complete = this.taken === indices.length;
    this.ended = true;
    this.sources.end();
    this.position = indices.length;
    for (const [index, slot] of this.slots) {
      void slot.then((body) => body.cancel()).catch(() => undefined);
      this.shares.giveBack(index);
    }
    this.slots.clear();
    onEnd?.({ complete, allStored: complete && this.sources.stored.size === indices.length });
  }

  /**
   * Starts the slots of the window; the slice needed next always, those ahead within the pool and what the reader
   * has earned (demand.ts).
   * Slices read through the caches hold no memory, so the window is then what is in flight (up
   * to the download's parallelism, as far as AHEAD_REACH times it past the reader), refilled as
   * each arrives; otherwise it is the next `window` slices from the reader.
   */
  private startWindow(reading = this.taken > 0 ? this.position - 1 : this.position): void {
    const { indices, store } = this.options;
    const limit = this.parallelism?.limit ?? this.options.window;
    // The window counts from the slice being read, the one it holds included.
    const windowEnd = reading + (this.parallelism === undefined ? limit : limit * AHEAD_REACH);
    // What the reader has earned by reading (demand.ts), past the slice it reads.
    const demandEnd = reading + 1 + this.demand.ahead;
    // Where demand, not the window, stops the read, a span stops there too (sources.ts).
    this.sources.reachEnd = demandEnd < windowEnd ? demandEnd : Number.POSITIVE_INFINITY;
    for (let at = this.position; at < Math.min(indices.length, windowEnd, demandEnd); at++) {
      const index = indices[at] ?? -1;
      if (this.slots.has(index)) continue;
      const ahead = at > reading;
      if (ahead) {
        // Reading ahead means holding slices for later: only into a store.
        if (!store.storing) break;
        if (this.parallelism !== undefined && this.flying >= limit) break;
        if (!this.shares.take(index)) break;
      }
      // Through the caches: every slice but the first one the read hands out, which streams as
      // it arrives (the first byte waits for no store). A reader that reaches a slice nobody
      // started ahead (the isolate's pool was taken by other downloads) waits for it to be
      // stored rather than have its bytes pumped through JavaScript at both tiers.
      const slot = this.sources.produce(at, ahead || this.taken > 0, ahead);
      this.options.waitUntil?.(slot.catch(() => undefined));
      this.slots.set(index, slot);
      if (this.parallelism !== undefined && ahead) this.inFlight(slot);
    }
  }

  /** A slot read ahead counts as in flight until it settles; then the window refills. */
  private inFlight(slot: Promise<unknown>): void {
    this.flying++;
    void slot
      .catch(() => undefined)
      .finally(() => {
        this.flying--;
        if (!this.ended) this.startWindow();
      });
  }
}
