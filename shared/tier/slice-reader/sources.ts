// Where each slice of a read comes from (discovery, a span, this tier's store, the caches ahead, a fetch stored
// as it passes) and what it may spend of the request's subrequest budget: never what the rest of the read needs.

import type { Parallelism } from '../../slices/parallelism.ts';
import { sliceLength } from '../../slices/slice-plan.ts';
import { FETCH, FILL_STORE, LOOKUP, READ_AHEAD } from '../../slices/subrequest-costs.ts';
import { bodySource } from '../../streams/body-source.ts';
import { splitStream } from '../../streams/split-stream.ts';
import { type Fill, startFill } from '../fill.ts';
import { type PoolShares, URGENT_HOLD_MS } from './isolate-pool.ts';
import type { SliceReadOptions } from './ports.ts';
import { COPIES, Gate, readAhead } from './read-ahead.ts';

export class SliceSources {
  /** Of the slices looked up before the first byte: how many were there (hits), of how many (checked). */
  readonly stats = { hits: 0, checked: 0 };
  /** Slices that came from the store rather than upstream. */
  readonly stored = new Set<number>();
  private readonly options: SliceReadOptions;
  /** The read's shares of the isolate's pool: a slice stored here, or no longer on its way, gives its share back. */
  private readonly shares: PoolShares;
  /**
   * The download's parallelism, when slices are read ahead through the caches: each read ahead tells it how it went.
   */
  private readonly parallelism: Parallelism | undefined;
  /** The read is over (the window ended it): a slice arriving now is let go. */
  private ended = false;
  /** Slices a source was asked for, until the read ends (a span must not fetch one of them again). */
  private readonly started = new Set<number>();
  /** Slices coming in a span with an earlier one. */
  private readonly fromSpan = new Map<number, Promise<ReadableStream<Uint8Array>>>();
  /**
   * Fills under way that store nothing (the slice passes straight through): the only ones cancelled when the read is
   * given up, since no stored answer can use their bytes. A fill that stores goes on (the fill belongs to the cache).
   */
  private readonly passing = new Set<Fill>();
  /**
   * Positions from this one on are past what the reader has earned (demand.ts): a span stops there
   * rather than fetch slices nobody asked for yet (and may have stored), unless the budget needs it longer.
   */
  reachEnd = Number.POSITIVE_INFINITY;
  /** Lookups under way: each may still turn into a span of its own, so their budget is held back. */
  private lookingUp = 0;
  /** Positions before this one have a source (a lookup under way, a stored slice or a span). */
  private frontier = 0;
  /** Lookups of the first window, awaited before the first byte so the counts are exact. */
  private initialLookups: Promise<unknown>[] | undefined = [];
  /** The copies of slices read ahead into this tier's cache (read-ahead.ts). */
  private readonly copies = new Gate(COPIES);
  /**
   * What slices read ahead wait on. Never the client's: a warm sent, and the copy after it, are the cache's work and
   * finish once started, the client gone or not (Varnish's fetch belongs to the object, not the client); only their own
   * deadlines end them.
   */
  private readonly aheadSignal = new AbortController().signal;

  constructor(options: SliceReadOptions, shares: PoolShares, parallelism: Parallelism | undefined) {
    this.options = options;
    this.shares = shares;
    this.parallelism = parallelism;
  }

  /**
   * Waits for the lookups of the first window, at most `maxMs`: the counts are of those settled by then (a store slow
   * to answer, say under a burst of fills, does not hold the first byte back).
   */
  async firstLookups(maxMs: number): Promise<void> {
    let stop = (): void => undefined;
    const late = new Promise<'late'>((resolve) => {
      const timer = setTimeout(() => resolve('late'), maxMs);
      stop = () => clearTimeout(timer);
    });
    try {
      // Each lookup that settles may start more (the window refills as slots settle): all of
      // them count, so wait until none is left unsettled.
      for (let seen = 0; this.initialLookups !== undefined && seen < this.initialLookups.length; ) {
        const batch = this.initialLookups.slice(seen);
        seen = this.initialLookups.length;
        if ((await Promise.race([Promise.all(batch), late])) === 'late') break;
      }
    } finally {
      stop();
      this.initialLookups = undefined;
    }
  }

  /** The read is over: what arrives from now on is let go. */
  end(): void {
    this.ended = true;
    this.started.clear();
  }

