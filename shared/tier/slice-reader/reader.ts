// Reads the slices a request needs, in order, from this tier's store or from upstream, with a
// bounded window of slices in flight ahead of the reader (the read-ahead that lets a cold
// download pull several slices at once). Slices fetched from upstream are stored as they pass,
// the store setting the pace (fill.ts): a slice read ahead goes into the store, the reader
// keeping at most a little of it and reading the rest back when it gets there, so a reader
// that stops or slows holds neither memory nor a share of the isolate's read-ahead for longer
// than the slices it started take to arrive. When the read is given up (the client went away),
// every fetch it started is cancelled.
//
// The steps: this file hands out the pieces; slice-reading.ts keeps the window of slots ahead
// of the reader; slice-sources.ts decides where each slice comes from and what it may spend.

import type { Piece } from '../../streams/byte-stream.ts';
import type { SliceRead, SliceReadOptions } from './ports.ts';
import { SliceReading } from './window.ts';

/**
 * Subrequests a tier spends on a slice it reads and stores: look it up, have the next hop store
 * it (a slice read ahead), fetch it, store it, read it back.
 */
export const SUBREQUESTS_PER_SLICE = 5;

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
  return { pieces: piecesFrom(reading, first), ...reading.lookups() };
}

/** The read as an iterator, `first` (already taken) handed out before the rest. */
function piecesFrom(reading: SliceReading, first: IteratorResult<Piece>): AsyncIterator<Piece> {
  let pending: IteratorResult<Piece> | undefined = first;
  const cancelPending = async (reason?: unknown): Promise<void> => {
    if (pending !== undefined && !pending.done) await pending.value.body.cancel(reason).catch(() => undefined);
    pending = undefined;
  };
  return {
    next: () => {
      if (pending === undefined) return reading.take();
      const result = pending;
      pending = undefined;
      return Promise.resolve(result);
    },
    return: async () => {
      await cancelPending();
      reading.finish();
      return { done: true, value: undefined };
    },
    throw: async (error: unknown) => {
      await cancelPending(error);
      reading.giveUp(error);
      return { done: true, value: undefined };
    },
  };
}
