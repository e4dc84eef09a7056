// A run of an object's bytes that heals instead of failing: when the next hop's body breaks,
// falls silent or ends short part-way (a reset connection, a stalled origin), the missing rest
// is asked for again from the byte reached, pinned to the same version (`reopen`: a ranged GET
// with If-Match at the shield, the same slice request at the edge), a bounded number of times
// with backoff. Only then does the stream error, so a single fault costs the client nothing
// and a store downstream still receives every byte exactly once, or fails.

import { LengthMismatch, asError, readWithin } from './counted-body.ts';
import { VersionChanged } from './upstream.ts';

type Bytes = Uint8Array;

export interface Healing {
  /** The same bytes from `offset` (within this run) on, from the next hop again. */
  reopen(offset: number): Promise<ReadableStream<Bytes>>;
  /** Reopenings allowed for one run. */
  attempts: number;
  /** Wait before the first reopening (ms), doubled before each further one. */
  backoffMs: number;
  /** Longest silence inside the body (ms) before it counts as broken. */
  idleMs: number;
}

/** Reopenings of one run, and waits before them: three, from 100 ms (100 + 200 + 400 ms in all). */
export const HEAL_ATTEMPTS = 3;
export const HEAL_BACKOFF_MS = 100;

/** Exactly `length` bytes, from `first` and, where it fails, from reopenings. */
export function healingBody(first: ReadableStream<Bytes>, length: number, healing: Healing): ReadableStream<Bytes> {
  let reader = first.getReader();
  let delivered = 0;
  let attempt = 0;
  let cancelled = false;

  /** Replaces the broken source with a reopening from `delivered`; throws once no attempt is left. */
  const heal = async (fault: Error): Promise<void> => {
    void reader.cancel(fault).catch(() => undefined);
    for (;;) {
      if (fault instanceof VersionChanged || attempt >= healing.attempts || cancelled) throw fault;
      await sleep(healing.backoffMs * 2 ** attempt);
      attempt++;
      if (cancelled) throw fault;
      try {
        reader = (await healing.reopen(delivered)).getReader();
        return;
      } catch (error) {
        fault = asError(error);
      }
    }
  };

  return new ReadableStream<Bytes>({
    async pull(controller) {
      for (;;) {
        // Every byte is in: whatever the source does next (breaks, says more) no longer matters.
        if (delivered === length) {
          void reader.cancel().catch(() => undefined);
          return controller.close();
        }
        let read: ReadableStreamReadResult<Bytes>;
        try {
          read = await readWithin(reader, healing.idleMs);
        } catch (error) {
          await heal(asError(error)).catch((final: unknown) => controller.error(final));
          if (cancelled || isErrored(controller)) return;
          continue;
        }
        if (read.done) {
          await heal(new LengthMismatch(`body ended after ${delivered} of ${length} bytes`)).catch((final: unknown) => controller.error(final));
          if (cancelled || isErrored(controller)) return;
          continue;
        }
        const room = length - delivered;
        if (read.value.byteLength > room) {
          // More than the run holds: the next hop is not sending what it said. Take nothing of
          // it past what is known to be right, and ask again from there.
          await heal(new LengthMismatch(`body ran past its ${length} bytes`)).catch((final: unknown) => controller.error(final));
          if (cancelled || isErrored(controller)) return;
          continue;
        }
        delivered += read.value.byteLength;
        controller.enqueue(read.value);
        return;
      }
    },
    cancel(reason) {
      cancelled = true;
      return reader.cancel(reason);
    },
  });
}

/** Whether `controller.error` was called: desiredSize turns null then. */
function isErrored(controller: ReadableStreamDefaultController<Bytes>): boolean {
  return controller.desiredSize === null;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
