// A body of unknown length (the next hop sent no Content-Length), held until it has ended so that its answer goes
// out with its length on the wire, in the isolate up to HOLD_BYTES (and while the isolate's pool has room) and past
// that in the store.

import type { CacheStatusParams } from '../http/cache-status.ts';
import { BadGateway, HeldBodiesFull } from '../http/errors.ts';
import { asError } from '../streams/as-error.ts';
import { bodySource } from '../streams/body-source.ts';
import { identityPipe } from '../streams/identity-pipe.ts';
import { pumpInto } from '../streams/pump-into.ts';
import { type HeldPool, type HeldShare, isolateHeldPool } from './held-pool.ts';
import type { Resolved } from './resolved.ts';

type Bytes = Uint8Array;

/** What a chunk handed to the answer's pipe leaves in its place: the chunk is no longer held here. */
const EMPTY = new Uint8Array(0);

/**
 * What a tier holds of one body of unknown length in the isolate: as much as a client may hold
 * unread of a fill (fill.ts READER_LAG), and for the same reason (many answers share 128 MB; what
 * they hold in all is bounded by the isolate's pool, held-pool.ts).
 */
export const HOLD_BYTES = 1024 * 1024;

/** A held body once it has ended: `body` carries `length` on the wire. */
export interface WholeBody {
  body: ReadableStream<Bytes>;
  length: number;
  /** Whether the fill stored it (RFC 9211 §2.5 `stored`: known now, not guessed). */
  stored: boolean;
}

/** The body again from the store, from byte `from` (fill.ts FillOptions.resume). */
type Resume = (offset: number) => Promise<{ body: ReadableStream<Bytes>; from: number }>;

/** The held bodies, by the placeholder a fill hands out as its client's share. */
const held = new WeakMap<ReadableStream<Bytes>, Promise<WholeBody>>();

/**
 * A body of unknown length, held as a fill reads it, until it has ended (or failed).
 *
 * With its length on the wire, a transfer that breaks is visibly cut (the connection closes short of the
 * Content-Length). Sent chunked, it would not be: workerd ends a chunked body whose stream failed with the last
 * chunk, as if it were complete, whatever the failure (a JavaScript stream erroring, an IdentityTransformStream
 * aborted, a stream left hanging, through a service binding or not; probed, and cloudflare/workerd#6818), and a
 * client then holds a short body that looks whole.
 */
export class HeldUntilWhole {
  /** The fill's client share until the body is whole: reading it waits for the whole body. */
  readonly placeholder: ReadableStream<Bytes>;
  private chunks: Bytes[] = [];
  private bytes = 0;
  /**
   * Past HOLD_BYTES, or past what the pool has room for: the rest is held by the store, and the answer waits for it to
   * be stored, counted and read back with its length, as a client that fell behind a fill is (fill.ts).
   */
  private inStore = false;
  private readonly resume: Resume | undefined;
  /**
   * What this body holds of the isolate's pool: its bytes taken as they come, given back as its answer's pipe takes
   * them (or when they are dropped). One whose client left unheard after the head went out (workerd aborts
   * `request.signal` only before) stops being counted once it has stalled (held-pool.ts STALLED_SHARE_MS).
   */
  private readonly share: HeldShare;
  private readonly limit: number;
  /** Its client went away before the answer was handed out: nobody will read it. */
  private left = false;
  private readonly whole: Promise<WholeBody>;
  private settle!: { resolve(body: WholeBody): void; reject(reason: Error): void };

  /**
   * `resume` = the body is being stored and may be read back from the store (then it may be longer than HOLD_BYTES,
   * or held while the pool is full). `signal`: its client's, aborted when it goes away. `pool`: what the isolate's
   * held bodies share.
   */
  constructor(resume: Resume | undefined, signal?: AbortSignal, pool: HeldPool = isolateHeldPool) {
    this.resume = resume;
    this.share = pool.share();
    this.limit = pool.limit;
    this.whole = new Promise<WholeBody>((resolve, reject) => (this.settle = { resolve, reject }));
    // Seen by whoever asks for it (wholeBody); none may go unhandled.
    this.whole.catch(() => undefined);
    let reader: ReadableStreamDefaultReader<Bytes> | undefined;
    this.placeholder = new ReadableStream<Bytes>(
      {
        pull: async (controller) => {
          reader ??= (await this.whole).body.getReader();
          const next = await reader.read();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        },
        cancel: async (reason) => {
          await (reader ?? (await this.whole.catch(() => undefined))?.body)?.cancel(reason);
        },
      },
      // Nothing is pulled until someone reads: the whole body stays for wholeBody to hand out.
      { highWaterMark: 0 },
    );
    held.set(this.placeholder, this.whole);
    // Heard at once, not after a promise: a request whose client went away may never run another continuation.
    signal?.addEventListener('abort', () => this.leave(asError(signal.reason)), { once: true });
  }

