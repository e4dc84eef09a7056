// Cutting one upstream body into exact-length parts: a span of slices into its slices.

import { LengthMismatch } from '../http/errors.ts';
import { type BodySource, bodySource } from './body-source.ts';
import { CHUNK_BYTES } from './pump-into.ts';

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
  const shared = new SharedSource(bodySource(source, { length: lengths.reduce((sum, length) => sum + length, 0) }));
  let turn = Promise.resolve();
  return lengths.map((length, index) => {
    let release: () => void = () => undefined;
    const previous = turn;
    turn = new Promise<void>((resolve) => (release = resolve));
    return partStream(new Part(shared, length, index === lengths.length - 1, release), previous);
  });
}

/** The source every part reads: one read at a time, the bytes read past a part's end, and its first failure. */
class SharedSource {
  /** Bytes read past the end of the part that read them: the next part's first. */
  leftover: Bytes | undefined;
  /** Why the source failed, once it has: every later read fails with it. */
  broken: unknown;
  private lock: Promise<unknown> = Promise.resolve();
  private readonly reader: BodySource;

  constructor(reader: BodySource) {
    this.reader = reader;
  }

  /** `run`, once every run before it has settled. */
  exclusive<T>(run: () => Promise<T>): Promise<T> {
    const result = this.lock.then(run);
    this.lock = result.catch(() => undefined);
    return result;
  }

  /** The bytes left over from the part before, else the source's next bytes; undefined at its end. */
  async next(): Promise<Bytes | undefined> {
    if (this.leftover !== undefined) {
      const chunk = this.leftover;
      this.leftover = undefined;
      return chunk;
    }
    return this.reader.read(new Uint8Array(CHUNK_BYTES));
  }
}

/** One part's share of the source: its bytes still to come, and its turn (released once it is done or failed). */
class Part {
  private remaining: number;
  private finished = false;
  private readonly shared: SharedSource;
  private readonly last: boolean;
  private readonly release: () => void;

  constructor(shared: SharedSource, length: number, last: boolean, release: () => void) {
    this.shared = shared;
    this.remaining = length;
    this.last = last;
    this.release = release;
  }

  get done(): boolean {
    return this.remaining === 0;
  }

  get broken(): unknown {
    return this.shared.broken;
  }

  /** The part's next bytes (undefined once it has them all), under the lock. */
  take(): Promise<Bytes | undefined> {
    return this.shared.exclusive(async () => {
      if (this.remaining === 0) return undefined;
      const bytes = await this.read();
      if (bytes === undefined)
        return this.fail(new LengthMismatch(`upstream body ended ${this.remaining} bytes early`));
      const take = bytes.byteLength > this.remaining ? bytes.subarray(0, this.remaining) : bytes;
      if (bytes.byteLength > this.remaining) this.shared.leftover = bytes.subarray(this.remaining);
      this.remaining -= take.byteLength;
      return take;
    });
  }

  /** Skips what this part left unread; after the last part, checks nothing follows. */
  finish(): Promise<void> {
    return this.shared.exclusive(async () => {
      if (this.finished) return;
      this.finished = true;
      await this.skipRest();
      if (this.last && this.shared.broken === undefined) await this.checkEnd();
      if (this.shared.broken !== undefined) this.fail(this.shared.broken);
      this.release();
    });
  }

  private async skipRest(): Promise<void> {
    while (this.remaining > 0 && this.shared.broken === undefined) {
      const chunk = await this.read();
      if (chunk === undefined) this.fail(new LengthMismatch(`upstream body ended ${this.remaining} bytes early`));
      else {
        if (chunk.byteLength > this.remaining) this.shared.leftover = chunk.subarray(this.remaining);
        this.remaining -= Math.min(this.remaining, chunk.byteLength);
      }
    }
  }

  private async checkEnd(): Promise<void> {
    let extra = await this.read();
    while (extra !== undefined && extra.byteLength === 0) extra = await this.read();
    if (extra !== undefined) this.fail(new LengthMismatch('upstream body longer than announced'));
  }

  /** The source's next bytes; short or broken past healing fails this part and every later one. */
  private read(): Promise<Bytes | undefined> {
    return this.shared.next().catch((error: unknown) => this.fail(error));
  }

  private fail(error: unknown): never {
    this.shared.broken ??= error;
    this.release();
    throw this.shared.broken;
  }
}

/** The part as a stream: read once the part before it is done, closed once it has every byte. */
function partStream(part: Part, previous: Promise<void>): ReadableStream<Bytes> {
  return new ReadableStream<Bytes>({
    async pull(controller) {
      await previous;
      if (part.broken !== undefined) throw part.broken;
      const chunk = await part.take();
      if (chunk !== undefined) controller.enqueue(chunk);
      if (part.done) {
        await part.finish();
        controller.close();
      }
    },
    async cancel() {
      await previous;
      await part.finish().catch(() => undefined);
    },
  });
}
