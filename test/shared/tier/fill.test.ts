import { describe, expect, it } from 'vitest';
import { bodySource } from '../../../shared/streams/body-source.ts';
import { startFill } from '../../../shared/tier/fill.ts';
import type { OpenPut } from '../../../shared/tier/tier-cache.ts';
import { concat, faultyStream, readOutcome, streamOf } from '../../streams.ts';

const bytes = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 31 + 11) & 0xff);
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
