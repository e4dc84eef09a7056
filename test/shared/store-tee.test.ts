import { describe, expect, it } from 'vitest';
import { storeTee } from '../../shared/store-tee.ts';
import { faultyStream, readOutcome, streamOf } from '../streams.ts';

const bytes = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 31 + 11) & 0xff);
const tick = (ms = 5): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('storeTee', () => {
  it('gives both branches every byte', async () => {
    const object = bytes(100);
    const tee = storeTee(streamOf(object, 7), { readerLag: 1000, resume: () => Promise.reject(new Error('not needed')), onClientCancel: 'cancel' });
    const [stored, client] = await Promise.all([readOutcome(tee.toStore), readOutcome(tee.toClient)]);
    expect(stored.bytes).toEqual(object);
    expect(client.bytes).toEqual(object);
  });

  it('lets the store finish at its own pace while the client does not read, holding at most readerLag for it', async () => {
    const object = bytes(1000);
    const resumed: number[] = [];
    const tee = storeTee(streamOf(object, 10), { readerLag: 50, resume: async (offset) => (resumed.push(offset), streamOf(object.slice(offset), 10)), onClientCancel: 'cancel' });
    const stored = await readOutcome(tee.toStore);
    expect(stored.bytes).toEqual(object);
    // The client comes back: what it held, then the rest from resume.
    const client = await readOutcome(tee.toClient);
    expect(client.bytes).toEqual(object);
    expect(resumed).toHaveLength(1);
    expect(resumed[0]).toBeLessThanOrEqual(50);
  });

  it('a client cancel ends the fetch too (cancel), or lets the store go on (store)', async () => {
    for (const onClientCancel of ['cancel', 'store'] as const) {
      let sourceCancelled = false;
      const object = bytes(200);
      const tee = storeTee(streamOf(object, 10, () => (sourceCancelled = true)), { readerLag: 1000, resume: () => Promise.reject(new Error('no')), onClientCancel });
      const storing = readOutcome(tee.toStore);
      const client = tee.toClient.getReader();
      await client.read();
      await client.cancel();
      const stored = await storing;
      if (onClientCancel === 'cancel') {
        expect(stored.error).toBeDefined();
        expect(sourceCancelled).toBe(true);
      } else {
        expect(stored.error).toBeUndefined();
        expect(stored.bytes).toEqual(object);
      }
    }
  });

  it('a broken source errors the store and, after what it holds, the client', async () => {
    const tee = storeTee(faultyStream(bytes(100), 40, 'error', 10), { readerLag: 1000, resume: () => Promise.reject(new Error('no')), onClientCancel: 'cancel' });
    const [stored, client] = await Promise.all([readOutcome(tee.toStore), readOutcome(tee.toClient)]);
    expect(stored.error).toBeDefined();
    expect(client.error).toBeDefined();
    expect(client.bytes).toEqual(bytes(40));
  });

  it('when the store gives up, the client reads the source itself', async () => {
    const object = bytes(100);
    const tee = storeTee(streamOf(object, 10), { readerLag: 1000, resume: () => Promise.reject(new Error('no')), onClientCancel: 'cancel' });
    const store = tee.toStore.getReader();
    await store.read();
    await store.cancel();
    const client = await readOutcome(tee.toClient);
    expect(client.bytes).toEqual(object);
  });

  it('abort ends both branches and cancels the source', async () => {
    let sourceCancelled = false;
    // A body still arriving (it falls silent half-way) when the request is given up.
    const tee = storeTee(faultyStream(bytes(100), 50, 'stall', 10, () => (sourceCancelled = true)), { readerLag: 1000, resume: () => Promise.reject(new Error('no')), onClientCancel: 'store' });
    const storing = readOutcome(tee.toStore);
    const reading = readOutcome(tee.toClient);
    await tick();
    tee.abort(new Error('client went away'));
    expect((await storing).error).toBeDefined();
    expect((await reading).error).toBeDefined();
    expect(sourceCancelled).toBe(true);
  });
});
