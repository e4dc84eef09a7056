// A fill: one body from the next hop moving into this tier's store and, as it passes, to the client that asked
// for it.

import { BadGateway } from '../http/errors.ts';
import { abandonVerdict, type FillLimits, pastAllowance, pastUnknownLengthMax } from '../store/fill-budget.ts';
import { asError } from '../streams/as-error.ts';
import { type BodySource, bodySource } from '../streams/body-source.ts';
import { identityPipe, type PipeWriter } from '../streams/identity-pipe.ts';
import { CHUNK_BYTES, pumpInto } from '../streams/pump-into.ts';
import { HeldUntilWhole } from './held-until-whole.ts';
import type { OpenPut } from './tier-cache.ts';

type Bytes = Uint8Array;

/** What a client may hold unread of a body being stored before it lets go (and reads the rest back). */
const READER_LAG = 1024 * 1024;

/**
 * How often a client let go of, that has read all it held and waits for the rest, is handed one byte of what it needs
 * next (a beat), in bytes the fill pulls meanwhile: a client that has gone takes none, and the fill hears it (workerd
 * hears that a client closed its connection only when it writes to it; slice-warm.ts beats for the same reason). Counted
 * in bytes, not time: workerd runs timers only once no I/O is ready, and a fill streaming without a pause is just when
 * this matters.
 */
const BEAT_EVERY = 256 * 1024;
/** The bytes kept for those beats when a client is let go of: a beat each, for 1 GiB of fill (a whole object is less). */
const BEAT_BYTES = 4096;

export interface FillOptions {
  /** The body's length, when known: the client's pipe carries it. */
  length: number | undefined;
  /** Where the body is stored as it arrives; absent = not stored, the client sets the pace. */
  store?: OpenPut | undefined;
  /** Bytes the client may fall behind the store before it lets go. */
  readerLag?: number;
  /** The body again for a client that let go at `offset`: a stream of it starting at byte `from` (≤ offset). */
  resume?(offset: number): Promise<Resumed>;
  /**
   * The client's request signal: aborted when it went away. A body held for it (unknown length) lets go of what it
   * holds at once, and, for a body held until whole (its share is read only then), it is the only way the fill hears
   * that its client left; for any other, it may come before the share's next write fails.
   */
  signal?: AbortSignal | undefined;
  /**
   * The bounds of a body without a length, and what a fill may pull once nobody waits for it (shared/store/
   * fill-budget.ts); absent: none apply (a body this tier copies from its own store).
   */
  limits?: FillLimits | undefined;
  /**
   * How a fill from the next hop hears that it has lost its clients; absent: it is never abandoned (nobody asked for
   * it: the cache did, as for a background refresh).
   */
  clients?: FillClients | undefined;
}

/** The isolate's budget of bytes pulled for nobody (abandoned-fills.ts). */
export interface AbandonedPool {
  /** Holds `bytes` for a fill left by its clients: false (nothing held) when the isolate has no room for them. */
  take(bytes: number): boolean;
  /** The fill has ended: what it held goes back. */
  giveBack(bytes: number): void;
}

/** A fill's clients besides the one reading its share (and its `signal`), and the isolate's budget once none is left. */
export interface FillClients {
  pool: AbandonedPool;
  /** Whether other requests of the isolate wait for this fill (collapse.ts): it goes on for them. */
  awaited?(): boolean;
}

