import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COPIES, CopiesBehind, Gate, warmAhead } from '../../../shared/tier/slice-ahead.ts';
import type { ReadAhead, SliceStore } from '../../../shared/tier/slice-ports.ts';
import { streamOf } from '../../streams.ts';

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

function hop(bytes: Uint8Array, warm: (index: number) => Promise<boolean> = async () => true): ReadAhead & { fetched: number } {
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

describe('warmAhead', () => {
  const bytes = Uint8Array.from({ length: 64 }, (_, i) => i);

  it('says whether the next hop stored the slice, a warm that threw being one that did not', async () => {
    const signal = new AbortController().signal;
    expect(await warmAhead(hop(bytes), 3, signal)).toBe(true);
    expect(await warmAhead(hop(bytes, async () => false), 3, signal)).toBe(false);
    expect(await warmAhead(hop(bytes, async () => Promise.reject(new Error('the shield went away'))), 3, signal)).toBe(false);
  });

});

/** Slice `index` handed over to a reader that read it whole. */
async function handed(behind: CopiesBehind, index: number, length: number): Promise<void> {
  const body = await behind.opener(index, length, new AbortController().signal, async () => Promise.reject(new Error('the hand-over failed')))();
  await new Response(body).arrayBuffer();
}

describe('CopiesBehind', () => {
  const bytes = Uint8Array.from({ length: 64 }, (_, i) => i);

  it('hands a slice over from the next hop once (whoever opens it), then copies it into this tier and says which were stored exactly', async () => {
    const store = oneSliceStore();
    const ahead = hop(bytes);
    const behind = new CopiesBehind(ahead, store);
    const open = behind.opener(3, bytes.length, new AbortController().signal, async () => Promise.reject(new Error('no fill expected')));
    const [body, again] = await Promise.all([open(), open()]);
    expect(body).toBe(again);
    expect(new Uint8Array(await new Response(body).arrayBuffer())).toEqual(bytes);
    expect(store.puts).toBe(0);
    expect([...(await behind.run())]).toEqual([3]);
    expect(store.stored).toEqual(bytes);
    expect([ahead.fetched, store.puts]).toEqual([2, 1]);
  });

  it('reads the slice as a fill when the hand-over failed, and copies nothing of it', async () => {
    const store = oneSliceStore();
    const failing = { ...hop(bytes), fetchSlice: async () => Promise.reject(new Error('the shield went away')) };
    const behind = new CopiesBehind(failing, store);
    const body = await behind.opener(3, bytes.length, new AbortController().signal, async () => streamOf(bytes, 5))();
    expect(new Uint8Array(await new Response(body).arrayBuffer())).toEqual(bytes);
    expect((await behind.run()).size).toBe(0);
    expect(store.puts).toBe(0);
  });

  it('copies nothing when none was handed over', async () => {
    const store = oneSliceStore();
    const ahead = hop(bytes);
    expect((await new CopiesBehind(ahead, store).run()).size).toBe(0);
    expect([ahead.fetched, store.puts]).toEqual([0, 0]);
  });

  it('stores nothing from a short copy or a fetch that threw, and says so', async () => {
    const short = oneSliceStore();
    const cut = new CopiesBehind(hop(bytes.subarray(0, 60)), short);
    await handed(cut, 3, bytes.length);
    expect((await cut.run()).size).toBe(0);
    expect(short.stored).toBeUndefined();
    // Handed over, then the shield went away before the copy.
    const once = hop(bytes);
    const store = oneSliceStore();
    const failing = new CopiesBehind({ ...once, fetchSlice: async (index, signal) => (once.fetched === 0 ? once.fetchSlice(index, signal) : Promise.reject(new Error('the shield went away'))) }, store);
    await handed(failing, 3, bytes.length);
    expect((await failing.run()).size).toBe(0);
    expect(store.stored).toBeUndefined();
  });

  it('runs at most COPIES at once', async () => {
    let running = 0;
    let most = 0;
    const ahead = {
      ...hop(bytes),
      fetchSlice: async () => {
        running++;
        most = Math.max(most, running);
        await tick(2);
        running--;
        return streamOf(bytes, 4);
      },
    };
    const behind = new CopiesBehind(ahead, oneSliceStore());
    for (let index = 0; index < 3 * COPIES; index++) await handed(behind, index, bytes.length);
    [running, most] = [0, 0];
    expect((await behind.run()).size).toBe(3 * COPIES);
    expect(most).toBe(COPIES);
  });
});

describe('Gate', () => {
  it('runs at most its size at once, the rest in the order they came, none overtaking a waiting one', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5 }), fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 30 }), async (size, delays) => {
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
      }),
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
