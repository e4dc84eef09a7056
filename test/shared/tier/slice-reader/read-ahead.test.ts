// readAhead and its Gate (shared/tier/slice-reader/read-ahead.ts), over a one-slice store and a faked next hop.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReadAhead, SliceStore } from '../../../../shared/tier/slice-reader/ports.ts';
import { COPIES, Gate, readAhead } from '../../../../shared/tier/slice-reader/read-ahead.ts';
import { streamOf } from '../../../streams.ts';

const tick = (ms = 0): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A store of one slice's worth: what was put (counted to its end), and what a read finds. */
function oneSliceStore(): SliceStore & { puts: number; reads: number; stored: Uint8Array | undefined } {
  const store = {
    storing: true,
    puts: 0,
    reads: 0,
    stored: undefined as Uint8Array | undefined,
    get: async () => undefined,
    open: () => undefined,
    async put(_index: number, length: number, body: ReadableStream<Uint8Array>) {
      store.puts++;
      const bytes = new Uint8Array(await new Response(body).arrayBuffer());
      if (bytes.length !== length) return false;
      store.stored = bytes;
      return true;
    },
    async read() {
      store.reads++;
      return store.stored === undefined ? undefined : streamOf(store.stored, 3);
    },
    forget: () => undefined,
  };
  return store;
}

function hop(
  bytes: Uint8Array,
  warm: (index: number) => Promise<boolean> = async () => true,
): ReadAhead & { fetched: number } {
  const ahead = {
    fetched: 0,
    warm,
    fetchSlice: async () => {
      ahead.fetched++;
      return streamOf(bytes, 4);
    },
    idleMs: 100,
  };
  return ahead;
}

describe('readAhead', () => {
  const bytes = Uint8Array.from({ length: 64 }, (_, i) => i);

  it('warms the slice at the next hop, copies it here and reads it back', async () => {
    const store = oneSliceStore();
    const ahead = hop(bytes);
    const body = await readAhead(ahead, store, new Gate(COPIES), 3, bytes.length, new AbortController().signal);
    expect(new Uint8Array(await new Response(body).arrayBuffer())).toEqual(bytes);
    expect([ahead.fetched, store.puts, store.reads]).toEqual([1, 1, 1]);
  });

  it('copies nothing when the warm failed, and says so (undefined)', async () => {
    const store = oneSliceStore();
    const ahead = hop(bytes, async () => false);
    expect(
      await readAhead(ahead, store, new Gate(COPIES), 3, bytes.length, new AbortController().signal),
    ).toBeUndefined();
    expect([ahead.fetched, store.puts]).toEqual([0, 0]);
  });

  it('says so when the copy was not stored exactly (a short body), or its fetch threw', async () => {
    const short = oneSliceStore();
    expect(
      await readAhead(
        hop(bytes.subarray(0, 60)),
        short,
        new Gate(COPIES),
        3,
        bytes.length,
        new AbortController().signal,
      ),
    ).toBeUndefined();
    expect(short.reads).toBe(0);
    const failing = { ...hop(bytes), fetchSlice: async () => Promise.reject(new Error('the shield went away')) };
    expect(
      await readAhead(failing, oneSliceStore(), new Gate(COPIES), 3, bytes.length, new AbortController().signal),
    ).toBeUndefined();
  });

  it('fetches no copy once the read was given up', async () => {
    const store = oneSliceStore();
    const given = new AbortController();
    const ahead = hop(bytes, async () => {
      given.abort(new Error('the client went away'));
      return true;
    });
    expect(await readAhead(ahead, store, new Gate(COPIES), 3, bytes.length, given.signal)).toBeUndefined();
    expect(ahead.fetched).toBe(0);
  });
});

describe('Gate', () => {
  it('runs at most its size at once, the rest in the order they came, none overtaking a waiting one', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 30 }),
        async (size, delays) => {
          const gate = new Gate(size);
          let running = 0;
          let most = 0;
          const started: number[] = [];
          await Promise.all(
            delays.map((ms, i) =>
              gate.run(async () => {
                started.push(i);
                running++;
                most = Math.max(most, running);
                await tick(ms);
                running--;
              }),
            ),
          );
          expect(most).toBeLessThanOrEqual(size);
          expect(started).toEqual(delays.map((_, i) => i));
        },
      ),
      { numRuns: 30 },
    );
  });

  it('hands its place on when a task fails', async () => {
    const gate = new Gate(1);
    const failed = gate.run(async () => Promise.reject(new Error('no')));
    const next = gate.run(async () => 'ran');
    await expect(failed).rejects.toThrow('no');
    await expect(next).resolves.toBe('ran');
  });
});