  /**
   * The next bytes of the body (copied: the fill reuses its buffers). Past HOLD_BYTES, or past what the isolate's pool
   * has room for, the rest is held in the store; when it cannot be (a body that may not be stored: RFC 9111 §5.2.2.5,
   * §5.2.2.7 forbid putting it in the cache) it can be held nowhere, so it is refused before any byte goes out, rather
   * than sent in a way whose failure no client could see: a 502 when it is longer than any answer may hold, a 503
   * when the isolate holds too much of others.
   */
  take(bytes: Bytes): void {
    // Held for nobody: a body not being stored ends here, one being stored goes on into the store.
    if (this.left && this.resume === undefined) throw new Error('the client went away before the answer was whole');
    if (this.inStore || this.left) return;
    const n = bytes.byteLength;
    const fits = this.bytes + n <= HOLD_BYTES;
    if (fits && this.share.take(n)) {
      this.chunks.push(bytes.slice());
      this.bytes += n;
      return;
    }
    if (this.resume === undefined) {
      this.drop();
      if (!fits) {
        throw new BadGateway(
          `the answer has no Content-Length, is longer than ${HOLD_BYTES} bytes and may not be stored: it cannot be sent so that a cut would show`,
        ).because('length-unknown');
      }
      throw new HeldBodiesFull(
        `the answer has no Content-Length and may not be stored, and this tier holds as much as it may of such answers until they end (${this.limit} bytes): it cannot be sent so that a cut would show; ask again shortly`,
      );
    }
    this.inStore = true;
    this.drop();
  }

  /** The body has ended after `length` bytes; `stored` = the fill stored it. */
  end(length: number, stored: boolean): void {
    if (this.left) return;
    if (!this.inStore) {
      this.settle.resolve({ body: replayed(this.chunks, length, this.share), length, stored });
      this.chunks = [];
      return;
    }
    void this.fromStore(length).then(this.settle.resolve, (error: unknown) => this.settle.reject(asError(error)));
  }

  /** The body failed before its end: its answer is a 502 (nothing has gone out yet), and nothing of it is stored. */
  fail(reason: Error): void {
    this.drop();
    this.settle.reject(reason);
  }

  /** The client went away before the answer was whole: what is held for it is let go of at once. */
  private leave(reason: Error): void {
    if (this.left) return;
    this.left = true;
    this.drop();
    this.settle.reject(reason);
  }

  /** What the isolate holds of this body is let go of (given back to the pool). */
  private drop(): void {
    this.chunks = [];
    this.share.drop();
  }

  private async fromStore(length: number): Promise<WholeBody> {
    if (this.resume === undefined) throw new Error('a held body went to a store it has not');
    // From its first byte (a resume never starts past the offset asked for).
    const rest = await this.resume(0);
    const pipe = identityPipe(length);
    // Counted as it is read back: a stored copy that is not every byte breaks the answer's pipe.
    void pumpInto(bodySource(rest.body, { length }), (bytes) => pipe.writer.write(bytes))
      .then(() => pipe.writer.close())
      .catch((error: unknown) => pipe.writer.abort(error));
    return { body: pipe.readable, length, stored: true };
  }
}

/**
 * `chunks` (`length` bytes in all) as a body with its length on the wire, written as it is read: each chunk's bytes
 * go back to `share` once the pipe's reader has taken them (the pipe keeps no buffer), and all of them when it ends.
 */
function replayed(chunks: Bytes[], length: number, share: HeldShare): ReadableStream<Bytes> {
  const pipe = identityPipe(length);
  void (async () => {
    for (let i = 0; i < chunks.length; i++) {
      const chunk = chunks[i] ?? EMPTY;
      chunks[i] = EMPTY;
      await pipe.writer.write(chunk);
      share.giveBack(chunk.byteLength);
    }
    await pipe.writer.close();
  })()
    .catch((error: unknown) => pipe.writer.abort(error))
    .finally(() => share.drop());
  return pipe.readable;
}

/** The whole body `body` stands for, when it is a held one (its fill's client share); undefined otherwise. */
export function wholeBody(body: ReadableStream<Bytes>): Promise<WholeBody> | undefined {
  return held.get(body);
}

/**
 * A fill's answer once its body, when held, has ended: that body with its Content-Length, and
 * `stored` only if it was (RFC 9211 §2.5). One that broke first is a 502 (RFC 9110 §15.6.3):
 * no byte of it has gone out.
 */
export async function withKnownLength<Filled extends { resolved: Resolved }>(filled: Filled): Promise<Filled> {
  const { resolved } = filled;
  if (resolved.kind !== 'whole' || resolved.body === null) return filled;
  const holding = wholeBody(resolved.body);
  if (holding === undefined) return filled;
  let whole: WholeBody;
  try {
    whole = await holding;
  } catch (error) {
    // Refused before any byte (too long, or the pool full): that refusal is the answer.
    if (error instanceof BadGateway || error instanceof HeldBodiesFull) throw error;
    throw new BadGateway(
      `the next hop's answer, sent without a Content-Length, broke before its end (${asError(error).message}); nothing of it went out or was stored`,
    ).because('body-cut');
  }
  const headers = new Headers(resolved.headers);
  headers.set('content-length', String(whole.length));
  const report: CacheStatusParams = { ...resolved.report, stored: resolved.report.stored === true && whole.stored };
  return { ...filled, resolved: { ...resolved, headers, body: whole.body, report } };
}
