// A slice read ahead of its reader goes through the caches, not through memory. The next hop is
// asked to store it (the shield: a warm, one invocation of its own with its own connections);
// when the reader gets there, it reads the slice from the next hop's cache, moved by the
// runtime (no byte through JavaScript). So however slow the reader, the isolate holds none of
// the slices ahead of it, and their bytes cost it almost no CPU.
//
// This tier stores its own copy of each slice handed over that way once the read is over
// (CopiesBehind): copied from the next hop's cache into this one's, again moved by the runtime.
// Copying behind rather than before the reader keeps this tier's cache writes out of the way of
// the bytes the client is waiting for (both share the isolate's thread): the client gets them
// as fast as they land at the next hop, and this tier's cache has them moments after.
//
// When the warm or the hand-over fails, the slice is read the way that sees every byte (a fill,
// healing as it goes). A copy that fails stores
// nothing (the next read of that slice misses here and is a hit at the next hop).

import { moveDeadlineMs } from '../slices/move-deadline.ts';
import type { ReadAhead, SliceStore } from './slice-ports.ts';

/**
 * Copies into this tier's cache under way at once, per read: the puts it keeps waiting for
 * their answer (a put's answer comes once its body is stored), within the six connections an
 * invocation may keep waiting, beside what its reader's last slice may still hold.
 */
export const COPIES = 4;

/** Has the next hop store slice `index`: true once stored there; false when it could not (or was given up). */
export async function warmAhead(ahead: ReadAhead, index: number, signal: AbortSignal): Promise<boolean> {
  try {
    return await ahead.warm(index, signal);
  } catch {
    return false;
  }
}

/** The slices a read hands over from the next hop, stored here once the read is over, COPIES at once. */
export class CopiesBehind {
  private readonly ahead: ReadAhead;
  private readonly store: SliceStore;
  private readonly slices = new Map<number, number>();

  constructor(ahead: ReadAhead, store: SliceStore) {
    this.ahead = ahead;
    this.store = store;
  }

  /**
   * Slice `index` (warmed) for the reader once it gets there: fetched from the next hop's cache,
   * and copied here once the read is over; `fallback()` (a fill) when that fetch failed. Opened
   * once, whoever asks first (the reader, or the slice before it: slice-reading.ts).
   */
  opener(index: number, length: number, signal: AbortSignal, fallback: () => Promise<ReadableStream<Uint8Array>>): () => Promise<ReadableStream<Uint8Array>> {
    let opened: Promise<ReadableStream<Uint8Array>> | undefined;
    const open = async (): Promise<ReadableStream<Uint8Array>> => {
      const body = await this.ahead.fetchSlice(index, signal).catch(() => undefined);
      if (body === undefined) return fallback();
      // Not stored here until the copy: others waiting for this request to store it go to the next hop too.
      this.store.release?.(index);
      this.slices.set(index, length);
      return body;
    };
    return () => (opened ??= open());
  }

  /** Copies every slice handed over; resolves with the indices stored here exactly. */
  async run(): Promise<Set<number>> {
    const gate = new Gate(COPIES);
    const copied = new Set<number>();
    await Promise.all(
      [...this.slices].map(([index, length]) =>
        gate.run(async () => {
          if (await this.copy(index, length)) copied.add(index);
        }),
      ),
    );
    return copied;
  }

  private async copy(index: number, length: number): Promise<boolean> {
    // Its own deadline: the read is over, and its client may be gone.
    const signal = AbortSignal.timeout(moveDeadlineMs(length, this.ahead.idleMs));
    try {
      const body = await this.ahead.fetchSlice(index, signal);
      return await this.store.put(index, length, body, signal);
    } catch {
      return false;
    }
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
