// A slice read ahead of its reader through the caches, not through memory: stored at the next hop (a warm),
// copied into this tier's cache by the runtime (no byte through JavaScript), read back when the reader gets there.

import { moveDeadlineMs } from '../../slices/move-deadline.ts';
import type { ReadAhead, SliceStore } from './ports.ts';

/**
 * Copies into this tier's cache under way at once, per read. The copies are the puts this request
 * keeps waiting for their answer (a put's answer comes once its body is stored): with the reader's
 * own slice (its fetch and its put), within the six connections an invocation may keep waiting.
 */
export const COPIES = 4;

/**
 * Slice `index` read ahead: the next hop asked to store it (the shield's warm, one invocation of its
 * own with its own connections), then copied from the next hop's cache into this tier's, and read
 * back from there. However slow the reader, the isolate holds none of the slices ahead of it, and
 * their bytes cost it almost no CPU. Undefined when any step failed (the warm, the copy, the read
 * back): the caller then reads the slice the way that sees every byte (a fill, healing as it goes).
 */
export async function readAhead(
  ahead: ReadAhead,
  store: SliceStore,
  copies: Gate,
  index: number,
  length: number,
  signal: AbortSignal,
): Promise<ReadableStream<Uint8Array> | undefined> {
  try {
    if (!(await ahead.warm(index, signal))) return undefined;
    const copied = await copies.run(async () => {
      if (signal.aborted) return false;
      const body = await ahead.fetchSlice(index, signal);
      return store.put(index, length, body, deadline(signal, moveDeadlineMs(length, ahead.idleMs)));
    });
    return copied ? await store.read(index, length) : undefined;
  } catch {
    return undefined;
  }
}

/** At most `size` tasks at once; the rest wait their turn, in order. */
export class Gate {
  private readonly size: number;
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.size = size;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    // A task that ends hands its place to the next waiting, so none gets in ahead of them.
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next === undefined) this.running--;
      else next();
    }
  }
}

/** `signal`, or the deadline, whichever aborts first. */
export function deadline(signal: AbortSignal | undefined, ms: number): AbortSignal {
  const timeout = AbortSignal.timeout(ms);
  return signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
}