  /**
   * The read is given up (the client went away): the fills that store nothing are cancelled. Every slice whose fetch
   * has started is still completed into the store (the client's share of it was let go of by the window), and
   * nothing more is started (end).
   */
  abort(reason: unknown): void {
    for (const fill of this.passing) fill.abort(reason);
    this.passing.clear();
  }

  /**
   * The slice at position `at`: came with discovery, comes with a span, is stored here, or is fetched. `throughCaches`:
   * read ahead through the caches when it can be; `aheadOfReader`: nobody needs it yet, so it goes upstream only once
   * no request of the isolate waits for a byte it needs now (or URGENT_HOLD_MS has passed).
   */
  async produce(at: number, throughCaches = false, aheadOfReader = false): Promise<ReadableStream<Uint8Array>> {
    const { indices, prefetched, urgency } = this.options;
    const index = indices[at] ?? -1;
    this.started.add(index);
    const came = prefetched?.get(index);
    if (came !== undefined) {
      // Fetched with discovery: known to be missing here.
      if (this.initialLookups !== undefined) this.stats.checked++;
      return this.storing(index, came);
    }
    const spanned = this.fromSpan.get(index);
    if (spanned !== undefined) return spanned;
    this.frontier = Math.max(this.frontier, at + 1);
    const lookup = this.lookUp(index);
    if (lookup !== undefined) {
      const found = await lookup;
      if (found !== undefined) {
        this.lookingUp--;
        // A stored slice is read as the reader goes, not buffered ahead: it needs no share.
        this.shares.giveBack(index);
        this.stored.add(index);
        return found;
      }
      // Still counted as a lookup while it waits, so the span it may turn into stays held back.
      if (aheadOfReader && !this.ended) await urgency?.clear(URGENT_HOLD_MS);
      // Released in the same step as the span it may turn into spends its subrequest: no gap
      // in which a store could take what that span needs.
      this.lookingUp--;
    }
    // Over meanwhile: a slice nobody will read is never started, and whoever waits for this request to store it need
    // wait no longer.
    if (this.ended) return this.notStarted(index);
    if (throughCaches && lookup !== undefined && this.mayReadAhead()) {
      const read = await this.throughCaches(index);
      if (read !== undefined) return read;
      // Over meanwhile, the read ahead failed: nothing more is fetched for it.
      if (this.ended) return this.notStarted(index);
    }
    // A miss, or no budget to look: the span starts in this same step (with no lookup, before
    // the window's next slot looks for a span to join).
    return this.startSpan(at);
  }

  /** Slice `index` will not be fetched by this read: its claim goes, and its slot fails (no reader is left for it). */
  private notStarted(index: number): never {
    this.options.store.release?.(index);
    throw new Error('the read was over before this slice was started');
  }

  /**
   * Reading slices ahead through the caches (read-ahead.ts) is possible here, and the budget leaves room for it and a
   * fill after.
   */
  private mayReadAhead(): boolean {
    const { readAhead: ahead, store, budget } = this.options;
    // The read ahead; and should it fail, the fill's fetch.
    return ahead !== undefined && store.storing && budget.remaining - READ_AHEAD >= FETCH + this.held();
  }

  /**
   * Slice `index` stored ahead at the next hop, copied here and read back; undefined when that failed (it is then
   * fetched as it comes).
   */
  private async throughCaches(index: number): Promise<ReadableStream<Uint8Array> | undefined> {
    const { readAhead: ahead, store, budget } = this.options;
    if (ahead === undefined) return undefined;
    budget.remaining -= READ_AHEAD;
    const length = this.length(index);
    const read = await readAhead(ahead, store, this.copies, index, length, this.aheadSignal);
    if (read === undefined) this.parallelism?.backOff();
    else this.parallelism?.completed(length);
    if (read === undefined || this.ended) {
      if (read !== undefined) void read.cancel().catch(() => undefined);
      return undefined;
    }
    // In this tier's store now: the reader reads it from there, holding nothing for it.
    this.shares.giveBack(index);
    this.stored.add(index);
    return read;
  }

  /**
   * Slice `index` from this tier's store (resolving undefined on a miss; `lookingUp` counts it
   * until the caller lets go); undefined when the budget allows no lookup.
   */
  private lookUp(index: number): Promise<ReadableStream<Uint8Array> | undefined> | undefined {
    const { budget, store } = this.options;
    // Looking it up costs a LOOKUP; should it and every lookup under way miss, each needs a span of
    // its own, and the rest packs into spans from the next slice on.
    if (budget.remaining - LOOKUP < FETCH + this.held()) return undefined;
    budget.remaining -= LOOKUP;
    this.lookingUp++;
    const lookup = store.get(index, this.length(index));
    if (this.initialLookups !== undefined) {
      // Counted as it settles, while the first byte still waits for it (firstLookups).
      const counted = (found: unknown): void => {
        if (this.initialLookups === undefined) return;
        this.stats.checked++;
        if (found !== undefined) this.stats.hits++;
      };
      this.initialLookups.push(lookup.then(counted, () => counted(undefined)));
    }
    return lookup.catch(() => undefined);
  }

