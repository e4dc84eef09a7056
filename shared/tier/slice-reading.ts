// One read's window: the slots it has started, in order, ahead of the reader, and the shares of
// the isolate's read-ahead they hold. Where each slot's slice comes from is slice-sources.ts.

import type { Piece } from '../streams/byte-stream.ts';
import { sliceBytes } from '../slices/slice-plan.ts';
import type { SliceReadOptions } from './ports.ts';
import { SliceSources } from './slice-sources.ts';

export class SliceReading {
  private readonly options: SliceReadOptions;
  private readonly sources: SliceSources;
  private position = 0;
  /** Slices started and not yet taken by the reader. */
  private readonly slots = new Map<number, Promise<ReadableStream<Uint8Array>>>();
  /** Slots holding a share of the pool: given back once their slice is stored, taken or dropped. */
  private readonly pooled = new Set<number>();
  private taken = 0;
  private ended = false;

  constructor(options: SliceReadOptions) {
    this.options = options;
    this.sources = new SliceSources(options, {
      ended: () => this.ended,
      started: (index) => this.slots.has(index),
      giveBack: (index) => this.giveBack(index),
    });
    for (const [index, body] of options.prefetched ?? []) {
      if (options.indices.includes(index)) options.store.claim?.(index);
      else void body.cancel().catch(() => undefined);
    }
    const { signal } = options;
    // The client went away: nothing it started should go on (workerd tells no one else).
    if (signal?.aborted) this.giveUp(signal.reason);
    else signal?.addEventListener('abort', () => this.giveUp(signal.reason), { once: true });
  }

  /** Waits for the lookups of the first window, so the counts of `lookups()` are exact. */
  firstLookups(): Promise<void> {
    return this.sources.firstLookups();
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
    this.giveBack(index);
    this.startWindow();
    const slot = this.slots.get(index) as Promise<ReadableStream<Uint8Array>>;
    let body: ReadableStream<Uint8Array>;
    try {
      body = await slot;
    } finally {
      this.slots.delete(index);
    }
    this.position++;
    this.taken++;
    const bytes = sliceBytes(index, meta.sliceSize, meta.size);
    const piece: Piece = { offset: bytes.start, length: bytes.end - bytes.start + 1, body };
    if (this.sources.stored.has(index)) piece.onInexact = () => store.forget(index);
    return { done: false, value: piece };
  }

  /** The reader is done: untaken slots are let go; fills under way finish storing. */
  finish(): void {
    this.end();
  }

  /** The read is given up: untaken slots and every fill under way are cancelled. */
  giveUp(reason: unknown): void {
    this.end();
    this.sources.abort(reason);
  }

  private end(): void {
    if (this.ended) return;
    const { indices, onEnd } = this.options;
    const complete = this.taken === indices.length;
    this.ended = true;
    this.position = indices.length;
    for (const [index, slot] of this.slots) {
      void slot.then((body) => body.cancel()).catch(() => undefined);
      this.giveBack(index);
    }
    this.slots.clear();
    onEnd?.({ complete, allStored: complete && this.sources.stored.size === indices.length });
  }

  /** Starts the slots of the window; the slice needed next always, those ahead within the pool. */
  private startWindow(): void {
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
      const slot = this.sources.produce(at);
      this.options.waitUntil?.(slot.catch(() => undefined));
      this.slots.set(index, slot);
    }
  }

  private giveBack(index: number): void {
    if (this.pooled.delete(index) && this.options.pool !== undefined) this.options.pool.inUse--;
  }
}
