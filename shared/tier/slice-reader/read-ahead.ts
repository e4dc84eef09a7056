// A slice read ahead of its reader goes through the caches, not through memory. The next hop is
// asked to store it (the shield: a warm, one invocation of its own with its own connections),
// then this tier copies it from the next hop's cache into its own, moved by the runtime (no
// byte through JavaScript), and the reader, once it gets there, reads it back from this tier's
// cache. So however slow the reader, the isolate holds none of the slices ahead of it, and the
// bytes cost the isolate almost no CPU. The copies are the puts this request keeps waiting for
// their answer (a put's answer comes once its body is stored): at most COPIES at once: with the
// reader's own slice (its fetch and its put) within the six connections an invocation may keep
// waiting for their answers.
//
// Undefined when any step fails (the warm, the copy, the read back): the caller then reads the
// slice the way that sees every byte (a fill, healing as it goes).

import { moveDeadlineMs } from '../../slices/move-deadline.ts';
import type { ReadAhead, SliceStore } from './ports.ts';

/** Copies into this tier's cache under way at once, per read. */
export const COPIES = 4;

/** Slice `index` read ahead: stored at the next hop, copied here, and read back; undefined when any step failed. */
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
