// Reading a sliced object's slices at a tier: its own slice store, the next hop for the ones it
// lacks (pinned to the manifest's version), and what discovery already brought.

import { VersionChanged } from '../../http/errors.ts';
import type { ObjectMeta } from '../../slices/object-meta.ts';
import type { SliceSpan } from '../../slices/slice-plan.ts';
import { forgetObject } from '../object-read.ts';
import type { Budget, ObjectRead, SliceAsk } from '../ports.ts';
import type { SlicedObject } from '../resolved.ts';
import { tierSlices } from './cached-slices.ts';
import { isolateReadahead } from './isolate-pool.ts';
import type { ReadAhead, SliceRead, SliceReadOptions } from './ports.ts';
import { readSlices } from './reader.ts';

export interface SliceWindow {
  /** Slices in flight ahead of the reader. */
  window: number;
  /** Most slices per upstream request. */
  maxSpan: number;
  budget: Budget;
  /** Hears how the read ended (SliceReadOptions.onEnd). */
  onEnd?: SliceReadOptions['onEnd'];
  /** Read slices ahead through the caches (slice-ahead.ts), when the next hop can store them: the silence bound of a copy from it (ms). */
  aheadIdleMs?: number;
}

/** Starts reading `indices` of `sliced`; resolves when the first is in hand (see readSlices). */
export function readObjectSlices(
  read: ObjectRead,
  sliced: SlicedObject,
  indices: readonly number[],
  window: SliceWindow,
): Promise<SliceRead> {
  return readSlices({
    meta: sliced.meta,
    indices,
    store: tierSlices(read.cache, read.key, sliced.meta, sliced.entry, read.waitUntil, read.collapseWait),
    fetchSpan: pinnedSpans(read, sliced.meta),
    window: window.window,
    maxSpan: window.maxSpan,
    budget: window.budget,
    prefetched: sliced.prefetched,
    // Read ahead within the isolate's share (readahead-pool.ts), whichever request asks.
    pool: isolateReadahead(window.window),
    ...(window.onEnd !== undefined ? { onEnd: window.onEnd } : {}),
    signal: read.signal,
    waitUntil: read.waitUntil,
    readAhead: window.aheadIdleMs === undefined ? undefined : throughCaches(read, sliced.meta, window.aheadIdleMs),
  });
}

/** Slices read ahead through the next hop's cache and this tier's, when the next hop can store them (the shield). */
function throughCaches(read: ObjectRead, meta: ObjectMeta, idleMs: number): ReadAhead | undefined {
  const { upstream } = read;
  if (upstream.warm === undefined) return undefined;
  return {
    warm: async (index, signal) => (await upstream.warm?.({ first: index, last: index }, meta, signal)) !== undefined,
    // Marked as the warm's copy: the two are one request for the slice, counted once (with the warm).
    fetchSlice: (index, signal) =>
      pinnedSpans({ ...read, signal }, meta, { copy: true })({ first: index, last: index }),
    idleMs,
  };
}

/** Fetches spans of the version `meta` describes; forgets the manifest when that version is gone. */
export function pinnedSpans(
  read: ObjectRead,
  meta: ObjectMeta,
  ask: Pick<SliceAsk, 'copy'> = {},
): (span: SliceSpan, from?: number) => Promise<ReadableStream<Uint8Array>> {
  return async (span, from) => {
    try {
      const answer = await read.upstream.slices(span, meta, { ...ask, from, signal: read.signal });
      if (answer.kind !== 'span') throw new VersionChanged('upstream no longer serves this object in slices');
      return answer.body;
    } catch (error) {
      if (error instanceof VersionChanged) await forgetObject(read);
      throw error;
    }
  };
}
