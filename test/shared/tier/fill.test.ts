import { describe, expect, it } from 'vitest';
import { BadGateway } from '../../../shared/http/errors.ts';
import type { FillLimits } from '../../../shared/store/fill-budget.ts';
import { type BodySource, bodySource } from '../../../shared/streams/body-source.ts';
import { CHUNK_BYTES } from '../../../shared/streams/pump-into.ts';
import { type AbandonedPool, type FillClients, startFill } from '../../../shared/tier/fill.ts';
import { wholeBody } from '../../../shared/tier/held-until-whole.ts';
import type { OpenPut } from '../../../shared/tier/tier-cache.ts';
import { concat, faultyStream, readOutcome, streamOf } from '../../streams.ts';

const bytes = (n: number): Uint8Array => new Uint8Array(n).map((_, i) => (i * 31 + 11) & 0xff);
const tick = (ms = 5): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A put in memory: what was written, and whether it was closed exactly or given up. */
function memoryPut(length: number): OpenPut & { bytes(): Uint8Array; outcome: Promise<boolean> } {
  const chunks: Uint8Array[] = [];
  let settle: (stored: boolean) => void = () => undefined;
  const outcome = new Promise<boolean>((resolve) => (settle = resolve));
  return {
    write: async (chunk) => void chunks.push(chunk.slice()),
    close: async () => {
      const exact = concat(chunks).length === length;
      settle(exact);
      return exact;
    },
    abort: async () => {
      settle(false);
      return false;
    },
    bytes: () => concat(chunks),
    outcome,
  };
}

