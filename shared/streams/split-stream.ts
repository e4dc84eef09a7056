// Cutting one upstream body into exact-length parts: a span of slices into its slices.

import { CHUNK_BYTES, bodySource } from './body-source.ts';
import { LengthMismatch } from '../http/errors.ts';

type Bytes = Uint8Array;

/**
 * Splits `source` into consecutive parts of exactly `lengths` bytes. Parts must be read in
 * order (each waits for the one before it); a part nobody reads to its end is skipped over.
 * Every read of the source runs under one lock, so a part cancelled mid-read cannot race its
 * own pending read; once the source fails (short, long, broken), every later part fails too.
 */
export function splitStream(source: ReadableStream<Bytes>, lengths: readonly number[]): ReadableStream<Bytes>[] {
  // One part: the source itself (its length was checked from the headers; the reader of the
  // slices checks it again), so that it can still be piped natively.
  if (lengths.length === 1) return [source];
  // The parts are read in JavaScript, chunk by chunk: spans of several slices are the rare case
  // (a small subrequest budget), so fresh buffers are fine here.
  const reader = bodySource(source, { length: lengths.reduce((sum, length) => sum + length, 0) });
  let leftover: Bytes | undefined;
  let broken: unknown;
  let lock: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(run: () => Promise<T>): Promise<T> => {
    const result = lock.then(run);
    lock = result.catch(() => undefined);
    return result;
  };
  const next = async (): Promise<Bytes | undefined> => {
    if (leftover !== undefined) {
      const chunk = leftover;
      leftover = undefined;
      return chunk;
    }
    return reader.read(new Uint8Array(CHUNK_BYTES));
  };
  let turn = Promise.resolve();
  return lengths.map((length, index) => {
    let remaining = length;
    let finished = false;
    let release: () => void = () => undefined;
    const previous = turn;
    turn = new Promise<void>((resolve) => (release = resolve));
    const fail = (error: unknown): never => {
      broken ??= error;
      release();
      throw broken;
    };
    /** The source's next bytes; short or broken past healing fails this part and every later one. */
    const read = (): Promise<Bytes | undefined> => next().catch(fail);
    /** Skips what this part left unread; after the last part, checks nothing follows. */
    const finish = (): Promise<void> =>
      exclusive(async () => {
        if (finished) return;
        finished = true;
        while (remaining > 0 && broken === undefined) {
          const chunk = await read();
          if (chunk === undefined) fail(new LengthMismatch(`upstream body ended ${remaining} bytes early`));
          else {
            if (chunk.byteLength > remaining) leftover = chunk.subarray(remaining);
            remaining -= Math.min(remaining, chunk.byteLength);
          }
        }
        if (index === lengths.length - 1 && broken === undefined) {
          let extra = await read();
          while (extra !== undefined && extra.byteLength === 0) extra = await read();
          if (extra !== undefined) fail(new LengthMismatch('upstream body longer than announced'));
        }
        if (broken !== undefined) fail(broken);
        release();
      });
    return new ReadableStream<Bytes>({
      async pull(controller) {
        await previous;
        if (broken !== undefined) throw broken;
        const chunk = await exclusive(async () => {
          if (remaining === 0) return undefined;
          const bytes = await read();
          if (bytes === undefined) return fail(new LengthMismatch(`upstream body ended ${remaining} bytes early`));
          const take = bytes.byteLength > remaining ? bytes.subarray(0, remaining) : bytes;
          if (bytes.byteLength > remaining) leftover = bytes.subarray(remaining);
          remaining -= take.byteLength;
          return take;
        });
        if (chunk !== undefined) controller.enqueue(chunk);
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
