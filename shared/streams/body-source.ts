// A body from the next hop (or from this tier's store), read into buffers the reader lends,
// counted against the bytes it claims, bounded in silence, and healed where it can be.
//
// Why buffers are lent rather than chunks taken: every chunk JavaScript takes from a stream
// is garbage the runtime collects late. Measured in workerd, 512 MiB pumped as chunks grew the
// process by 72 MB; read into one reused buffer (a BYOB reader) and written on with the write
// awaited, by 15 MB. And a default reader of a stream workerd makes hands over 4 KiB per read
// (64 MiB from the Cache API in 16,384 reads, pumped at ~60 MiB/s); a BYOB reader, up to the
// buffer lent (64 reads of 1 MiB, ~650-830 MiB/s).
//
// Exactness: a body that ends short, breaks or falls silent is reopened from the byte reached
// (`heal`: a ranged GET with If-Match at the shield, the same slice request with an offset at
// the edge), a bounded number of times with backoff; past that, or without `heal`, reading
// fails. It never reads past the bytes it claims, and once they are in it is done, whatever the
// source would still say (a connection that then breaks, a Content-Length that promised more).

import { BodyStalled, LengthMismatch, VersionChanged } from '../http/errors.ts';


type Bytes = Uint8Array;


/** How a body that fails part-way is asked for again. */
export interface Heal {
  /** The same bytes from `offset` (within this body) on, from the next hop again. */
  reopen(offset: number): Promise<ReadableStream<Bytes>>;
  /** Reopenings allowed. */
  attempts: number;
  /** Wait before the first reopening (ms), doubled before each further one. */
  backoffMs: number;
}

/** Reopenings of one body, and the wait before the first: three, from 100 ms (100 + 200 + 400 ms in all). */
export const HEAL_ATTEMPTS = 3;
export const HEAL_BACKOFF_MS = 100;

export interface SourceOptions {
  /** Bytes the body claims; undefined = unknown (then only a clean end counts as complete). */
  length: number | undefined;
  /** Longest wait (ms) for the next bytes while they are awaited; 0 or absent = no bound. */
  idleMs?: number | undefined;
  heal?: Heal | undefined;
}

export interface BodySource {
  /**
   * The next bytes, read into `into`: a view of them (its buffer is the one to lend next time:
   * a BYOB read moves the memory it reads into), or undefined once every byte is in. Rejects
   * once the body has failed past healing.
   */
  read(into: Bytes): Promise<Bytes | undefined>;
  /** Bytes read so far. */
  readonly delivered: number;
  /** Stops reading; the source is cancelled (its connection let go). */
  cancel(reason?: unknown): void;
}

/** Bytes lent per read by the pumps that read bodies (fills, ranged answers). */
export const CHUNK_BYTES = 256 * 1024;

export function bodySource(first: ReadableStream<Bytes>, options: SourceOptions): BodySource {
  return new HealingSource(first, { ...annotations.get(first), ...defined(options) });
}

function defined(options: SourceOptions): SourceOptions {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as unknown as SourceOptions;
}

/** How the next hop's bodies may be read: their silence bound and how they heal (set where they arrive). */
const annotations = new WeakMap<ReadableStream<Bytes>, Omit<SourceOptions, 'length'>>();

/**
 * `body` as it came from the next hop, marked with how it may be read: whoever reads it
 * through bodySource bounds its silence and heals it so, wherever in the read path it ends up
 * (the tier that fetched it knows how to ask again; the reader need not).
 */
export function fromNextHop(body: ReadableStream<Bytes>, options: Omit<SourceOptions, 'length'>): ReadableStream<Bytes> {
  annotations.set(body, options);
  return body;
}

class HealingSource implements BodySource {
  delivered = 0;
  private reader: StreamReader;
  private attempt = 0;
  private cancelled = false;
  private finished = false;
  private readonly options: SourceOptions;
  /** The silence watch: when the read under way began (undefined: none is), and its one timer. */
  private waitingSince: number | undefined;
  private watchdog: ReturnType<typeof setTimeout> | undefined;
  private stalled = false;

  constructor(first: ReadableStream<Bytes>, options: SourceOptions) {
    this.reader = streamReader(first);
    this.options = options;
  }