describe('startFill', () => {
  it('gives the store and the client every byte', async () => {
    const object = bytes(100);
    const store = memoryPut(100);
    const fill = startFill(bodySource(streamOf(object, 7), { length: 100 }), { length: 100, store });
    const client = await readOutcome(fill.client);
    expect(await fill.stored).toBe(true);
    expect(store.bytes()).toEqual(object);
    expect(client.bytes).toEqual(object);
  });

  it('lends its source buffers no larger than what is left of a body of known length, and never more than a chunk', async () => {
    const lent: number[] = [];
    const recording = (inner: BodySource): BodySource => ({
      read: (into) => {
        lent.push(into.buffer.byteLength);
        return inner.read(into);
      },
      get delivered() {
        return inner.delivered;
      },
      cancel: (reason) => inner.cancel(reason),
    });
    const small = bytes(20_000);
    const fill = startFill(recording(bodySource(streamOf(small, 16_384), { length: 20_000 })), {
      length: 20_000,
      store: memoryPut(20_000),
    });
    expect((await readOutcome(fill.client)).bytes).toEqual(small);
    expect(await fill.stored).toBe(true);
    expect(lent.length).toBeGreaterThan(0);
    expect(Math.max(...lent)).toBeLessThanOrEqual(20_000);
    lent.length = 0;
    const large = bytes(CHUNK_BYTES * 2 + 5);
    const big = startFill(recording(bodySource(streamOf(large, 65_536), { length: large.length })), {
      length: large.length,
      store: memoryPut(large.length),
    });
    expect((await readOutcome(big.client)).bytes).toEqual(large);
    expect(await big.stored).toBe(true);
    expect(Math.max(...lent)).toBe(CHUNK_BYTES);
  });

  it('lets the store finish while the client does not read, and feeds the client the rest from resume', async () => {
    const object = bytes(1000);
    const store = memoryPut(1000);
    const resumed: number[] = [];
    const fill = startFill(bodySource(streamOf(object, 10), { length: 1000 }), {
      length: 1000,
      store,
      readerLag: 50,
      resume: async (offset) => {
        resumed.push(offset);
        return { body: streamOf(object, 10), from: 0 };
      },
    });
    expect(await fill.stored).toBe(true);
    expect(store.bytes()).toEqual(object);
    // Nothing is opened again for a client that has not read what it holds.
    await tick(20);
    expect(resumed).toEqual([]);
    const client = await readOutcome(fill.client);
    expect(client.bytes).toEqual(object);
    expect(resumed).toHaveLength(1);
    expect(resumed[0]).toBeLessThanOrEqual(50);
  });

  it('resumes from the next hop too, from the byte the client let go at', async () => {
    const object = bytes(600);
    const fill = startFill(bodySource(streamOf(object, 10), { length: 600 }), {
      length: 600,
      store: memoryPut(600),
      readerLag: 30,
      resume: async (offset) => ({ body: streamOf(object.slice(offset), 10), from: offset }),
    });
    await fill.stored;
    expect((await readOutcome(fill.client)).bytes).toEqual(object);
  });

  it('a client that cancels its share (a range ended mid-body) lets the store finish', async () => {
    const object = bytes(200);
    const store = memoryPut(200);
    const fill = startFill(bodySource(streamOf(object, 10), { length: 200 }), { length: 200, store });
    const client = fill.client.getReader();
    await client.read();
    await client.cancel();
    expect(await fill.stored).toBe(true);
    expect(store.bytes()).toEqual(object);
  });

  it('a broken source stores nothing and fails the client after what it had', async () => {
    const store = memoryPut(100);
    const fill = startFill(bodySource(faultyStream(bytes(100), 40, 'error', 10), { length: 100 }), {
      length: 100,
      store,
    });
    const [stored, client] = await Promise.all([fill.stored, readOutcome(fill.client)]);
    expect(stored).toBe(false);
    expect(await store.outcome).toBe(false);
    expect(client.error).toBeDefined();
    expect(client.bytes).toEqual(bytes(40));
  });

  it('abort ends the fill: the source is let go, the store keeps nothing, the client fails', async () => {
    let sourceCancelled = false;
    const store = memoryPut(100);
    const fill = startFill(
      bodySource(
        faultyStream(bytes(100), 50, 'stall', 10, () => (sourceCancelled = true)),
        { length: 100 },
      ),
      { length: 100, store },
    );
    const reading = readOutcome(fill.client);
    await tick();
    fill.abort(new Error('client went away'));
    expect(await fill.stored).toBe(false);
    expect((await reading).error).toBeDefined();
    expect(sourceCancelled).toBe(true);
  });

  it('without a store, the client sets the pace and gets every byte', async () => {
    const object = bytes(300);
    const fill = startFill(bodySource(streamOf(object, 10), { length: 300 }), { length: 300 });
    expect((await readOutcome(fill.client)).bytes).toEqual(object);
    expect(await fill.stored).toBe(true);
  });
});

/** Small limits, so that a test body crosses them. */
const LIMITS: FillLimits = {
  abandonedFillMax: 100,
  abandonedIsolateMax: 1000,
  unknownLengthMax: 10_000,
  unknownLengthMs: 5000,
  idleMs: 1000,
};

/** An isolate's budget of bytes pulled for nobody, in the open: what it holds, and what was asked of it. */
function testPool(limit: number): AbandonedPool & { inUse: number; asked: number[] } {
  const pool = {
    inUse: 0,
    asked: [] as number[],
    take(bytes: number) {
      pool.asked.push(bytes);
      if (pool.inUse + bytes > limit) return false;
      pool.inUse += bytes;
      return true;
    },
    giveBack(bytes: number) {
      pool.inUse -= bytes;
    },
  };
  return pool;
}

/** `bytes` in chunks of `chunkSize`, counting what was pulled from it and whether it was cancelled. */
function counted(bytes: Uint8Array, chunkSize: number): { stream: ReadableStream<Uint8Array>; pulled(): number } {
  let offset = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (offset >= bytes.length) return controller.close();
        controller.enqueue(bytes.slice(offset, offset + chunkSize));
        offset += chunkSize;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled: () => Math.min(offset, bytes.length) };
}

