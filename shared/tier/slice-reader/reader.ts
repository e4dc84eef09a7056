// The slice reader's entry: a tier's read of a sliced object's slices, its ports bound to the tier's cache and
// next hop (readObjectSlices), or a read over any ports (readSlices); the contract is README.md.

import { VersionChanged } from '../../http/errors.ts';
import type { ObjectMeta } from '../../slices/object-meta.ts';
import type { SliceSpan } from '../../slices/slice-plan.ts';
import type { Piece } from '../../streams/byte-stream.ts';
import type { Budget, ObjectRead, SliceAsk } from '../ports.ts';
import type { SlicedObject } from '../resolved.ts';
import { forgetObject } from '../tier-cache.ts';
import { tierSlices } from './cached-slices.ts';
import { isolateReadahead, isolateUrgency } from './isolate-pool.ts';
import type { ReadAhead, SliceRead, SliceReadOptions, SpanFetch } from './ports.ts';
import { SliceWindow } from './window.ts';

/** How a tier reads: its window, its spans, its budget. */
export interface SliceReadSettings {
  /** Slices in flight ahead of the reader. */
  window: number;
  /** Most slices per upstream request. */
  maxSpan: number;
  budget: Budget;
  /** Hears how the read ended (SliceReadOptions.onEnd). */
  onEnd?: SliceReadOptions['onEnd'];
  /**
   * Read slices ahead through the caches (read-ahead.ts), when the next hop can store them: the silence bound of a copy
   * from it (ms).
   */
  aheadIdleMs?: number;
}

/**
 * Starts reading `indices` of `sliced` at a tier: its own slice store, the next hop for the ones
 * it lacks (pinned to the manifest's version), and what discovery already brought; resolves when
 * the first is in hand (see readSlices).
 */
export function readObjectSlices(
  read: ObjectRead,
  sliced: SlicedObject,
  indices: readonly number[],
  settings: SliceReadSettings,
): Promise<SliceRead> {
  return readSlices({
    meta: sliced.meta,
    indices,
    store: tierSlices(read.cache, read.key, sliced.meta, sliced.entry, read.waitUntil, read.collapseWait),
    fetchSpan: pinnedSpans(read, sliced.meta),
    window: settings.window,
    maxSpan: settings.maxSpan,
    budget: settings.budget,
    prefetched: sliced.prefetched,
    // Read ahead within the isolate's share (isolate-pool.ts), whichever request asks.
    pool: isolateReadahead(settings.window),
    urgency: isolateUrgency,
    ...(settings.onEnd !== undefined ? { onEnd: settings.onEnd } : {}),
    signal: read.signal,
    waitUntil: read.waitUntil,
    readAhead: settings.aheadIdleMs === undefined ? undefined : throughCaches(read, sliced.meta, settings.aheadIdleMs),
  });
}

/**
 * Fetches spans of the version `meta` describes; forgets the manifest when that version is gone. Never on the
 * client's signal: a span started is the cache's to finish (a fill that stores nothing is cancelled through its body).
 */
export function pinnedSpans(
  read: ObjectRead,
  meta: ObjectMeta,
  ask: Pick<SliceAsk, 'copy' | 'signal'> = {},
): SpanFetch {
  return async (span: SliceSpan, from?: number) => {
    try {
      const answer = await read.upstream.slices(span, meta, { ...ask, from });
      if (answer.kind !== 'span') throw new VersionChanged('upstream no longer serves this object in slices');
      return answer.body;
    } catch (error) {
      if (error instanceof VersionChanged) await forgetObject(read);
      throw error;
    }
  };
}

/**
 * Starts reading; resolves once the first slice is in hand, so a version change seen before any
 * byte went out can still restart the request.
 */
export async function readSlices(options: SliceReadOptions): Promise<SliceRead> {
  const window = new SliceWindow(options);
  let first: IteratorResult<Piece>;
  try {
    first = await window.take();
    await window.firstLookups();
  } catch (error) {
    // No reader will ever see these: let go of them and of their share of the pool.
    window.giveUp(error);
    throw error;
  }
  return { pieces: piecesFrom(window, first), ...window.lookups() };
}

/** Slices read ahead through the next hop's cache and this tier's, when the next hop can store them (the shield). */
function throughCaches(read: ObjectRead, meta: ObjectMeta, idleMs: number): ReadAhead | undefined {
  const { upstream } = read;
  if (upstream.warm === undefined) return undefined;
  return {
    warm: async (index, signal) => (await upstream.warm?.({ first: index, last: index }, meta, signal)) !== undefined,
    // Marked as the warm's copy: the two are one request for the slice, counted once (with the warm).
    fetchSlice: (index, signal) => pinnedSpans(read, meta, { copy: true, signal })({ first: index, last: index }),
    idleMs,
  };
}

/** The read as an iterator, `first` (already taken) handed out before the rest. */
function piecesFrom(window: SliceWindow, first: IteratorResult<Piece>): AsyncIterator<Piece> {
  let pending: IteratorResult<Piece> | undefined = first;
  const cancelPending = async (reason?: unknown): Promise<void> => {
    if (pending !== undefined && !pending.done) await pending.value.body.cancel(reason).catch(() => undefined);
    pending = undefined;
  };
  return {
    next: () => {
      if (pending === undefined) return window.take();
      const result = pending;
      pending = undefined;
      return Promise.resolve(result);
    },
    return: async () => {
      await cancelPending();
      window.finish();
      return { done: true, value: undefined };
    },
    throw: async (error: unknown) => {
      await cancelPending(error);
      window.giveUp(error);
      return { done: true, value: undefined };
    },
  };
}
