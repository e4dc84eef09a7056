// A fill: one body from the next hop moving into this tier's store and, as it passes, to the client that asked
// for it.

import { asError } from '../streams/as-error.ts';
import { type BodySource, bodySource } from '../streams/body-source.ts';
import { identityPipe, type PipeWriter } from '../streams/identity-pipe.ts';
import { CHUNK_BYTES, pumpInto } from '../streams/pump-into.ts';
import { HeldUntilWhole } from './held-until-whole.ts';
import type { OpenPut } from './tier-cache.ts';

type Bytes = Uint8Array;

/** What a client may hold unread of a body being stored before it lets go (and reads the rest back). */
export const READER_LAG = 1024 * 1024;

export interface FillOptions {
  /** The body's length, when known: the client's pipe carries it. */
  length: number | undefined;
  /** Where the body is stored as it arrives; absent = not stored, the client sets the pace. */
  store?: OpenPut | undefined;
  /** Bytes the client may fall behind the store before it lets go. */
  readerLag?: number;
  /** The body again for a client that let go at `offset`: a stream of it starting at byte `from` (≤ offset). */
  resume?(offset: number): Promise<Resumed>;
  /** The client's: a body held for it (unknown length) lets go of what it holds as soon as this aborts. */
  signal?: AbortSignal | undefined;
}

/** The rest of a body for a client that fell behind: `body` holds its bytes from `from` on. */
export interface Resumed {
  body: ReadableStream<Bytes>;
  from: number;
}

export interface Fill {
  /**
   * The client's share of the body; of a body of unknown length, held until it has ended (wholeBody gives it with its
   * length).
   */
  client: ReadableStream<Bytes>;
  /** Settles once the fill is over: true when the body was stored exactly. */
  stored: Promise<boolean>;
  /** Ends the fill (the client went away): the source is let go, the store keeps nothing. */
  abort(reason: unknown): void;
}

/**
 * Starts a fill. The store sets the pace: a client that falls more than `readerLag` bytes behind is let go of, and
 * the fill goes on into the store at full speed (a slow or stalled client neither slows it nor keeps the next hop's
 * connection open), holding at most that lag for the client; once the client has read what it held it is fed the
 * rest from `resume` (the stored copy when complete, else the next hop from that byte). Without a store (the object
 * may not be kept) the client sets the pace, as a proxy's would. A client that cancels (a range that ended mid-body)
 * lets the fill go on; `abort` (the client went away) ends everything, and the store keeps nothing.
 */
export function startFill(source: BodySource, options: FillOptions): Fill {
  if (options.length === undefined) {
    // A body of unknown length is not streamed to the client at all: its share is held until the body has ended,
    // then goes out with its length (held-until-whole.ts).
    // Held in the store past what the isolate holds, when it is being stored and can be read back.
    const held = new HeldUntilWhole(options.store !== undefined ? options.resume : undefined, options.signal);
    const pump = new FillPump(source, held, options);
    return { client: held.placeholder, stored: pump.run(), abort: (reason) => pump.abort(reason) };
  }
  const pipe = identityPipe(options.length);
  const pump = new FillPump(source, pipe.writer, options);
  return { client: pipe.readable, stored: pump.run(), abort: (reason) => pump.abort(reason) };
}

/** A reused buffer and the writes still reading it. */
interface Lent {
  bytes: Bytes;
  writes: number;
}

/**
 * One pump reads the source into reused buffers and writes each chunk to both the store and the client: no chunk
 * becomes garbage, and no JavaScript stream stands between them.
 */
class FillPump {
  private readonly source: BodySource;
  /** The client's pipe; for a held body (unknown length) none until the body has ended. */
  private readonly client: PipeWriter | undefined;
  private readonly held: HeldUntilWhole | undefined;
  private readonly options: FillOptions;
  private readonly free: ArrayBuffer[] = [];
  /** live: fed each chunk; behind: let go of, fed from `resume` once it has read what it held; gone: cancelled. */
  private clientState: 'live' | 'behind' | 'gone' = 'live';
  /** Bytes written to the client and not yet taken. */
  private clientPending = 0;
  /** Bytes of the body handed to the client so far. */
  private clientHanded = 0;
  /** Settles once the client has taken every write handed to it so far. */
  private clientDrained: Promise<unknown> = Promise.resolve();
  private aborted: Error | undefined;

