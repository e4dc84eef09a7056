// A body read to its end and let go, its bytes counted: what warming a cache does with the answer it caused (the tier
// stores the body as it passes; nobody needs it). One buffer lent over and over (stream-reader.ts: BYOB where the
// stream allows it), so an object of any size passes through at most DRAIN_BUFFER bytes of memory.

import { asError } from './as-error.ts';
import { streamReader } from './stream-reader.ts';

/** The buffer a body is drained through: large enough that a BYOB read moves a slice in a few reads. */
const DRAIN_BUFFER = 1024 * 1024;

/** How a drained body ended: its bytes, and the error it broke with, if it did. */
export interface Drained {
  bytes: number;
  error?: Error;
}

/** Reads `body` to its end, counting its bytes; never rejects (a broken body says so in `error`). */
export async function drain(body: ReadableStream<Uint8Array> | null): Promise<Drained> {
  if (body === null) return { bytes: 0 };
  const reader = streamReader(body);
  let buffer: Uint8Array = new Uint8Array(DRAIN_BUFFER);
  let bytes = 0;
  try {
    for (;;) {
      const read = await reader.read(buffer);
      if (read.done) return { bytes };
      bytes += read.value.byteLength;
      // A BYOB read hands the buffer back in its view (the one lent is detached); a copying one fills it in place.
      buffer = new Uint8Array(read.value.buffer);
    }
  } catch (error) {
    await reader.cancel(error).catch(() => undefined);
    return { bytes, error: asError(error) };
  }
}
