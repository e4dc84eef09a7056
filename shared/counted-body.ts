// A body is exactly what it claims or it fails: every byte a tier stores or serves from its
// store passes a count. A body that ends short, runs long, breaks or falls silent errors the
// stream (it never simply closes), so nothing downstream can take it for a complete one: a
// cache put stores nothing, a client sees a broken transfer. Pure stream plumbing, no I/O of
// its own beyond the source and a timer.

type Bytes = Uint8Array;

/** A body shorter or longer than its Content-Length, its Content-Range or its slice. */
export class LengthMismatch extends Error {
  override name = 'LengthMismatch';
}

/** No byte arrived for longer than the idle bound while one was awaited (ORIGIN_IDLE_TIMEOUT_MS). */
export class BodyStalled extends Error {
  override name = 'BodyStalled';
}

export interface BodyWatch {
  /** Longest wait (ms) for the next chunk while one is awaited; 0 or absent = no bound. */
  idleMs?: number;
  /** Hears once, before the stream errors, why the body is not what it claims (a reader's cancel is neither). */
  onInexact?(error: Error): void;
  /** Hears once that the body ended with exactly the bytes it claims (`length`, when known). */
  onExact?(bytes: number): void;
}

/**
 * `source` counted against `length` (undefined = unknown: then only a clean end counts as
 * complete). Read through once; cancelling it cancels the source.
 */
export function countedBody(source: ReadableStream<Bytes>, length: number | undefined, watch: BodyWatch = {}): ReadableStream<Bytes> {
  const reader = source.getReader();
  let count = 0;
  let settled = false;
  const inexact = (controller: ReadableStreamDefaultController<Bytes>, error: Error): void => {
    if (!settled) watch.onInexact?.(error);
    settled = true;
    void reader.cancel(error).catch(() => undefined);
    controller.error(error);
  };
  const exact = (controller: ReadableStreamDefaultController<Bytes>): void => {
    settled = true;
    watch.onExact?.(count);
    controller.close();
  };
  return new ReadableStream<Bytes>({
    async pull(controller) {
      // Every byte it claims is in: done, whatever the source would still say (a connection
      // that then breaks, a Content-Length that promised more than the Content-Range).
      if (length !== undefined && count === length) {
        void reader.cancel().catch(() => undefined);
        return exact(controller);
      }
      let read: ReadableStreamReadResult<Bytes>;
      try {
        read = await readWithin(reader, watch.idleMs);
      } catch (error) {
        return inexact(controller, asError(error));
      }
      if (read.done) {
        if (length !== undefined && count !== length) return inexact(controller, new LengthMismatch(`body ended after ${count} of ${length} bytes`));
        return exact(controller);
      }
      count += read.value.byteLength;
      if (length !== undefined && count > length) return inexact(controller, new LengthMismatch(`body ran past its ${length} bytes`));
      controller.enqueue(read.value);
    },
    cancel(reason) {
      // The reader let go: the body is neither exact nor known to be wrong, only unread.
      settled = true;
      return reader.cancel(reason);
    },
  });
}

/** The next chunk, or BodyStalled once `idleMs` pass without one (the source is then cancelled by the caller). */
export async function readWithin<T>(reader: ReadableStreamDefaultReader<T>, idleMs: number | undefined): Promise<ReadableStreamReadResult<T>> {
  if (idleMs === undefined || idleMs <= 0) return reader.read();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const silence = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BodyStalled(`no byte for ${idleMs} ms`)), idleMs);
  });
  try {
    return await Promise.race([reader.read(), silence]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

export function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}

/** `source` without its first `offset` bytes (a stored copy read again from where a client left it). */
export function skipBytes(source: ReadableStream<Bytes>, offset: number): ReadableStream<Bytes> {
  if (offset === 0) return source;
  const reader = source.getReader();
  let toSkip = offset;
  return new ReadableStream<Bytes>({
    async pull(controller) {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          if (toSkip > 0) return controller.error(new LengthMismatch(`body ended ${toSkip} bytes before the offset`));
          return controller.close();
        }
        if (toSkip >= value.byteLength) {
          toSkip -= value.byteLength;
          continue;
        }
        const rest = toSkip > 0 ? value.subarray(toSkip) : value;
        toSkip = 0;
        return controller.enqueue(rest);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