/** The rest of a body for a client that fell behind: `body` holds its bytes from `from` on. */
interface Resumed {
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
 * may not be kept) the client sets the pace, as a proxy's would. A fill whose clients all left (its share cancelled, a
 * range that ended mid-body, the client's signal, and no collapsed request waiting) goes on only as `limits` allow:
 * when what is left is within ABANDONED_FILL_MAX and the isolate's budget has room; otherwise it stops, the store
 * keeping nothing. A body without a length stops past UNKNOWN_LENGTH_MAX or UNKNOWN_LENGTH_TIMEOUT_MS (its answer a
 * 502). `abort` (the client went away) ends everything, and the store keeps nothing.
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
  /**
   * A client let go of that has read all it held and waits for the rest (resumeClient): the next bytes it needs, handed
   * one a beat (beat); `at` is where it is in the body, `lastBeat` the bytes pulled at the last beat.
   */
  private waiting: { beats: Bytes; sent: number; at: number; lastBeat: number; beating: Promise<void> } | undefined;
  /** Settles once the client has taken every write handed to it so far. */
  private clientDrained: Promise<unknown> = Promise.resolve();
  private aborted: Error | undefined;
  /** Once its clients all left: the bytes delivered then, and the allowance it holds of the isolate's budget. */
  private abandoned: { at: number; allowance: number } | undefined;
  /**
   * The deadlines under way (a body without a length, an abandoned fill), each checked at every chunk and by a timer
   * for a body gone quiet: a timer alone would not do, as workerd runs timers only once no I/O is ready, so a body that
   * streams without a pause holds its own off (locally, a 16 MiB/s body kept a 500 ms timer from firing for seconds).
   */
  private readonly deadlines: { at: number; reason: () => Error; timer: ReturnType<typeof setTimeout> }[] = [];

  constructor(source: BodySource, client: PipeWriter | HeldUntilWhole, options: FillOptions) {
    this.source = source;
    if (client instanceof HeldUntilWhole) this.held = client;
    else this.client = client;
    this.options = options;
  }

  async run(): Promise<boolean> {
    const { store, limits } = this.options;
    if (this.held !== undefined && limits !== undefined)
      this.deadline(limits.unknownLengthMs, () => tooSlow(limits.unknownLengthMs));
    try {
      for (;;) {
        const lent: Lent = { bytes: new Uint8Array(this.free.pop() ?? this.newBuffer()), writes: 0 };
        const view = await this.source.read(lent.bytes);
        if (view === undefined) break;
        lent.bytes = view;
        this.withinBounds();
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
        this.beat();
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
    } finally {
      for (const { timer } of this.deadlines) clearTimeout(timer);
      if (this.abandoned !== undefined) this.options.clients?.pool.giveBack(this.abandoned.allowance);
    }
  }

  /**
   * A buffer to read into: CHUNK_BYTES, or what is left of a body of known length when that is less. workerd zeroes
   * and maps every page of a new ArrayBuffer: a 20 KB body read into 256 KiB buffers (one more for a short read) spent
   * about 5 % of a small miss's CPU in allocating them (perf, bench/sim/ttfb-probe.ts), and a tier runs on one thread,
   * so that CPU is waited for by every request behind it.
   */
  private newBuffer(): ArrayBuffer {
    const { length } = this.options;
    const left = length === undefined ? CHUNK_BYTES : length - this.source.delivered;
    return new ArrayBuffer(Math.max(1, Math.min(CHUNK_BYTES, left)));
  }

  abort(reason: unknown): void {
    this.aborted ??= asError(reason);
    this.source.cancel(reason);
  }

  /**
   * Throws when the fill must stop, after the chunk just read: a body without a length past the longest a tier takes,
   * or a fill nobody waits for any more past what it may pull for nobody.
   */
  private withinBounds(): void {
    const { limits, clients, store } = this.options;
    if (limits === undefined) return;
    const { delivered } = this.source;
    const now = Date.now();
    for (const deadline of this.deadlines) if (now >= deadline.at) throw deadline.reason();
    if (this.held !== undefined && pastUnknownLengthMax(delivered, limits)) throw tooLong(limits.unknownLengthMax);
    // Without a store the client sets the pace: gone, its next write fails the fill.
    if (store === undefined || clients === undefined || this.wanted(clients)) return;
    if (this.abandoned === undefined) {
      const verdict = abandonVerdict(delivered, this.options.length, limits);
      if (!verdict.go) throw new Error(verdict.why);
      if (!clients.pool.take(verdict.allowance))
        throw new Error(
          `nobody waits for this fill any more, and the isolate already pulls ${limits.abandonedIsolateMax} bytes for nobody (ABANDONED_ISOLATE_MAX)`,
        );
      this.abandoned = { at: delivered, allowance: verdict.allowance };
      this.deadline(
        verdict.deadlineMs,
        () => new Error(`nobody waits for this fill any more, and it did not end within ${verdict.deadlineMs} ms`),
      );
    } else if (pastAllowance(delivered - this.abandoned.at, this.abandoned.allowance)) {
      throw new Error(
        `nobody waits for this fill any more, and it ran past the ${this.abandoned.allowance} bytes it may pull for nobody (ABANDONED_FILL_MAX)`,
      );
    }
  }

  /**
   * Whether anyone still waits for this fill: its client (its share not cancelled, its request not gone; a held
   * body's client is heard only through its request), or another request collapsed on it.
   */
  private wanted(clients: FillClients): boolean {
    const here = this.options.signal?.aborted !== true && (this.held !== undefined || this.clientState !== 'gone');
    return here || clients.awaited?.() === true;
  }

  /** Ends the fill with `reason()` once `ms` have passed, unless it has ended by then. */
  private deadline(ms: number, reason: () => Error): void {
    this.deadlines.push({ at: Date.now() + ms, reason, timer: setTimeout(() => this.abort(reason()), ms) });
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
      // The first bytes it will need next, kept for its beats.
      void this.resumeClient(this.clientHanded, lent.bytes.slice(0, Math.min(n, BEAT_BYTES)));
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

  /**
   * The client cancelled its share (a range that ended mid-body, or it went away), whether it was keeping up or had
   * been let go of: the store goes on, as far as `limits` allow a fill nobody waits for.
   */
  private clientGone(): void {
    this.clientState = 'gone';
  }

  /** Counts a write on a lent buffer; the buffer is reused once no write reads it. */
  private write(lent: Lent, writing: Promise<void>): Promise<void> {
    lent.writes++;
    return writing.finally(() => {
      if (--lent.writes === 0) this.free.push(lent.bytes.buffer as ArrayBuffer);
    });
  }

  /**
   * A beat for a client waiting for the rest (resumeClient), once per BEAT_EVERY bytes pulled while beats are left:
   * the next byte it needs. One it cannot take means it has gone.
   */
  private beat(): void {
    const { waiting, client } = this;
    if (waiting === undefined || client === undefined || this.clientState === 'gone') return;
    if (this.source.delivered - waiting.lastBeat < BEAT_EVERY || waiting.sent >= waiting.beats.byteLength) return;
    waiting.lastBeat = this.source.delivered;
    const byte = waiting.beats.subarray(waiting.sent, waiting.sent + 1);
    waiting.sent++;
    waiting.at++;
    waiting.beating = waiting.beating.then(
      () => client.write(byte),
      () => undefined,
    );
    waiting.beating.catch(() => this.clientGone());
  }

  /**
   * The rest of the body for a client that fell behind, once it has read what it holds: a
   * client that never reads again opens nothing more, and one that does finds the body
   * stored by then, most likely. Meanwhile it is handed `beats` (the bytes it needs next) a
   * byte at a time as the fill goes on (beat), so that a client that has gone is heard.
   */
  private async resumeClient(offset: number, beats: Bytes): Promise<void> {
    const { resume } = this.options;
    const { client } = this;
    await this.clientDrained;
    if (client === undefined || this.clientState === 'gone') return;
    let resuming: Promise<Resumed> | undefined;
    try {
      if (resume === undefined) throw new Error('the client fell behind a body that cannot be read again');
      this.waiting = { beats, sent: 0, at: offset, lastBeat: this.source.delivered, beating: Promise.resolve() };
      resuming = resume(offset);
      const rest = await resuming;
      const { at, beating } = this.waiting;
      this.waiting = undefined;
      await beating;
      const left = this.options.length === undefined ? undefined : this.options.length - rest.from;
      await pumpInto(bodySource(rest.body, { length: left }), (bytes) => client.write(bytes), at - rest.from);
      await client.close();
    } catch (error) {
      // Nothing more can reach it.
      this.waiting = undefined;
      void resuming?.then((rest) => rest.body.cancel()).catch(() => undefined);
      this.clientGone();
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

/** RFC 9110 §15.6.3: a body without a length longer than a tier takes is a 502 before any byte of it goes out. */
function tooLong(max: number): BadGateway {
  return new BadGateway(
    `the answer has no Content-Length and ran past ${max} bytes, the most a tier takes of one (UNKNOWN_LENGTH_MAX): nothing of it went out or was stored`,
  ).because('body-too-long');
}

/** A body without a length that has not ended by its deadline: a 502 too, before any byte of it goes out. */
function tooSlow(ms: number): BadGateway {
  return new BadGateway(
    `the answer has no Content-Length and had not ended ${ms} ms after its head (UNKNOWN_LENGTH_TIMEOUT_MS): nothing of it went out or was stored`,
  ).because('body-too-slow');
}
