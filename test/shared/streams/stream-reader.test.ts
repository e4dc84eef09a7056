import { describe, expect, it } from 'vitest';
import { streamReader } from '../../../shared/streams/stream-reader.ts';

import { concat, patternBytes, streamOf } from '../../streams.ts';

const bytes = patternBytes;

/** A byte stream (BYOB-readable) of `source`, filling each buffer lent as far as it goes. */
function byteStream(source: Uint8Array, onCancel?: (reason: unknown) => void): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    type: 'bytes',
    pull(controller) {
      const request = controller.byobRequest;
      if (offset >= source.length) {
        controller.close();
        request?.respond(0);
        return;
      }
      if (request?.view == null) throw new Error('expected a BYOB read');
      const view = new Uint8Array(request.view.buffer, request.view.byteOffset, request.view.byteLength);
      const taken = Math.min(view.byteLength, source.length - offset);
      view.set(source.subarray(offset, offset + taken));
      offset += taken;
      request.respond(taken);
    },
    cancel: (reason) => onCancel?.(reason),
  }) as ReadableStream<Uint8Array>;
}

/** Every byte the reader gives, lending `lend` bytes per read; the views, and the buffers each came back in. */
async function readAll(
  stream: ReadableStream<Uint8Array>,
  lend: number,
): Promise<{ bytes: Uint8Array; views: Uint8Array[] }> {
  const reader = streamReader(stream);
  const views: Uint8Array[] = [];
  let into = new Uint8Array(lend);
  for (;;) {
    const read = await reader.read(into);
    if (read.done) return { bytes: concat(views.map((view) => view.slice())), views };
    views.push(read.value);
    into = new Uint8Array(lend);
  }
}

describe('streamReader', () => {
  it('reads a byte stream into the buffers lent (BYOB), up to each buffer', async () => {
    const { bytes: read, views } = await readAll(byteStream(bytes(25)), 10);
    expect(read).toEqual(bytes(25));
    expect(views.map((view) => view.byteLength)).toEqual([10, 10, 5]);
  });

  it('copies the chunks of a stream made in JavaScript into the buffers lent, keeping what does not fit for the next read', async () => {
    for (const [chunk, lend] of [
      [3, 2],
      [3, 3],
      [7, 2],
      [2, 7],
    ] as const) {
      const { bytes: read, views } = await readAll(streamOf(bytes(20), chunk), lend);
      expect(read, `${chunk} ${lend}`).toEqual(bytes(20));
      expect(views.every((view) => view.byteLength <= lend && view.byteLength > 0)).toBe(true);
    }
  });

  it('answers a copied read in the memory lent', async () => {
    const reader = streamReader(streamOf(bytes(6), 6));
    const into = new Uint8Array(4);
    const read = await reader.read(into);
    expect(read.done).toBe(false);
    expect(read.value?.buffer).toBe(into.buffer);
    expect(read.value).toEqual(bytes(4));
    expect(await reader.read(new Uint8Array(4))).toEqual({ done: false, value: bytes(6).subarray(4) });
    expect((await reader.read(new Uint8Array(4))).done).toBe(true);
  });

  it('cancels the stream with the reason, either way', async () => {
    let byobReason: unknown;
    await streamReader(byteStream(bytes(10), (reason) => (byobReason = reason))).cancel('enough');
    expect(byobReason).toBe('enough');
    let cancelled = false;
    await streamReader(streamOf(bytes(10), 3, () => (cancelled = true))).cancel('enough');
    expect(cancelled).toBe(true);
  });
});
