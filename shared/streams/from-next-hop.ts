// The next hop's bodies, marked where they arrive with how they may be read: their silence
// bound and how they heal. bodySource reads a body so, wherever in the read path it ends up.

import type { Heal } from './heal.ts';

type Bytes = Uint8Array;

/** How a body may be read, whatever its length: its silence bound and how it heals. */
export interface NextHopOptions {
  /** Longest wait (ms) for the next bytes while they are awaited; 0 or absent = no bound. */
  idleMs?: number | undefined;
  heal?: Heal | undefined;
}

/** How the next hop's bodies may be read: their silence bound and how they heal (set where they arrive). */
const annotations = new WeakMap<ReadableStream<Bytes>, NextHopOptions>();

/**
 * `body` as it came from the next hop, marked with how it may be read: whoever reads it
 * through bodySource bounds its silence and heals it so, wherever in the read path it ends up
 * (the tier that fetched it knows how to ask again; the reader need not).
 */
export function fromNextHop(body: ReadableStream<Bytes>, options: NextHopOptions): ReadableStream<Bytes> {
  annotations.set(body, options);
  return body;
}

/** How `body` was marked to be read (fromNextHop); undefined for a body not so marked. */
export function nextHopOptions(body: ReadableStream<Bytes>): NextHopOptions | undefined {
  return annotations.get(body);
}
