// One body for two readers, the tier's store and a client, where neither can hold up the other
// or the isolate. The source moves at the store's pace (a cache put takes bytes as fast as they
// come), so a slow or stalled client never slows the fill nor keeps the next hop's connection
// open. The client's branch keeps at most `readerLag` bytes it has not read; a client further
// behind lets go of the live body, and once it reads again gets the rest from `resume` (the
// stored copy, once complete, else the next hop from that byte). The standard `tee()` would
// instead buffer the whole body for the slower branch: one slice per stalled client.

import { asError } from './counted-body.ts';

type Bytes = Uint8Array;

/** What a client may hold unread of a body being stored before it lets go (and reads the rest back). */
export const READER_LAG = 1024 * 1024;

export interface TeeOptions {
  /** Bytes the client's branch may hold unread before it lets go of the live body. */
  readerLag: number;
  /** The body's bytes from `offset` on, for a client that let go. */
  resume(offset: number): Promise<ReadableStream<Bytes>>;
  /** When the client cancels: end everything (`cancel`: the next hop's body too, and the store) or let the store finish (`store`). */
  onClientCancel: 'cancel' | 'store';
}

export interface StoreTee {
  toStore: ReadableStream<Bytes>;
  toClient: ReadableStream<Bytes>;
  /** Ends both branches and the source (a disconnect, or the request given up). */
  abort(reason: unknown): void;
}

export function storeTee(source: ReadableStream<Bytes>, options: TeeOptions): StoreTee {
  const reader = source.getReader();
  let storeController: ReadableStreamDefaultController<Bytes> | undefined;
  let storeGone = false;
  let clientGone = false;
  let ended = false;
  let failure: Error | undefined;
  /** Chunks for the client, and how many bytes of the body it has been handed so far. */
  const queue: Bytes[] = [];
  let queued = 0;
  let handed = 0;
  let letGo = false;
  let resumed: ReadableStreamDefaultReader<Bytes> | undefined;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    wake?.();
    wake = undefined;
  };

  /** One chunk from the source to both branches; serialized, since either branch may drive. */
  let reading: Promise<void> | undefined;
  const readOnce = (): Promise<void> => (reading ??= (async () => {
    try {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        if (!storeGone) storeController?.close();
        return;
      }
      if (!storeGone) storeController?.enqueue(value);
      if (!clientGone && !letGo) {
        if (!storeGone && queued + value.byteLength > options.readerLag) letGo = true;
        else {
          // A copy: a native sink may detach the buffer it is handed.
          queue.push(storeGone ? value : value.slice());
          queued += value.byteLength;
          handed += value.byteLength;
        }
      }
    } catch (error) {
      failure = asError(error);
      if (!storeGone) storeController?.error(failure);
      storeGone = true;
    } finally {
      reading = undefined;
      notify();
    }
  })());

  const abort = (reason: unknown): void => {
    failure ??= asError(reason);
    if (!storeGone) storeController?.error(failure);
    storeGone = true;
    clientGone = true;
    queue.length = 0;
    void reader.cancel(reason).catch(() => undefined);
    void resumed?.cancel(reason).catch(() => undefined);
    notify();
  };

  const toStore = new ReadableStream<Bytes>(
    {
      start(controller) {
        storeController = controller;
      },
      pull: () => readOnce(),
      cancel(reason) {
        storeGone = true;
        // Nobody left to read the live body: let it go.
        if (clientGone || letGo) void reader.cancel(reason).catch(() => undefined);
        notify();
      },
    },
    { highWaterMark: 0 },
  );

  const toClient = new ReadableStream<Bytes>(
    {
      async pull(controller) {
        for (;;) {
          const chunk = queue.shift();
          if (chunk !== undefined) {
            queued -= chunk.byteLength;
            return controller.enqueue(chunk);
          }
          if (letGo) {
            resumed ??= (await options.resume(handed)).getReader();
            const read = await resumed.read();
            return read.done ? controller.close() : controller.enqueue(read.value);
          }
          if (failure !== undefined) return controller.error(failure);
          if (ended) return controller.close();
          // The store has gone (failed or done with): the client drives the source itself.
          if (storeGone) {
            await readOnce();
            continue;
          }
          await new Promise<void>((resolve) => (wake = resolve));
        }
      },
      cancel(reason) {
        clientGone = true;
        queue.length = 0;
        void resumed?.cancel(reason).catch(() => undefined);
        if (options.onClientCancel === 'cancel' || storeGone) abort(reason);
      },
    },
    { highWaterMark: 0 },
  );

  return { toStore, toClient, abort };
}
