// readSlices (shared/tier/slice-reader/reader.ts) over faked ports: a store in a Map and a scripted next hop.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VersionChanged } from '../../../../shared/http/errors.ts';
import type { ObjectMeta } from '../../../../shared/slices/object-meta.ts';
import type { SliceSpan } from '../../../../shared/slices/slice-plan.ts';
import type { Piece } from '../../../../shared/streams/byte-stream.ts';
import type { Budget } from '../../../../shared/tier/ports.ts';
import { FIRST_AHEAD, GROWTH } from '../../../../shared/tier/slice-reader/demand.ts';
import { Urgency } from '../../../../shared/tier/slice-reader/isolate-pool.ts';
import type { SliceRead, SliceReadOptions, SliceStore, SpanFetch } from '../../../../shared/tier/slice-reader/ports.ts';
import { readSlices } from '../../../../shared/tier/slice-reader/reader.ts';
import type { OpenPut } from '../../../../shared/tier/tier-cache.ts';
import { concat, streamOf } from '../../../streams.ts';

const SLICE = 4;
const PLENTY = 10_000;

/** An object whose every byte is distinguishable from its neighbours. */
function objectBytes(size: number): Uint8Array {
  return Uint8Array.from({ length: size }, (_, i) => (i * 7 + 3) & 0xff);
}

function objectMeta(size: number, sliceSize = SLICE): ObjectMeta {
  return { size, sliceSize, etag: '"v1"', headers: new Headers({ etag: '"v1"' }) };
}