  async read(lent: Bytes): Promise<Bytes | undefined> {
    const { length } = this.options;
    let into = lent;
    const size = lent.byteLength;
    for (;;) {
      if (this.cancelled) throw new Error('the body was cancelled');
      if (length !== undefined && this.delivered >= length) return this.done();
      // A read given up on (silent, broken) still holds the memory it was lent: lend anew.
      if (into.buffer.byteLength === 0) into = new Uint8Array(size);
      const room = length === undefined ? into : into.subarray(0, Math.min(into.byteLength, length - this.delivered));
      let read: ReadableStreamReadResult<Bytes>;
      try {
        read = await this.watched(room);
      } catch (error) {
        await this.heal(this.stallOr(asError(error)));
        continue;
      }
      if (read.done) {
        if (length === undefined && !this.stalled) return this.done();
        await this.heal(this.stallOr(new LengthMismatch(`body ended after ${this.delivered} of ${length} bytes`)));
        continue;
      }
      this.delivered += read.value.byteLength;
      return read.value;
    }
  }

  cancel(reason?: unknown): void {
    this.cancelled = true;
    this.unwatch();
    void this.reader.cancel(reason).catch(() => undefined);
  }

  /**
   * One read, watched for silence. A read costs no timer of its own: one timer per body checks
   * when the read under way began, and cancels a source silent for `idleMs` (the read then
   * ends, and is taken for the stall it is).
   */
  private async watched(into: Bytes): Promise<ReadableStreamReadResult<Bytes>> {
    const { idleMs } = this.options;
    if (idleMs === undefined || idleMs <= 0) return this.reader.read(into);
    this.waitingSince = Date.now();
    this.watchdog ??= setTimeout(() => this.check(idleMs), idleMs);
    try {
      return await this.reader.read(into);
    } finally {
      this.waitingSince = undefined;
    }
  }

  private check(idleMs: number): void {
    this.watchdog = undefined;
    if (this.waitingSince === undefined || this.cancelled || this.finished) return;
    const silent = Date.now() - this.waitingSince;
    if (silent < idleMs) {
      this.watchdog = setTimeout(() => this.check(idleMs), idleMs - silent);
      return;
    }
    this.stalled = true;
    void this.reader.cancel(new BodyStalled(`no byte for ${idleMs} ms`)).catch(() => undefined);
  }

  private unwatch(): void {
    if (this.watchdog !== undefined) clearTimeout(this.watchdog);
    this.watchdog = undefined;
  }

  /** The fault a failed read stands for: the stall, when the watch cut it. */
  private stallOr(fault: Error): Error {
    if (!this.stalled) return fault;
    this.stalled = false;
    return new BodyStalled(`no byte for ${this.options.idleMs} ms`);
  }

  private done(): undefined {
    if (!this.finished) {
      this.finished = true;
      this.unwatch();
      // Every byte it claims is in: the rest of the source is not ours to wait for.
      void this.reader.cancel().catch(() => undefined);
    }
    return undefined;
  }

  /** Replaces the broken source with a reopening from the byte reached; throws once no attempt is left. */
  private async heal(fault: Error): Promise<void> {
    void this.reader.cancel(fault).catch(() => undefined);
    const { heal } = this.options;
    for (;;) {
      if (heal === undefined || fault instanceof VersionChanged || this.attempt >= heal.attempts || this.cancelled) throw fault;
      await sleep(heal.backoffMs * 2 ** this.attempt);
      this.attempt++;
      if (this.cancelled) throw fault;
      try {
        this.reader = streamReader(await heal.reopen(this.delivered));
        return;
      } catch (error) {
        fault = asError(error);
      }
    }
  }
}

/** A stream read into buffers the caller lends: BYOB where the stream allows it, else copied from its chunks. */
interface StreamReader {
  read(into: Bytes): Promise<ReadableStreamReadResult<Bytes>>;
  cancel(reason?: unknown): Promise<void>;
}

function streamReader(stream: ReadableStream<Bytes>): StreamReader {
  let byob: ReadableStreamBYOBReader | undefined;
  try {
    byob = stream.getReader({ mode: 'byob' });
  } catch {
    // Not a byte stream (one made in JavaScript): its chunks, copied into the buffer lent.
  }
  if (byob !== undefined) {
    const reader = byob;
    return { read: (into) => reader.read(into) as Promise<ReadableStreamReadResult<Bytes>>, cancel: (reason) => reader.cancel(reason) };
  }
  const reader = stream.getReader();
  let leftover: Bytes | undefined;
  return {
    async read(into) {
      let chunk = leftover;
      leftover = undefined;
      if (chunk === undefined) {
        const next = await reader.read();
        if (next.done) return next;
        chunk = next.value;
      }
      const taken = Math.min(chunk.byteLength, into.byteLength);
      into.set(chunk.subarray(0, taken));
      if (taken < chunk.byteLength) leftover = chunk.subarray(taken);
      return { done: false, value: into.subarray(0, taken) };
    },
    cancel: (reason) => reader.cancel(reason),
  };
}

export function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

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