/** A client that reads `bytes` of its share, then cancels it (a range that ended, or a client gone). */
async function readThenCancel(client: ReadableStream<Uint8Array>, bytes: number): Promise<void> {
  const reader = client.getReader();
  for (let read = 0; read < bytes; ) {
    const next = await reader.read();
    if (next.done) return;
    read += next.value.byteLength;
  }
  await reader.cancel(new Error('the client went away'));
}

describe('startFill, once nobody waits for it (limits: ABANDONED_FILL_MAX 100 bytes)', () => {
  const clients = (overrides: Partial<FillClients> = {}): FillClients => ({ pool: testPool(1000), ...overrides });

  it('stops when its client cancels with more left than ABANDONED_FILL_MAX: the source let go, nothing stored', async () => {
    const object = bytes(1000);
    const source = counted(object, 10);
    const store = memoryPut(1000);
    const fill = startFill(bodySource(source.stream, { length: 1000 }), {
      length: 1000,
      store,
      limits: LIMITS,
      clients: clients(),
    });
    await readThenCancel(fill.client, 10);
    expect(await fill.stored).toBe(false);
    expect(await store.outcome).toBe(false);
    expect(source.pulled()).toBeLessThan(200);
  });

  it('finishes, stored, when what is left as its client cancels is within ABANDONED_FILL_MAX (a range that ended near the end)', async () => {
    const object = bytes(150);
    const store = memoryPut(150);
    const fill = startFill(bodySource(streamOf(object, 10), { length: 150 }), {
      length: 150,
      store,
      limits: LIMITS,
      clients: clients(),
    });
    await readThenCancel(fill.client, 60);
    expect(await fill.stored).toBe(true);
    expect(store.bytes()).toEqual(object);
  });

  it('goes on while another request waits for it (collapsed on its key), and stores every byte', async () => {
    const object = bytes(1000);
    const store = memoryPut(1000);
    const fill = startFill(bodySource(streamOf(object, 10), { length: 1000 }), {
      length: 1000,
      store,
      limits: LIMITS,
      clients: clients({ awaited: () => true }),
    });
    await readThenCancel(fill.client, 10);
    expect(await fill.stored).toBe(true);
    expect(store.bytes()).toEqual(object);
  });

  it("stops at once when the isolate's budget has no room for what it may still pull, however little", async () => {
    const pool = testPool(50);
    const fill = startFill(bodySource(streamOf(bytes(150), 10), { length: 150 }), {
      length: 150,
      store: memoryPut(150),
      limits: LIMITS,
      clients: clients({ pool }),
    });
    await readThenCancel(fill.client, 60);
    expect(await fill.stored).toBe(false);
    expect(pool.asked).toHaveLength(1);
    expect(pool.inUse).toBe(0);
  });

  it("holds what it may pull of the isolate's budget until it ends, then gives it back", async () => {
    const pool = testPool(1000);
    const fill = startFill(bodySource(streamOf(bytes(150), 10), { length: 150 }), {
      length: 150,
      store: memoryPut(150),
      limits: LIMITS,
      clients: clients({ pool }),
    });
    await readThenCancel(fill.client, 60);
    expect(await fill.stored).toBe(true);
    expect(pool.asked).toHaveLength(1);
    expect(pool.asked[0]).toBeLessThanOrEqual(LIMITS.abandonedFillMax);
    expect(pool.inUse).toBe(0);
  });

  it('hears a held body’s client leave through its signal: it stops (what is left is not known), and its answer fails', async () => {
    const source = counted(bytes(5000), 10);
    const departed = new AbortController();
    departed.abort(new Error('the client went away'));
    const store = memoryPut(5000);
    const fill = startFill(bodySource(source.stream, { length: undefined }), {
      length: undefined,
      store,
      resume: async () => ({ body: streamOf(store.bytes(), 10), from: 0 }),
      signal: departed.signal,
      limits: LIMITS,
      clients: clients(),
    });
    expect(await fill.stored).toBe(false);
    await expect(wholeBody(fill.client)).rejects.toThrow(/ABANDONED_FILL_MAX/);
    expect(source.pulled()).toBeLessThanOrEqual(20);
  });

  it('hears a client let go of (fallen behind, waiting for the rest) that goes away, through its beats: the fill stops', async () => {
    const size = 2 * 1024 * 1024;
    const source = counted(bytes(size), 16 * 1024);
    const store = memoryPut(size);
    const fill = startFill(bodySource(source.stream, { length: size }), {
      length: size,
      store,
      readerLag: 1024,
      resume: async () => {
        await fill.stored;
        return { body: streamOf(store.bytes(), 16 * 1024), from: 0 };
      },
      limits: LIMITS,
      clients: clients(),
    });
    // Let go of at its first chunk, with nothing of it unread: then it goes, with no write of the fill's pending.
    await fill.client.cancel(new Error('the client went away'));
    expect(await fill.stored).toBe(false);
    expect(source.pulled()).toBeLessThan(size / 2);
  });

  it('hands a client let go of, that has read what it held, the next bytes it needs one a beat, and then the rest: every byte', async () => {
    const size = 600 * 1024;
    const object = bytes(size);
    const store = memoryPut(size);
    const fill = startFill(bodySource(streamOf(object, 16 * 1024), { length: size }), {
      length: size,
      store,
      readerLag: 1024,
      resume: async (offset) => {
        await fill.stored;
        return { body: streamOf(object.slice(offset), 16 * 1024), from: offset };
      },
      limits: LIMITS,
      clients: clients(),
    });
    const chunks: Uint8Array[] = [];
    const reader = fill.client.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    expect(await fill.stored).toBe(true);
    expect(Buffer.from(concat(chunks)).equals(Buffer.from(object))).toBe(true);
    // Two beats: one for each 256 KiB pulled while it waited.
    expect(chunks.filter((chunk) => chunk.byteLength === 1)).toHaveLength(2);
  });
});

