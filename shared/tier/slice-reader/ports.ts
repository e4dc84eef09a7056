// What the slice reader is handed (a tier's slice store, its span fetch, its read-ahead, the isolate's pool) and
// what it hands back (SliceRead): its contract, README.md.

import type { ObjectMeta } from '../../slices/object-meta.ts';
import type { SliceSpan } from '../../slices/slice-plan.ts';
import type { Piece } from '../../streams/byte-stream.ts';
import type { Budget } from '../ports.ts';
import type { OpenPut } from '../tier-cache.ts';

/** This tier's slices of one version of one object (cached-slices.ts). */
export interface SliceStore {
  /** False when the object may not be stored here: slices are then read straight through, none ahead. */
  readonly storing: boolean;
  /** The stored slice (its reader counts it); undefined on a miss. */
  get(index: number, length: number): Promise<ReadableStream<Uint8Array> | undefined>;
  /** A put of slice `index` to write its bytes into; undefined when nothing is stored. */
  open(index: number, length: number): OpenPut | undefined;
  /** Stores slice `index` from `body`, moved by the runtime (tier-cache.ts storeNatively): true once stored exactly. */
  put(index: number, length: number, body: ReadableStream<Uint8Array>, signal?: AbortSignal): Promise<boolean>;
  /**
   * Slice `index` as stored, marked for the runtime to pipe on (native-body.ts); undefined on a miss. Claims nothing.
   */
  read(index: number, length: number): Promise<ReadableStream<Uint8Array> | undefined>;
  /** Slice `index` as stored read wrong: never again. */
  forget(index: number): void;
  /** This request holds slice `index` already and will store it: others should wait for that. */
  claim?(index: number): void;
  /** This request will not store a slice it missed after all (others waiting for it may go on). */
  release?(index: number): void;
}

/**
 * The next hop, asked for exactly the bytes of a span of slices of the pinned version (from `from` on), healing as they
 * come.
 */
export type SpanFetch = (span: SliceSpan, from?: number) => Promise<ReadableStream<Uint8Array>>;

/** What a read ahead through the caches needs (read-ahead.ts): the next hop's warm, a fetch of one slice. */
export interface ReadAhead {
  /** Has the next hop store slice `index`: true once stored there. `signal` gives it up. */
  warm(index: number, signal: AbortSignal): Promise<boolean>;
  /** Slice `index` from the next hop (its hit, after the warm). */
  fetchSlice(index: number, signal: AbortSignal): Promise<ReadableStream<Uint8Array>>;
  /** The silence bound of this tier's next hop (ms): what a copy's deadline starts from. */
  idleMs: number;
}

/**
 * Read-ahead shared by every request of an isolate (isolate-pool.ts): slices started ahead of
 * their reader (not the one each reader needs next), at most `limit` at once.
 */
export interface ReadaheadPool {
  limit: number;
  inUse: number;
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
  /**
   * Slices ahead of the reader are read through the caches (read-ahead.ts), the window then
   * adapting up to `window` (parallelism.ts); absent (the shield, whose next hop is the
   * origin) = read as they come, `window` at once.
   */
  readAhead?: ReadAhead | undefined;
  /** The isolate's read-ahead, shared with its other requests; absent = only `window` bounds it. */
  pool?: ReadaheadPool;
  /** The isolate's requests waiting for their first byte, which slices ahead wait for; absent = none wait. */
  urgency?: UrgentRequests;
  /** Hears once how the read ended: every slice taken (`complete`), and whether all of them came from the store. */
  onEnd?(outcome: { complete: boolean; allStored: boolean }): void;
  /**
   * The client's request signal: when it aborts, the read is given up (nothing more started; what was started is
   * completed into the store, what stores nothing cancelled).
   */
  signal?: AbortSignal | undefined;
  /**
   * Keeps the request's work alive to its end: a slot started is seen through (its fetch, its
   * store, the claims and shares it holds given back) even once the response is done or the
   * client has gone, which workerd would otherwise drop unfinished.
   */
  waitUntil?(promise: Promise<unknown>): void;
}

/**
 * The pieces in order. `return()` ends the read (what is being stored goes on being stored); `throw()` gives it up:
 * nothing more is started, and what stores nothing is cancelled. Nothing half-read is ever stored.
 */
export interface SliceRead {
  pieces: AsyncIterator<Piece>;
  /** Of the slices looked up in this tier's store before the first byte: how many were there. */
  hits: number;
  checked: number;
}

/** Requests waiting for their first byte (isolate-pool.ts Urgency): what read-ahead waits for. */
export interface UrgentRequests {
  /** A request starts waiting; the function returned says it has its byte (once). */
  begin(): () => void;
  /** Settles once none waits, or after `maxMs`. */
  clear(maxMs: number): Promise<void>;
}
