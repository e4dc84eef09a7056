// A body from the next hop (or from this tier's store), read into buffers the reader lends, counted
// against the bytes it claims, bounded in silence (silence-watch.ts) and healed where it can be (heal.ts).

import { LengthMismatch } from '../http/errors.ts';
import { asError } from './as-error.ts';
import { type NextHopOptions, nextHopOptions } from './from-next-hop.ts';
import { Reopenings } from './heal.ts';
import { SilenceWatch } from './silence-watch.ts';
import { type StreamReader, streamReader } from './stream-reader.ts';

type Bytes = Uint8Array;

export interface SourceOptions extends NextHopOptions {
  /** Bytes the body claims; undefined = unknown (then only a clean end counts as complete). */
  length: number | undefined;
}

// Buffers are lent rather than chunks taken because every chunk JavaScript takes from a stream is
// garbage the runtime collects late. Measured in workerd, 512 MiB pumped as chunks grew the process
// by 72 MB; read into one reused buffer (a BYOB reader) and written on with the write awaited, by
// 15 MB. (And a BYOB reader reads up to the buffer lent: stream-reader.ts.)
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

/** `first` read as a BodySource: `options` over how it was marked to be read (fromNextHop). */
export function bodySource(first: ReadableStream<Bytes>, options: SourceOptions): BodySource {
  return new HealingSource(first, { ...nextHopOptions(first), ...defined(options) });
}

function defined(options: SourceOptions): SourceOptions {
  return Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  ) as unknown as SourceOptions;
}

/**
 * Exact: a body that ends short, breaks or falls silent is reopened from the byte reached (`heal`:
 * a ranged GET with If-Match at the shield, the same slice request with an offset at the edge), a
 * bounded number of times with backoff; past that, or without `heal`, reading fails. It never reads
 * past the bytes it claims, and once they are in it is done, whatever the source would still say (a
 * connection that then breaks, a Content-Length that promised more).
 */
class HealingSource implements BodySource {
  delivered = 0;
  private reader: StreamReader;
  private cancelled = false;
  private finished = false;
  private readonly options: SourceOptions;
  private readonly watch: SilenceWatch;
  private readonly reopenings: Reopenings;

  constructor(first: ReadableStream<Bytes>, options: SourceOptions) {
    this.reader = streamReader(first);
    this.options = options;
    // A silent source is cancelled: the read under way then ends, and is taken for the stall.
    this.watch = new SilenceWatch(options.idleMs, (stall) => void this.reader.cancel(stall).catch(() => undefined));
    this.reopenings = new Reopenings(options.heal);
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
        read = await this.watch.watched(() => this.reader.read(room));
      } catch (error) {
        await this.heal(this.watch.stallOr(asError(error)));
        continue;
      }
      // Cancelled meanwhile: the read under way ends as if the body had (a stream cancelled reads done), which for a
      // body without a length would pass for its end.
      if (this.cancelled) throw new Error('the body was cancelled');
      if (read.done) {
        if (length === undefined && !this.watch.stalled) return this.done();
        await this.heal(
          this.watch.stallOr(new LengthMismatch(`body ended after ${this.delivered} of ${length} bytes`)),
        );
        continue;
      }
      this.delivered += read.value.byteLength;
      return read.value;
    }
  }

  cancel(reason?: unknown): void {
    this.cancelled = true;
    this.watch.stop();
    void this.reader.cancel(reason).catch(() => undefined);
  }

  private done(): undefined {
    if (!this.finished) {
      this.finished = true;
      this.watch.stop();
      // Every byte it claims is in: the rest of the source is not ours to wait for.
      void this.reader.cancel().catch(() => undefined);
    }
    return undefined;
  }

  /** Replaces the broken source with a reopening from the byte reached; throws once no attempt is left. */
  private async heal(fault: Error): Promise<void> {
    void this.reader.cancel(fault).catch(() => undefined);
    this.reader = await this.reopenings.reopened(fault, this.delivered, () => this.cancelled);
  }
}