  /** Fetches the slice at `at` and the following ones nobody started yet, while consecutive, as one span. */
  private startSpan(at: number): Promise<ReadableStream<Uint8Array>> {
    const { indices, maxSpan, prefetched, budget, store, fetchSpan } = this.options;
    const first = indices[at] ?? -1;
    let last = first;
    for (let next = at + 1; next < indices.length && last - first + 1 < maxSpan; next++) {
      const index = indices[next] ?? -1;
      if (index !== last + 1 || this.started.has(index) || prefetched?.has(index)) break;
      // Past the reader's reach, when spans of maxSpan from here on still fit what is left after this one.
      if (next >= this.reachEnd && budget.remaining - FETCH >= FETCH * this.lookingUp + this.reserve(next)) break;
      last = index;
    }
    budget.remaining -= FETCH;
    this.frontier = Math.max(this.frontier, at + last - first + 1);
    const parts = fetchSpan({ first, last }).then((body) => {
      const lengths = Array.from({ length: last - first + 1 }, (_, i) => this.length(first + i));
      return splitStream(body, lengths);
    });
    parts.catch(() => {
      for (let index = first; index <= last; index++) store.release?.(index);
    });
    for (let index = first; index <= last; index++) {
      const part = parts.then((streams) => this.storing(index, streams[index - first] as ReadableStream<Uint8Array>));
      void part.catch(() => undefined);
      this.fromSpan.set(index, part);
    }
    return this.fromSpan.get(first) as Promise<ReadableStream<Uint8Array>>;
  }

  /**
   * A slice fetched from upstream, stored as it arrives: the reader gets its share, and the rest
   * from the store should it fall behind (fill.ts). Straight through (its pace the reader's) when
   * it may not be stored, or the budget has no room for the put and a read back. A slice arriving
   * once the read is over is still stored (its fetch had started: the fill belongs to the cache),
   * with no reader.
   */
  private storing(index: number, body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    const { options } = this;
    const { store, budget } = options;
    const length = this.length(index);
    const put = store.storing && budget.remaining - FILL_STORE >= this.held() ? store.open(index, length) : undefined;
    if (put === undefined) {
      store.release?.(index);
      // Nobody will read it, and nothing can keep it.
      if (this.ended) {
        void body.cancel().catch(() => undefined);
        return body;
      }
    } else budget.remaining -= FILL_STORE;
    const fill = startFill(bodySource(body, { length }), {
      length,
      store: put,
      resume: async (offset) => {
        if (put !== undefined && (await stored)) {
          const found = await store.get(index, length);
          if (found !== undefined) return { body: found, from: 0 };
        }
        // Not stored after all: the rest from the next hop (the subrequest was reserved).
        return { body: await options.fetchSpan({ first: index, last: index }, offset), from: offset };
      },
    });
    const { stored } = fill;
    // Seen through even once the response is done (a range that ended inside this slice) or the client has gone.
    options.waitUntil?.(stored);
    if (put === undefined) this.passing.add(fill);
    void stored.finally(() => {
      this.passing.delete(fill);
      // On its way no more: a slice ahead of the reader gives its share back.
      this.shares.giveBack(index);
    });
    // No reader left: the client's share is let go of at once, and the store goes on.
    if (this.ended) void fill.client.cancel().catch(() => undefined);
    return fill.client;
  }

  /**
   * Upstream requests still needed for the slices from position `at` on, were all of them
   * misses: a lookup or a store may only spend what is left over, so every byte is still delivered.
   */
  private reserve(at: number): number {
    return FETCH * Math.ceil((this.options.indices.length - at) / this.options.maxSpan);
  }

  /** What the rest of the read may still need: a span per pending lookup, packed spans past the frontier. */
  private held(): number {
    return FETCH * this.lookingUp + this.reserve(this.frontier);
  }

  private length(index: number): number {
    return sliceLength(index, this.options.meta.sliceSize, this.options.meta.size);
  }
}
