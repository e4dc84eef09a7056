// A pipe JavaScript writes bytes into and the runtime reads out: the body of a response, of a cache
// put, or the part of a fill a client reads. It keeps no buffer and carries its length.

type Bytes = Uint8Array;

export interface PipeWriter {
  /** Done once the bytes are taken; `bytes` may be reused then. */
  write(bytes: Bytes): Promise<void>;
  close(): Promise<void>;
  abort(reason: unknown): Promise<void>;
  /**
   * Every byte of `body` into the pipe, moved by the runtime (no JavaScript per chunk); the pipe
   * stays open for more. `body` must be one the runtime made (native-body.ts). A body that fails
   * fails the pipe.
   */
  pipeFrom(body: ReadableStream<Bytes>): Promise<void>;
}

export interface IdentityPipe {
  readable: ReadableStream<Bytes>;
  writer: PipeWriter;
}

type Transform = new (length?: number) => TransformStream<Bytes, Bytes>;

function runtime(): { Fixed: Transform; Identity: Transform } | undefined {
  const scope = globalThis as { FixedLengthStream?: Transform; IdentityTransformStream?: Transform };
  return scope.FixedLengthStream === undefined || scope.IdentityTransformStream === undefined
    ? undefined
    : { Fixed: scope.FixedLengthStream, Identity: scope.IdentityTransformStream };
}

/**
 * A pipe of exactly `length` bytes (any number when undefined). In workerd a FixedLengthStream (or,
 * with no length known, an IdentityTransformStream): it keeps no buffer, so a write is done once the
 * reader has taken its bytes and the writer may reuse its buffer; it carries its length on the wire
 * (a chunked body that errors, or is aborted, is ended by workerd with its last chunk as if complete,
 * so no client is sent one: shared/tier/held-until-whole.ts), and fails unless exactly that many
 * bytes were written. Elsewhere (unit tests, Node) a TransformStream, whose writes are copied first
 * since it queues the chunk it is given.
 */
export function identityPipe(length: number | undefined): IdentityPipe {
  const native = runtime();
  const stream =
    native === undefined
      ? new TransformStream<Bytes, Bytes>()
      : length === undefined
        ? new native.Identity()
        : new native.Fixed(length);
  const copies = native === undefined;
  let writer = lock(stream.writable);
  return {
    readable: stream.readable,
    writer: {
      write: (bytes) => writer.write(copies ? bytes.slice() : bytes),
      close: () => writer.close(),
      abort: (reason) => writer.abort(reason).catch(() => undefined),
      async pipeFrom(body) {
        // The runtime's pipe needs the writable unlocked; our writer takes it back after.
        writer.releaseLock();
        try {
          await body.pipeTo(stream.writable, { preventClose: true });
        } finally {
          writer = lock(stream.writable);
        }
      },
    },
  };
}

function lock(writable: WritableStream<Bytes>): WritableStreamDefaultWriter<Bytes> {
  const writer = writable.getWriter();
  // A failed write or close is seen by whoever is waiting on it; none may go unhandled.
  void writer.closed.catch(() => undefined);
  return writer;
}
