// The pump of a body read through a BodySource into a writer (a client, a put): one buffer,
// lent for each read and reused once the write of its bytes is done (why: body-source.ts).

import type { BodySource } from './body-source.ts';

type Bytes = Uint8Array;

/** Bytes lent per read by the pumps that read bodies (fills, ranged answers). */
export const CHUNK_BYTES = 256 * 1024;

/**
 * Every byte of `source` through `write`, reading into one buffer that is reused once each
 * write is done; `skip` bytes dropped first. The pump of a stored body into a client or a put.
 */
export async function pumpInto(source: BodySource, write: (bytes: Bytes) => Promise<void>, skip = 0): Promise<void> {
  let buffer: Bytes = new Uint8Array(CHUNK_BYTES);
  let toSkip = skip;
  for (;;) {
    const view = await source.read(buffer);
    if (view === undefined) return;
    buffer = new Uint8Array(view.buffer);
    if (toSkip >= view.byteLength) {
      toSkip -= view.byteLength;
      continue;
    }
    await write(toSkip > 0 ? view.subarray(toSkip) : view);
    toSkip = 0;
  }
}
