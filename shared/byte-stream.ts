// Byte plumbing for slices, in Web streams only: cut one upstream body into exact-length
// parts (a span into its slices), and cut the wanted byte ranges out of a run of slices.
// Every length is checked: a body that ends early or runs long errors the stream, so a
// short slice is never stored and a client never gets a silently truncated body.

import type { ByteRange } from './range.ts';

type Bytes = Uint8Array;

/** A run of the object's bytes starting at `offset`: a slice, or a whole object at 0. */
export interface Piece {
  offset: number;
  body: ReadableStream<Bytes>;
}

export class LengthMismatch extends Error {
  override name = 'LengthMismatch';
}

/**
 * Splits `source` into consecutive parts of exactly `lengths` bytes. Parts must be read in
 * order (each waits for the one before it); a part nobody reads to its end is skipped over.
 */
export function splitStream(source: ReadableStream<Bytes>, lengths: readonly number[]): ReadableStream<Bytes>[] {
  const reader = source.getReader();
  let leftover: Bytes | undefined;
  let turn = Promise.resolve();
  const next = async (): Promise<Bytes | undefined> => {
    if (leftover !== undefined) {
      const chunk = leftover;
      leftover = undefined;
      return chunk;
    }
    const { done, value } = await reader.read();
    return done ? undefined : value;
  };
  return lengths.map((length, index) => {
    let remaining = length;
    let release: () => void = () => undefined;
    const previous = turn;
    turn = new Promise<void>((resolve) => (release = resolve));
    const finish = async (): Promise<void> => {
      // Skip what a cancelled part left unread, so the next part starts at its first byte.
      while (remaining > 0) {
        const chunk = await next();
        if (chunk === undefined) break;
        if (chunk.byteLength > remaining) leftover = chunk.subarray(remaining);
        remaining -= Math.min(remaining, chunk.byteLength);
      }
      if (index === lengths.length - 1) {
        const extra = await next();
        if (extra !== undefined && extra.byteLength > 0) throw new LengthMismatch('upstream body longer than announced');
        reader.releaseLock();
      }
      release();
    };
    return new ReadableStream<Bytes>({
      async pull(controller) {
        await previous;
        if (remaining === 0) {
          await finish();
          controller.close();
          return;
        }
        const chunk = await next();
        if (chunk === undefined) throw new LengthMismatch(`upstream body ended ${remaining} bytes early`);
        const take = chunk.byteLength > remaining ? chunk.subarray(0, remaining) : chunk;
        if (chunk.byteLength > remaining) leftover = chunk.subarray(remaining);
        remaining -= take.byteLength;
        controller.enqueue(take);
        if (remaining === 0) {
          await finish();
          controller.close();
        }
      },
      async cancel() {
        await previous;
        await finish().catch(() => undefined);
      },
    });
  });
}

/**
 * The bytes of `ranges` (sorted, disjoint) taken from `pieces` (in object order), each range
 * preceded by its entry in `heads` if given, then `tail`: a single range, or the body of a
 * multipart/byteranges response.
 */
export function rangesStream(pieces: AsyncIterator<Piece>, ranges: readonly ByteRange[], heads: readonly Bytes[] = [], tail?: Bytes): ReadableStream<Bytes> {
  let current: { reader: ReadableStreamDefaultReader<Bytes>; position: number } | undefined;
  let rangeIndex = 0;
  let headSent = false;
  let done = false;
  return new ReadableStream<Bytes>({
    async pull(controller) {
      for (;;) {
        const range = ranges[rangeIndex];
        if (range === undefined) {
          if (!done) {
            done = true;
            if (tail) controller.enqueue(tail);
            await current?.reader.cancel();
            await pieces.return?.();
          }
          controller.close();
          return;
        }
        if (!headSent) {
          headSent = true;
          const head = heads[rangeIndex];
          if (head) {
            controller.enqueue(head);
            return;
          }
        }
        if (current === undefined) {
          const piece = await pieces.next();
          if (piece.done) throw new LengthMismatch('ran out of slices before the range ended');
          current = { reader: piece.value.body.getReader(), position: piece.value.offset };
        }
        const { done: ended, value } = await current.reader.read();
        if (ended) {
          current = undefined;
          continue;
        }
        const chunkStart = current.position;
        current.position += value.byteLength;
        const emitted = emit(controller, value, chunkStart);
        if (emitted) return;
      }
    },
    async cancel(reason) {
      await current?.reader.cancel(reason);
      await pieces.return?.();
    },
  });

  /** Enqueues the part of `chunk` (object offset `start`) inside the current range(s). */
  function emit(controller: ReadableStreamDefaultController<Bytes>, chunk: Bytes, start: number): boolean {
    let emitted = false;
    const end = start + chunk.byteLength - 1;
    for (let range = ranges[rangeIndex]; range !== undefined && range.start <= end; range = ranges[rangeIndex]) {
      if (!headSent) {
        headSent = true;
        const head = heads[rangeIndex];
        if (head) controller.enqueue(head);
      }
      const from = Math.max(range.start, start);
      const to = Math.min(range.end, end);
      if (from <= to) {
        controller.enqueue(from === start && to === end ? chunk : chunk.subarray(from - start, to - start + 1));
        emitted = true;
      }
      if (range.end > end) break;
      rangeIndex++;
      headSent = false;
    }
    return emitted;
  }
}

/**
 * `body` as a stream of exactly `length` bytes. In workerd a FixedLengthStream makes the
 * response carry Content-Length instead of chunked encoding (a JS stream alone has no length),
 * and errors if the source ends short or runs long. Elsewhere (unit tests) the body is returned as is.
 */
export function withLength(body: ReadableStream<Bytes>, length: number): ReadableStream<Bytes> {
  const Fixed = (globalThis as { FixedLengthStream?: new (length: number) => TransformStream<Bytes, Bytes> }).FixedLengthStream;
  if (Fixed === undefined) return body;
  const { readable, writable } = new Fixed(length);
  body.pipeTo(writable).catch(() => undefined);
  return readable;
}