  constructor(source: BodySource, client: PipeWriter | HeldUntilWhole, options: FillOptions) {
    this.source = source;
    if (client instanceof HeldUntilWhole) this.held = client;
    else this.client = client;
    this.options = options;
  }

  async run(): Promise<boolean> {
    const { store } = this.options;
    try {
      for (;;) {
        const lent: Lent = { bytes: new Uint8Array(this.free.pop() ?? new ArrayBuffer(CHUNK_BYTES)), writes: 0 };
        const view = await this.source.read(lent.bytes);
        if (view === undefined) break;
        lent.bytes = view;
        if (store === undefined) {
          // Nothing to store: a proxy's pace, the client's (a held body: the next hop's).
          if (this.held !== undefined) this.held.take(view);
          else await this.client?.write(view);
          this.free.push(view.buffer as ArrayBuffer);
          continue;
        }
        const storing = this.write(lent, store.write(view));
        if (this.held !== undefined) this.held.take(view);
        else this.toClient(lent);
        await storing;
      }
      this.free.length = 0;
      if (this.held !== undefined) {
        const stored = store === undefined ? false : await store.close();
        this.held.end(this.source.delivered, stored);
        return store === undefined || stored;
      }
      // Queued after what the client has not read yet: the store is not kept waiting for it.
      if (this.clientState === 'live') void this.client?.close().catch(() => undefined);
      return store === undefined ? true : await store.close();
    } catch (error) {
      this.fail(asError(error));
      return false;
    }
  }

  abort(reason: unknown): void {
    this.aborted ??= asError(reason);
    this.source.cancel(reason);
  }

  /** A chunk to the client while it keeps up; past its lag, it is let go of and later resumed. */
  private toClient(lent: Lent): void {
    const { client } = this;
    if (client === undefined || this.clientState !== 'live') return;
    const n = lent.bytes.byteLength;
    // What the client's unread writes hold is memory, not bytes: a read that filled little of
    // its buffer (a network read is often 16 KiB of 256) is copied out, and one that filled
    // most pins the buffer; either way the lag counts what is held.
    const copy = n * 2 < lent.bytes.buffer.byteLength;
    const held = copy ? n : lent.bytes.buffer.byteLength;
    if (this.clientPending + held > (this.options.readerLag ?? READER_LAG)) {
      this.clientState = 'behind';
      void this.resumeClient(this.clientHanded);
      return;
    }
    this.clientPending += held;
    this.clientHanded += n;
    const writing = copy ? client.write(lent.bytes.slice()) : this.write(lent, client.write(lent.bytes));
    this.clientDrained = writing.then(
      () => (this.clientPending -= held),
      () => this.clientGone(),
    );
  }

  /** The client cancelled its share (a range that ended mid-body): the store goes on. */
  private clientGone(): void {
    if (this.clientState === 'live') this.clientState = 'gone';
  }

  /** Counts a write on a lent buffer; the buffer is reused once no write reads it. */
  private write(lent: Lent, writing: Promise<void>): Promise<void> {
    lent.writes++;
    return writing.finally(() => {
      if (--lent.writes === 0) this.free.push(lent.bytes.buffer as ArrayBuffer);
    });
  }

  /**
   * The rest of the body for a client that fell behind, once it has read what it holds: a
   * client that never reads again opens nothing more, and one that does finds the body
   * stored by then, most likely.
   */
  private async resumeClient(offset: number): Promise<void> {
    const { resume } = this.options;
    const { client } = this;
    await this.clientDrained;
    if (client === undefined || this.clientState === 'gone') return;
    try {
      if (resume === undefined) throw new Error('the client fell behind a body that cannot be read again');
      const rest = await resume(offset);
      const left = this.options.length === undefined ? undefined : this.options.length - rest.from;
      await pumpInto(bodySource(rest.body, { length: left }), (bytes) => client.write(bytes), offset - rest.from);
      await client.close();
    } catch (error) {
      await client.abort(error);
    }
  }

  private fail(error: Error): void {
    const reason = this.aborted ?? error;
    this.source.cancel(reason);
    this.options.store?.abort(reason);
    // A held body's answer has not gone out: it becomes a 502 (held-until-whole.ts).
    this.held?.fail(reason);
    if (this.clientState !== 'gone') void this.client?.abort(reason);
    this.clientState = 'gone';
  }
}
