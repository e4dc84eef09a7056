// A slice fetched from upstream by the slice reader (slice-sources.ts): stored as it arrives,
// the reader getting its share (and the rest from the store, should it fall behind: fill.ts).
// Straight through (its pace the reader's) when it may not be stored, or the budget has no room
// for the store and a read back.

import { bodySource } from '../../streams/body-source.ts';
import { type Fill, startFill } from '../fill.ts';
import type { SliceReadOptions, WindowState } from './ports.ts';

export interface SliceFillContext {
  options: SliceReadOptions;
  window: WindowState;
  /** Every fill under way, to cancel when the read is given up. */
  fills: Set<Fill>;
  /** What the rest of the read may still need of the budget. */
  held(): number;
  /** The slice's length. */
  length: number;
}

/** Slice `index` from `body`, stored as it passes: the reader's share of it. */
export function fillSlice(
  context: SliceFillContext,
  index: number,
  body: ReadableStream<Uint8Array>,
): ReadableStream<Uint8Array> {
  const { options, window, fills, length } = context;
  const { store, budget } = options;
  if (window.ended()) {
    void body.cancel().catch(() => undefined);
    store.release?.(index);
    return body;
  }
  const put = store.storing && budget.remaining - 2 >= context.held() ? store.open(index, length) : undefined;
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
      return { body: await options.fetchSpan({ first: index, last: index }, offset), from: offset };
    },
  });
  const { stored } = fill;
  // Seen through even once the response is done (a range that ended inside this slice).
  options.waitUntil?.(stored);
  fills.add(fill);
  void stored.finally(() => {
    fills.delete(fill);
    // On its way no more: a slice ahead of the reader gives its share back.
    window.giveBack(index);
  });
  return fill.client;
}