describe('startFill, a body without a length (limits: UNKNOWN_LENGTH_MAX, UNKNOWN_LENGTH_TIMEOUT_MS)', () => {
  it('fails past UNKNOWN_LENGTH_MAX with a 502 saying so (body-too-long): nothing stored, and nothing more pulled', async () => {
    const source = counted(bytes(50_000), 100);
    const store = memoryPut(50_000);
    const fill = startFill(bodySource(source.stream, { length: undefined }), {
      length: undefined,
      store,
      resume: async () => ({ body: streamOf(store.bytes(), 100), from: 0 }),
      limits: LIMITS,
    });
    expect(await fill.stored).toBe(false);
    const failure = await wholeBody(fill.client)?.catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(BadGateway);
    expect((failure as BadGateway).detail).toBe('body-too-long');
    expect((failure as BadGateway).message).toContain('10000 bytes');
    expect(source.pulled()).toBeLessThanOrEqual(LIMITS.unknownLengthMax + 100);
  });

  it('fails when it has not ended UNKNOWN_LENGTH_TIMEOUT_MS after its head, with a 502 saying so (body-too-slow)', async () => {
    let cancelled = false;
    const fill = startFill(
      bodySource(
        faultyStream(bytes(1000), 50, 'stall', 10, () => (cancelled = true)),
        { length: undefined },
      ),
      { length: undefined, store: memoryPut(1000), limits: { ...LIMITS, unknownLengthMs: 30 } },
    );
    expect(await fill.stored).toBe(false);
    const failure = await wholeBody(fill.client)?.catch((error: unknown) => error);
    expect((failure as BadGateway).detail).toBe('body-too-slow');
    expect(cancelled).toBe(true);
  });

  it('is held to those bounds when it may not be stored too', async () => {
    const fill = startFill(bodySource(streamOf(bytes(500), 10), { length: undefined }), {
      length: undefined,
      limits: { ...LIMITS, unknownLengthMax: 200 },
    });
    const failure = await wholeBody(fill.client)?.catch((error: unknown) => error);
    expect((failure as BadGateway).detail).toBe('body-too-long');
  });
});