function range(count: number, from = 0): number[] {
  return Array.from({ length: count }, (_, i) => from + i);
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const tick = (ms = 0): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** This tier's slices in a Map: what a lookup finds and what gets stored. */
class MemoryStore implements SliceStore {
  readonly storing = true;
  readonly slices = new Map<number, Uint8Array>();
  readonly gets: number[] = [];
  readonly puts: number[] = [];
  readonly cancelled: number[] = [];
  readonly forgotten: number[] = [];
  private readonly writes: Promise<void>[] = [];

  constructor(bytes: Uint8Array, stored: Iterable<number> = []) {
    for (const index of stored) this.slices.set(index, bytes.slice(index * SLICE, (index + 1) * SLICE));
  }

  async get(index: number, length: number): Promise<ReadableStream<Uint8Array> | undefined> {
    this.gets.push(index);
    const slice = this.slices.get(index);
    return slice !== undefined && slice.length === length
      ? streamOf(slice, 3, () => this.cancelled.push(index))
      : undefined;
  }

  open(index: number, length: number): OpenPut {
    this.puts.push(index);
    const chunks: Uint8Array[] = [];
    let settle: (stored: boolean) => void = () => undefined;
    const done = new Promise<boolean>((resolve) => (settle = resolve));
    this.writes.push(done.then(() => undefined));
    return {
      write: async (bytes) => void chunks.push(bytes.slice()),
      close: async () => {
        const bytes = concat(chunks);
        const exact = bytes.length === length;
        if (exact) this.slices.set(index, bytes);
        settle(exact);
        return exact;
      },
      abort: async () => {
        settle(false);
        return false;
      },
    };
  }

  /** A native put, counted here as workerd's FixedLengthStream would: exactly `length` bytes or nothing. */
  async put(index: number, length: number, body: ReadableStream<Uint8Array>): Promise<boolean> {
    const put = this.open(index, length);
    const reader = body.getReader();
    try {
      for (let read = await reader.read(); !read.done; read = await reader.read()) await put.write(read.value);
    } catch {
      return put.abort(undefined);
    }
    return put.close();
  }

  async read(index: number, length: number): Promise<ReadableStream<Uint8Array> | undefined> {
    const slice = this.slices.get(index);
    return slice !== undefined && slice.length === length
      ? streamOf(slice, 3, () => this.cancelled.push(index))
      : undefined;
  }

  forget(index: number): void {
    this.forgotten.push(index);
    this.slices.delete(index);
  }

  /** Resolves once every put has been read to its end. */
  async settled(): Promise<void> {
    await Promise.all(this.writes);
  }
}

/** The next hop: records each span asked for; may be slow, or report a version change. */
class FakeUpstream {
  readonly spans: SliceSpan[] = [];
  active = 0;
  mostActive = 0;
  delayMs = 0;
  /** A span holding any of these slices throws VersionChanged. */
  changedAt = new Set<number>();
  /** Called with each span as it is asked for. */
  onFetch: (span: SliceSpan) => void = () => undefined;

  private readonly bytes: Uint8Array;
  private readonly sliceSize: number;

  constructor(bytes: Uint8Array, sliceSize = SLICE) {
    this.bytes = bytes;
    this.sliceSize = sliceSize;
  }

  readonly fetchSpan: SpanFetch = async (span) => {
    this.spans.push(span);
    this.onFetch(span);
    this.active++;
    this.mostActive = Math.max(this.mostActive, this.active);
    try {
      if (this.delayMs > 0) await tick(this.delayMs);
      for (let index = span.first; index <= span.last; index++) {
        if (this.changedAt.has(index))
          throw new VersionChanged(`slice ${index} came back with ETag "v2", expected "v1"`);
      }
      const start = span.first * this.sliceSize;
      const end = Math.min((span.last + 1) * this.sliceSize, this.bytes.length);
      return streamOf(this.bytes.slice(start, end), 5);
    } finally {
      this.active--;
    }
  };

  /** Every slice asked for, in the order asked. */
  fetchedSlices(): number[] {
    return this.spans.flatMap((span) => range(span.last - span.first + 1, span.first));
  }
}

/** A reader over `size` bytes with sensible defaults; any option can be overridden. */
function setup(size: number, overrides: Partial<SliceReadOptions> & { stored?: Iterable<number> } = {}) {
  const bytes = objectBytes(size);
  const store = new MemoryStore(bytes, overrides.stored);
  const upstream = new FakeUpstream(bytes);
  const count = Math.ceil(size / SLICE);
  const options: SliceReadOptions = {
    meta: objectMeta(size),
    indices: range(count),
    store,
    fetchSpan: upstream.fetchSpan,
    window: 3,
    maxSpan: 4,
    budget: { remaining: PLENTY },
    ...overrides,
  };
  return { bytes, store, upstream, options };
}

/** Reads every piece to its end, in order; checks each piece's offset and length against its bytes. */
async function readPieces(
  read: SliceRead,
  onPiece: (piece: Piece) => void = () => undefined,
): Promise<{ offsets: number[]; bytes: Uint8Array[] }> {
  const offsets: number[] = [];
  const bytes: Uint8Array[] = [];
  for (;;) {
    const next = await read.pieces.next();
    if (next.done) break;
    offsets.push(next.value.offset);
    const body = await readAll(next.value.body);
    expect(body.length).toBe(next.value.length);
    bytes.push(body);
    onPiece(next.value);
  }
  return { offsets, bytes };
}

function sliceOf(bytes: Uint8Array, index: number): Uint8Array {
  return bytes.slice(index * SLICE, (index + 1) * SLICE);
}

describe('readSlices', () => {
  it('reads every slice in order, each at its offset with its bytes, the last one short', async () => {
    const { bytes, options } = setup(38);
    const { offsets, bytes: pieces } = await readPieces(await readSlices(options));
    expect(offsets).toEqual(range(10).map((index) => index * SLICE));
    expect(pieces.map((piece) => piece.length)).toEqual([...Array(9).fill(SLICE), 2]);
    expect(Buffer.concat(pieces)).toEqual(Buffer.from(bytes));
  });

  it('reads only the slices asked for', async () => {
    const { bytes, options } = setup(40, { indices: [2, 3, 4, 8] });
    const { offsets, bytes: pieces } = await readPieces(await readSlices(options));
    expect(offsets).toEqual([8, 12, 16, 32]);
    expect(pieces).toEqual([2, 3, 4, 8].map((index) => sliceOf(bytes, index)));
  });

  it('serves stored slices without going upstream', async () => {
    const { bytes, store, upstream, options } = setup(40, { stored: range(10) });
    const { bytes: pieces } = await readPieces(await readSlices(options));
    expect(Buffer.concat(pieces)).toEqual(Buffer.from(bytes));
    expect(upstream.spans).toEqual([]);
    expect(store.puts).toEqual([]);
  });

  it("stores every slice it fetches, with exactly that slice's bytes", async () => {
    const { bytes, store, options } = setup(38);
    await readPieces(await readSlices(options));
    await store.settled();
    expect([...store.puts].sort((a, b) => a - b)).toEqual(range(10));
    for (const index of range(10)) expect(store.slices.get(index), `slice ${index}`).toEqual(sliceOf(bytes, index));
  });

  it('fetches only the slices it did not find, when the window sees every slice', async () => {
    const odd = range(10).filter((index) => index % 2 === 1);
    const { bytes, store, upstream, options } = setup(40, {
      stored: range(10).filter((index) => index % 2 === 0),
      window: 10,
    });
    const { bytes: pieces } = await readPieces(await readSlices(options));
    expect(Buffer.concat(pieces)).toEqual(Buffer.from(bytes));
    expect(upstream.fetchedSlices().sort((a, b) => a - b)).toEqual(odd);
    expect([...store.puts].sort((a, b) => a - b)).toEqual(odd);
  });

  it('asks for consecutive missing slices as one span, of at most maxSpan slices', async () => {
    const { upstream, options } = setup(40, { window: 1, maxSpan: 3 });
    await readPieces(await readSlices(options));
    expect(upstream.spans).toEqual([
      { first: 0, last: 2 },
      { first: 3, last: 5 },
      { first: 6, last: 8 },
      { first: 9, last: 9 },
    ]);
  });

  it('never runs a span over a gap in the slices asked for', async () => {
    const { upstream, options } = setup(80, { indices: [0, 1, 2, 7, 8, 15], window: 1, maxSpan: 8 });
    await readPieces(await readSlices(options));
    expect(upstream.spans).toEqual([
      { first: 0, last: 2 },
      { first: 7, last: 8 },
      { first: 15, last: 15 },
    ]);
  });

  it('delivers every byte whatever is stored, fetching each slice at most once, in spans of at most maxSpan', async () => {
    const scenario = fc.record({
      count: fc.integer({ min: 1, max: 30 }),
      lastLength: fc.integer({ min: 1, max: SLICE }),
      stored: fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }),
      window: fc.integer({ min: 1, max: 6 }),
      maxSpan: fc.integer({ min: 1, max: 8 }),
      delayMs: fc.constantFrom(0, 1),
    });
    await fc.assert(
      fc.asyncProperty(scenario, async ({ count, lastLength, stored, window, maxSpan, delayMs }) => {
        const size = (count - 1) * SLICE + lastLength;
        const { bytes, store, upstream, options } = setup(size, {
          stored: range(count).filter((index) => stored[index]),
          window,
          maxSpan,
        });
        upstream.delayMs = delayMs;
        const { bytes: pieces } = await readPieces(await readSlices(options));
        expect(Buffer.concat(pieces)).toEqual(Buffer.from(bytes));
        const fetched = upstream.fetchedSlices();
        expect(new Set(fetched).size).toBe(fetched.length);
        for (const span of upstream.spans) {
          expect(span.first).toBeLessThanOrEqual(span.last);
          expect(span.last - span.first + 1).toBeLessThanOrEqual(maxSpan);
        }
        // A slice looked up and found is never also fetched.
        const found = store.gets.filter((index) => stored[index]);
        expect(fetched.filter((index) => found.includes(index))).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  it('starts nothing more than `window` slices ahead of the slice being read', async () => {
    const { upstream, store, options } = setup(48, { window: 3, maxSpan: 1 });
    let delivered = 0;
    const touched: { index: number; delivered: number }[] = [];
    upstream.onFetch = (span) => touched.push({ index: span.last, delivered });
    const get = store.get.bind(store);
    store.get = async (index, length) => {
      touched.push({ index, delivered });
      return get(index, length);
    };
    upstream.delayMs = 2;
    await readPieces(await readSlices(options), () => delivered++);
    expect(touched.length).toBeGreaterThan(0);
    for (const { index, delivered: before } of touched)
      expect(index, `slice ${index} started after ${before} were read`).toBeLessThan(before + 3);
  });

  it('has at most `window` upstream requests in flight at once', async () => {
    const { upstream, options } = setup(48, { window: 3, maxSpan: 1 });
    upstream.delayMs = 5;
    await readPieces(await readSlices(options));
    expect(upstream.spans).toHaveLength(12);
    expect(upstream.mostActive).toBe(3);
  });

  describe('with a read-ahead pool shared by the isolate', () => {
    it('lets one read run its whole window when the pool holds a window, slice after slice', async () => {
      const pool = { limit: 2, inUse: 0 };
      const { upstream, options, bytes } = setup(48, { window: 3, maxSpan: 1, pool });
      upstream.delayMs = 5;
      // When each slice is asked for, how many were in flight: the window refills as the reader moves on.
      const inFlight: number[] = [];
      upstream.onFetch = () => inFlight.push(upstream.active + 1);
      const { bytes: pieces } = await readPieces(await readSlices(options));
      expect(Buffer.concat(pieces)).toEqual(Buffer.from(bytes));
      expect(upstream.mostActive).toBe(3);
      // Past the first window, every new fetch joins two others: three in flight again.
      expect(
        inFlight.slice(3, -1).every((n) => n === 3),
        inFlight.join(' '),
      ).toBe(true);
      expect(pool.inUse).toBe(0);
    });

    it('shares the slices ahead among concurrent reads, each still getting the slice it needs next', async () => {
      const pool = { limit: 2, inUse: 0 };
      const one = setup(48, { window: 3, maxSpan: 1, pool });
      const two = setup(48, { window: 3, maxSpan: 1, pool });
      let active = 0;
      let mostActive = 0;
      one.upstream.delayMs = 5;
      two.upstream.delayMs = 5;
      const counted =
        (fetchSpan: SpanFetch): SpanFetch =>
        async (span) => {
          active++;
          mostActive = Math.max(mostActive, active);
          try {
            return await fetchSpan(span);
          } finally {
            active--;
          }
        };
      const [a, b] = await Promise.all([
        readSlices({ ...one.options, fetchSpan: counted(one.upstream.fetchSpan) }).then(readPieces),
        readSlices({ ...two.options, fetchSpan: counted(two.upstream.fetchSpan) }).then(readPieces),
      ]);
      expect(Buffer.concat(a.bytes)).toEqual(Buffer.from(one.bytes));
      expect(Buffer.concat(b.bytes)).toEqual(Buffer.from(two.bytes));
      // Two slices needed next, plus at most the pool's two ahead.
      expect(mostActive).toBeLessThanOrEqual(4);
      expect(pool.inUse).toBe(0);
    });

    it('takes no share for a slice found stored, so cached reads keep their window', async () => {
      const pool = { limit: 0, inUse: 0 };
      const { store, options, upstream } = setup(40, { stored: range(10), window: 3, pool });
      await readPieces(await readSlices(options));
      expect(store.gets).toHaveLength(10);
      expect(upstream.spans).toEqual([]);
      expect(pool.inUse).toBe(0);
    });

    it('gives every share back when the reader stops early, or when the first slice fails', async () => {
      const pool = { limit: 2, inUse: 0 };
      const early = setup(48, { window: 3, maxSpan: 1, pool });
      early.upstream.delayMs = 2;
      const read = await readSlices(early.options);
      // Read through its first slice: the reader has earned slices ahead (demand.ts), each holding a share.
      const first = await read.pieces.next();
      if (!first.done) await readAll(first.value.body);
      expect(pool.inUse).toBeGreaterThan(0);
      await read.pieces.return?.();
      expect(pool.inUse).toBe(0);

      const failing = setup(48, { window: 3, maxSpan: 1, pool });
      failing.upstream.changedAt = new Set([0]);
      await expect(readSlices(failing.options)).rejects.toBeInstanceOf(VersionChanged);
      expect(pool.inUse).toBe(0);
    });
  });

  describe('hits and checked', () => {
    it('count the lookups of the first window: how many there were and how many found their slice', async () => {
      const { options } = setup(40, { stored: [0, 2], window: 3 });
      const read = await readSlices(options);
      expect({ hits: read.hits, checked: read.checked }).toEqual({ hits: 2, checked: 3 });
      await readPieces(read);
    });

    it('leave out the lookups made after the first window', async () => {
      const { store, options } = setup(40, { stored: range(10), window: 3 });
      const read = await readSlices(options);
      await readPieces(read);
      expect(store.gets).toHaveLength(10);
      expect({ hits: read.hits, checked: read.checked }).toEqual({ hits: 3, checked: 3 });
    });

    it('count a slice that came with discovery as checked and missing, and store it', async () => {
      const bytes = objectBytes(40);
      const prefetched = new Map([[0, streamOf(sliceOf(bytes, 0))]]);
      const { store, upstream, options } = setup(40, { stored: [1], window: 2, prefetched });
      const read = await readSlices(options);
      expect({ hits: read.hits, checked: read.checked }).toEqual({ hits: 1, checked: 2 });
      const { bytes: pieces } = await readPieces(read);
      expect(Buffer.concat(pieces)).toEqual(Buffer.from(bytes));
      expect(store.gets).not.toContain(0);
      expect(upstream.fetchedSlices()).not.toContain(0);
      await store.settled();
      expect(store.puts).toContain(0);
      expect(store.slices.get(0)).toEqual(sliceOf(bytes, 0));
    });

    it('are zero when nothing was looked up', async () => {
      const { options } = setup(40, { budget: { remaining: 2 }, maxSpan: 8 });
      const read = await readSlices(options);
      expect({ hits: read.hits, checked: read.checked }).toEqual({ hits: 0, checked: 0 });
      await readPieces(read);
    });
  });

  describe('a version change upstream (nginx: "etag mismatch in slice response")', () => {
    it('rejects readSlices itself when it hits the first slice, so that the request can start over', async () => {
      const { upstream, options } = setup(40);
      upstream.changedAt.add(0);
      await expect(readSlices(options)).rejects.toBeInstanceOf(VersionChanged);
    });

    it('surfaces on a later slice only when that slice is read', async () => {
      const { bytes, upstream, options } = setup(40, { window: 2, maxSpan: 1 });
      upstream.changedAt.add(5);
      const read = await readSlices(options);
      for (const index of range(5)) {
        const next = await read.pieces.next();
        expect(next.done).toBe(false);
        if (!next.done) expect(await readAll(next.value.body)).toEqual(sliceOf(bytes, index));
      }
      await expect(read.pieces.next()).rejects.toBeInstanceOf(VersionChanged);
    });

    it('stores nothing from the span that changed', async () => {
      const { store, upstream, options } = setup(40, { window: 2, maxSpan: 1 });
      upstream.changedAt.add(5);
      const read = await readSlices(options);
      await expect(readPieces(read)).rejects.toBeInstanceOf(VersionChanged);
      await store.settled();
      expect(store.slices.has(5)).toBe(false);
    });
  });

  describe('with a small subrequest budget', () => {
    it('stops looking up and storing, and still delivers every byte in spans', async () => {
      const budget: Budget = { remaining: 5 };
      const { bytes, store, upstream, options } = setup(160, { window: 4, maxSpan: 8, budget });
      const { bytes: pieces } = await readPieces(await readSlices(options));
      expect(Buffer.concat(pieces)).toEqual(Buffer.from(bytes));
      expect(store.gets).toEqual([]);
      expect(store.puts).toEqual([]);
      expect(upstream.spans).toEqual([0, 8, 16, 24, 32].map((first) => ({ first, last: first + 7 })));
      expect(budget.remaining).toBe(0);
    });

    it('looks up and stores with what is left over once the spans are reserved', async () => {
      const budget: Budget = { remaining: 30 };
      const { bytes, store, upstream, options } = setup(160, { window: 4, maxSpan: 8, budget });
      const { bytes: pieces } = await readPieces(await readSlices(options));
      expect(Buffer.concat(pieces)).toEqual(Buffer.from(bytes));
      expect(store.gets.length).toBeGreaterThan(0);
      expect(store.puts.length).toBeGreaterThan(0);
      expect(store.gets.length + store.puts.length + upstream.spans.length).toBeLessThanOrEqual(30);
      expect(budget.remaining).toBeGreaterThanOrEqual(0);
    });

    it('never spends more subrequests than the budget allows, when that is enough for the spans', async () => {
      // The first window's lookups run at once, and each that misses needs a span of its own:
      // 40 slices, window 4, spans of 8, a budget of 8 (5 spans would do).
      const budget: Budget = { remaining: 8 };
      const { bytes, store, upstream, options } = setup(160, { window: 4, maxSpan: 8, budget });
      const { bytes: pieces } = await readPieces(await readSlices(options));
      expect(Buffer.concat(pieces)).toEqual(Buffer.from(bytes));
      expect(store.gets.length + store.puts.length + upstream.spans.length).toBeLessThanOrEqual(8);
      expect(budget.remaining).toBeGreaterThanOrEqual(0);
    });
  });

  describe('demand (demand.ts) and urgency', () => {
    it('starts FIRST_AHEAD slices ahead of a reader with its first slice, and nothing more until it takes another', async () => {
      const { upstream, options } = setup(40, { window: 16, maxSpan: 1 });
      const read = await readSlices(options);
      const first = await read.pieces.next();
      await tick(20);
      // A reader that stopped inside its first slice costs FIRST_AHEAD slices upstream, no more.
      expect(upstream.fetchedSlices().sort((a, b) => a - b)).toEqual(range(1 + FIRST_AHEAD));
      if (!first.done) await readAll(first.value.body);
      await read.pieces.next();
      await tick(20);
      expect(upstream.fetchedSlices().length).toBeGreaterThan(1 + FIRST_AHEAD);
      await read.pieces.return?.();
    });

    it('earns GROWTH times more the moment its reader asks for the second slice, not once that slice has come', async () => {
      const { upstream, options } = setup(80, { window: 32, maxSpan: 1 });
      // Slow enough that the second slice is still on its way when the reader asks for it.
      upstream.delayMs = 100;
      const read = await readSlices(options);
      const first = await read.pieces.next();
      if (!first.done) await readAll(first.value.body);
      expect(upstream.fetchedSlices().sort((a, b) => a - b)).toEqual(range(1 + FIRST_AHEAD));
      const second = read.pieces.next();
      await tick(20);
      // Slice 1 has not come yet, and what reading slice 0 whole earned is on its way already.
      expect(upstream.active).toBeGreaterThan(0);
      expect(upstream.fetchedSlices().sort((a, b) => a - b)).toEqual(range(2 + FIRST_AHEAD * GROWTH));
      await second;
      await read.pieces.return?.();
    });

    it('holds a slice ahead of its reader while a request of the isolate waits for a byte, not the one it reads', async () => {
      const urgency = new Urgency();
      const waiting = urgency.begin();
      const { upstream, options } = setup(40, { stored: [0], window: 6, maxSpan: 1, urgency });
      const read = await readSlices(options);
      await tick(20);
      // Its first slice came from the store: it has earned slices ahead, which wait for the other request.
      expect(upstream.fetchedSlices()).toEqual([]);
      waiting();
      await tick(20);
      expect(upstream.fetchedSlices().sort((a, b) => a - b)).toEqual(range(FIRST_AHEAD, 1));
      await read.pieces.return?.();
    });
  });

  describe('pieces.return()', () => {
    it('cancels every slice in flight, the first one included when nobody took it', async () => {
      const { store, options } = setup(40, { stored: range(10), window: 4 });
      const read = await readSlices(options);
      await read.pieces.return?.();
      await tick(10);
      // Its first slice in hand, the reader had earned FIRST_AHEAD slices ahead of it (demand.ts), the window 4 in all.
      expect([...store.cancelled].sort((a, b) => a - b)).toEqual(range(Math.min(4, 1 + FIRST_AHEAD)));
    });

    it('starts no more than FIRST_AHEAD slices ahead of a reader that has taken only its first, GROWTH times more as it takes', async () => {
      const { store, options } = setup(40, { stored: range(10), window: 10 });
      const read = await readSlices(options);
      expect(new Set(store.gets).size).toBe(1 + FIRST_AHEAD);
      await tick(10);
      expect(new Set(store.gets).size).toBe(1 + FIRST_AHEAD);
      const first = await read.pieces.next();
      if (!first.done) await readAll(first.value.body);
      await read.pieces.next();
      // Two taken: FIRST_AHEAD × GROWTH ahead of the second, within the window of 10.
      expect(new Set(store.gets).size).toBe(Math.min(10, 2 + FIRST_AHEAD * GROWTH));
      await read.pieces.return?.();
    });

    it('cancels the slices read ahead, and leaves the one the reader holds to the reader', async () => {
      const { bytes, store, options } = setup(40, { stored: range(10), window: 4 });
      const read = await readSlices(options);
      const first = await read.pieces.next();
      const second = await read.pieces.next();
      await read.pieces.return?.();
      await tick(10);
      expect([...store.cancelled].sort((a, b) => a - b)).toEqual([2, 3, 4]);
      if (first.done || second.done) throw new Error('expected two slices');
      expect(await readAll(second.value.body)).toEqual(sliceOf(bytes, 1));
    });

    it('ends the pieces and starts nothing more', async () => {
      const { store, upstream, options } = setup(40, { window: 2, maxSpan: 1 });
      const read = await readSlices(options);
      await read.pieces.return?.();
      const [gets, spans] = [store.gets.length, upstream.spans.length];
      expect(await read.pieces.next()).toEqual({ done: true, value: undefined });
      await tick(10);
      expect([store.gets.length, upstream.spans.length]).toEqual([gets, spans]);
    });
  });
});

/** A next hop that stores slices when warmed (the shield): records the warms, may fail some or hold them. */
class WarmingHop {
  readonly warmed: number[] = [];
  readonly signals: AbortSignal[] = [];
  failAt = new Set<number>();
  holdMs = 0;
  inFlight = 0;
  mostInFlight = 0;
  private readonly upstream: FakeUpstream;

  constructor(upstream: FakeUpstream) {
    this.upstream = upstream;
  }

  readonly readAhead = {
    warm: async (index: number, signal: AbortSignal): Promise<boolean> => {
      this.warmed.push(index);
      this.signals.push(signal);
      this.inFlight++;
      this.mostInFlight = Math.max(this.mostInFlight, this.inFlight);
      try {
        if (this.holdMs > 0) await tick(this.holdMs);
        return !this.failAt.has(index) && !signal.aborted;
      } finally {
        this.inFlight--;
      }
    },
    fetchSlice: (index: number) => this.upstream.fetchSpan({ first: index, last: index }),
    idleMs: 1000,
  };
}

describe('slices ahead of the reader, read through the caches', () => {
  it('warms every slice ahead at the next hop, copies it into the store and reads it back: every byte, in order', async () => {
    const { bytes, store, upstream, options } = setup(10 * SLICE + 1, { window: 16 });
    const hop = new WarmingHop(upstream);
    const read = await readSlices({ ...options, readAhead: hop.readAhead });
    const got = await readPieces(read);
    expect(concat(got.bytes)).toEqual(bytes);
    // The reader's own first slice streams as it comes; every other one was warmed first.
    expect(hop.warmed.sort((a, b) => a - b)).toEqual(range(10, 1));
    expect(upstream.fetchedSlices().sort((a, b) => a - b)).toEqual(range(11));
    await store.settled();
    expect([...store.slices.keys()].sort((a, b) => a - b)).toEqual(range(11));
  });

  it('reads a slice whose warm failed as it comes (a fill), and still hands every byte over', async () => {
    const { bytes, upstream, options } = setup(8 * SLICE, { window: 16 });
    const hop = new WarmingHop(upstream);
    hop.failAt = new Set([3, 5]);
    const read = await readSlices({ ...options, readAhead: hop.readAhead });
    const got = await readPieces(read);
    expect(concat(got.bytes)).toEqual(bytes);
    // Slices 3 and 5 were fetched once each as fills, never copied.
    expect(upstream.fetchedSlices().filter((index) => index === 3 || index === 5)).toEqual([3, 5]);
  });

  it('keeps no more slices in flight than its parallelism allows, whatever the window says', async () => {
    const { upstream, options } = setup(64 * SLICE, { window: 64 });
    const hop = new WarmingHop(upstream);
    hop.holdMs = 5;
    const read = await readSlices({ ...options, readAhead: hop.readAhead });
    await readPieces(read);
    // It starts at 16 and grows only while that adds throughput; never past the window.
    expect(hop.mostInFlight).toBeGreaterThanOrEqual(8);
    expect(hop.mostInFlight).toBeLessThanOrEqual(64);
  });

  it('finishes every warm and copy it started once the read is given up (the fill is the cache’s), and starts none after', async () => {
    const { store, upstream, options } = setup(20 * SLICE, { window: 16 });
    const hop = new WarmingHop(upstream);
    hop.holdMs = 50;
    const read = await readSlices({ ...options, readAhead: hop.readAhead });
    const first = await read.pieces.next();
    if (!first.done) await readAll(first.value.body);
    const warmed = [...hop.warmed];
    expect(warmed.length).toBeGreaterThan(0);
    await read.pieces.throw?.(new Error('the client went away'));
    expect(hop.signals.some((signal) => signal.aborted)).toBe(false);
    await tick(150);
    await store.settled();
    // Each slice warmed before the client left is now stored here (copied), and no warm was started after.
    expect(hop.warmed).toEqual(warmed);
    for (const index of warmed) expect(store.slices.has(index), `slice ${index} stored`).toBe(true);
    const fetched = upstream.fetchedSlices().length;
    await tick(80);
    expect(upstream.fetchedSlices().length).toBe(fetched);
  });

  it('reads nothing ahead through the caches without a store, or within a budget that leaves no room for it', async () => {
    for (const overrides of [{ budget: { remaining: 12 } }]) {
      const { bytes, upstream, options } = setup(12 * SLICE, { window: 16, maxSpan: 1, ...overrides });
      const hop = new WarmingHop(upstream);
      const read = await readSlices({ ...options, readAhead: hop.readAhead });
      const got = await readPieces(read);
      expect(concat(got.bytes)).toEqual(bytes);
      expect(hop.warmed.length).toBeLessThan(11);
    }
  });
});
