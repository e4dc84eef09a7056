// Streams for tests: known bytes in chunks of a chosen size, with a hook for cancellation.

import { bodySource, type SourceOptions } from '../shared/streams/body-source.ts';
import { concatBytes } from '../shared/streams/bytes.ts';

/** `bytes` as a stream of chunks of at most `chunkSize` bytes; `onCancel` hears a cancel. */
export function streamOf(bytes: Uint8Array, chunkSize = 3, onCancel?: () => void): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (offset >= bytes.length) return controller.close();
        controller.enqueue(bytes.slice(offset, offset + chunkSize));
        offset += chunkSize;
      },
      cancel() {
        onCancel?.();
      },
    },
    { highWaterMark: 0 },
  );
}

/** The chunks as one byte array. */
export const concat = concatBytes;

/** How a test body goes wrong at its fault point: it errors, ends early, or falls silent. */
export type Fault = 'error' | 'end' | 'stall';

/**
 * `bytes` in chunks of `chunkSize`, going wrong (`fault`) once `cutAt` bytes have been sent;
 * `onCancel` hears a cancel (a stalled body is cancelled by whoever gave up on it).
 */
export function faultyStream(
  bytes: Uint8Array,
  cutAt: number,
  fault: Fault,
  chunkSize = 3,
  onCancel?: () => void,
): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (offset >= cutAt) {
          if (fault === 'error') return controller.error(new Error('connection reset'));
          if (fault === 'end') return controller.close();
          return new Promise<void>(() => undefined);
        }
        const end = Math.min(offset + chunkSize, cutAt, bytes.length);
        controller.enqueue(bytes.slice(offset, end));
        offset = end;
        if (offset >= bytes.length) controller.close();
      },
      cancel() {
        onCancel?.();
      },
    },
    { highWaterMark: 0 },
  );
}

/** Reads a stream to its end: the bytes, or the error it failed with. */
export async function readOutcome(stream: ReadableStream<Uint8Array>): Promise<{ bytes: Uint8Array; error: unknown }> {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { bytes: concat(chunks), error: undefined };
      chunks.push(value);
    }
  } catch (error) {
    return { bytes: concat(chunks), error };
  }
}

/** `n` bytes of a fixed pattern (never all one value, so an offset error shows). */
export function patternBytes(n: number): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => (i * 29 + 7) & 0xff);
}

/** Every byte of a body read through bodySource, or the error it failed with, through buffers of `lend` bytes. */
export async function drainSource(
  first: ReadableStream<Uint8Array>,
  options: SourceOptions,
  lend = 5,
): Promise<{ bytes: Uint8Array; error: unknown }> {
  const source = bodySource(first, options);
  const chunks: Uint8Array[] = [];
  try {
    for (;;) {
      const view = await source.read(new Uint8Array(lend));
      if (view === undefined) return { bytes: concatBytes(chunks), error: undefined };
      chunks.push(view.slice());
    }
  } catch (error) {
    return { bytes: concatBytes(chunks), error };
  }
}
