import { describe, expect, it } from 'vitest';
import { BadGateway, HeldBodiesFull } from '../../../shared/http/errors.ts';
import { bodySource } from '../../../shared/streams/body-source.ts';
import { startFill } from '../../../shared/tier/fill.ts';
import { HeldPool, isolateHeldPool } from '../../../shared/tier/held-pool.ts';
import {
  HeldUntilWhole,
  HOLD_BYTES,
  type WholeBody,
  wholeBody,
  withKnownLength,
} from '../../../shared/tier/held-until-whole.ts';
import type { WholeObject } from '../../../shared/tier/resolved.ts';
import type { OpenPut } from '../../../shared/tier/tier-cache.ts';
import { concat, faultyStream, readOutcome, streamOf } from '../../streams.ts';

const bytes = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 31 + 11) & 0xff);
/** Large bodies compared as bytes (a deep equality over a million elements is slow). */
const same = (a: Uint8Array | undefined, b: Uint8Array): boolean =>
  a !== undefined && Buffer.from(a).equals(Buffer.from(b));
const tick = (ms = 5): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A put in memory that closes as `closes` says (true: stored). */
function memoryPut(closes = true): OpenPut & { bytes(): Uint8Array; aborted: boolean } {
  const chunks: Uint8Array[] = [];
  const put = {
    aborted: false,
    write: async (chunk: Uint8Array) => void chunks.push(chunk.slice()),
    close: async () => closes,
    abort: async () => {
      put.aborted = true;
      return false;
    },
    bytes: () => concat(chunks),
  };
  return put;
}

/** `object` in chunks, its second half only once `release` is called. */
function gated(object: Uint8Array): { stream: ReadableStream<Uint8Array>; release(): void } {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const half = Math.floor(object.length / 2);
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent === half) await gate;
      if (sent >= object.length) return controller.close();
      const end = sent < half ? half : object.length;
      controller.enqueue(object.slice(sent, end));
      sent = end;
    },
  });
  return { stream, release };
}

/** `object` in two halves, `client` aborted between them (its client went away mid-body). */
function gatedHalf(object: Uint8Array, client: AbortController): ReadableStream<Uint8Array> {
  const half = Math.floor(object.length / 2);
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === half) client.abort(new Error('the client went away'));
      if (sent >= object.length) return controller.close();
      const end = sent < half ? half : object.length;
      controller.enqueue(object.slice(sent, end));
      sent = end;
    },
  });
}

function held(fill: { client: ReadableStream<Uint8Array> }): Promise<WholeBody> {
  const whole = wholeBody(fill.client);
  if (whole === undefined) throw new Error('the client share is not held');
  return whole;
}

describe('a body of unknown length, held until it has ended', () => {
  it('is handed out only once it has ended, with its length and whether it was stored', async () => {
    const object = bytes(5000);
    const source = gated(object);
    const store = memoryPut();
    const fill = startFill(bodySource(source.stream, { length: undefined }), { length: undefined, store });
    let handed = false;
    const whole = held(fill).then((body) => {
      handed = true;
      return body;
    });
    await tick(20);
    expect(handed, 'nothing is handed out while the body is still arriving').toBe(false);
    source.release();
    const { body, length, stored } = await whole;
    expect([length, stored]).toEqual([5000, true]);
    expect((await readOutcome(body)).bytes).toEqual(object);
    expect(await fill.stored).toBe(true);
    expect(store.bytes()).toEqual(object);
  });

  it('says it was not stored when the store did not keep it (RFC 9211 §2.5)', async () => {
    const fill = startFill(bodySource(streamOf(bytes(300), 40), { length: undefined }), {
      length: undefined,
      store: memoryPut(false),
    });
    expect((await held(fill)).stored).toBe(false);
  });

  it('a body that breaks before its end is never handed out, and the store keeps nothing', async () => {
    const store = memoryPut();
    const fill = startFill(bodySource(faultyStream(bytes(1000), 400, 'error', 50), { length: undefined }), {
      length: undefined,
      store,
    });
    await expect(held(fill)).rejects.toThrow();
    expect(await fill.stored).toBe(false);
    expect(store.aborted).toBe(true);
  });

  it('a body that ends early (the next hop closed it cleanly) is whole: there is no length to fall short of', async () => {
    const fill = startFill(bodySource(faultyStream(bytes(1000), 400, 'end', 50), { length: undefined }), {
      length: undefined,
    });
    const whole = await held(fill);
    expect(whole.length).toBe(400);
    expect((await readOutcome(whole.body)).bytes).toEqual(bytes(400));
  });

  it(`longer than ${HOLD_BYTES} bytes and being stored: held by the store, and read back from it with its length`, async () => {
    const object = bytes(HOLD_BYTES * 2 + 7);
    const store = memoryPut();
    let storedCopy: Uint8Array | undefined;
    const fill = startFill(bodySource(streamOf(object, 64 * 1024), { length: undefined }), {
      length: undefined,
      store,
      resume: async (offset) => {
        expect(offset).toBe(0);
        storedCopy = store.bytes();
        return { body: streamOf(storedCopy, 64 * 1024), from: 0 };
      },
    });
    const whole = await held(fill);
    expect([whole.length, whole.stored]).toEqual([object.length, true]);
    expect(same((await readOutcome(whole.body)).bytes, object), 'the answer is every byte').toBe(true);
    expect(same(storedCopy, object), 'what was stored is every byte').toBe(true);
  });

  it('a stored copy read back short breaks the answer: its pipe carries the length', async () => {
    const object = bytes(HOLD_BYTES + 100);
    const fill = startFill(bodySource(streamOf(object, 64 * 1024), { length: undefined }), {
      length: undefined,
      store: memoryPut(),
      resume: async () => ({ body: streamOf(object.slice(0, 1000), 100), from: 0 }),
    });
    const outcome = await readOutcome((await held(fill)).body);
    expect(outcome.error).toBeDefined();
  });

  it(`longer than ${HOLD_BYTES} bytes and not stored: refused with a 502 before any byte goes out`, async () => {
    const fill = startFill(bodySource(streamOf(bytes(HOLD_BYTES + 1), 64 * 1024), { length: undefined }), {
      length: undefined,
    });
    const refusal = await held(fill).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(BadGateway);
    expect((refusal as BadGateway).detail).toBe('length-unknown');
  });

  it('reading the placeholder itself waits for the whole body and gives every byte', async () => {
    const object = bytes(777);
    const fill = startFill(bodySource(streamOf(object, 50), { length: undefined }), { length: undefined });
    expect((await readOutcome(fill.client)).bytes).toEqual(object);
  });

  it('a body of known length is not held', () => {
    const fill = startFill(bodySource(streamOf(bytes(10)), { length: 10 }), { length: 10 });
    expect(wholeBody(fill.client)).toBeUndefined();
  });
});

describe("what held bodies hold in all: the isolate's pool", () => {
  const whole = (body: HeldUntilWhole): Promise<WholeBody> => held({ client: body.placeholder });

  it('a body that may not be stored, past the room left in the pool: refused with a 503 and Retry-After before any byte (RFC 9110 §15.6.4), its share given back', async () => {
    const pool = new HeldPool(100);
    const first = new HeldUntilWhole(undefined, undefined, pool);
    first.take(bytes(60));
    const second = new HeldUntilWhole(undefined, undefined, pool);
    second.take(bytes(30));
    let refusal: unknown;
    try {
      second.take(bytes(30));
    } catch (error) {
      refusal = error;
      second.fail(error as Error);
    }
    expect(refusal).toBeInstanceOf(HeldBodiesFull);
    expect((refusal as HeldBodiesFull).status).toBe(503);
    expect((refusal as HeldBodiesFull).detail).toBe('held-bodies-full');
    expect((refusal as HeldBodiesFull).headers['retry-after']).toMatch(/^\d+$/);
    expect(await whole(second).catch((error: unknown) => error)).toBe(refusal);
    expect(pool.inUse, 'only the first body holds its share').toBe(60);
  });

  it('a body that may be stored, past the room left in the pool: held in the store, and read back from it whole', async () => {
    const pool = new HeldPool(100);
    const other = new HeldUntilWhole(undefined, undefined, pool);
    other.take(bytes(80));
    const object = bytes(50);
    const body = new HeldUntilWhole(async () => ({ body: streamOf(object, 7), from: 0 }), undefined, pool);
    body.take(object.slice(0, 10));
    body.take(object.slice(10));
    expect(pool.inUse, 'what it held went back as it went to the store').toBe(80);
    body.end(50, true);
    const answer = await whole(body);
    expect([answer.length, answer.stored]).toEqual([50, true]);
    expect((await readOutcome(answer.body)).bytes).toEqual(object);
  });

  it('gives its share back as its answer is read, and all of it once read', async () => {
    const pool = new HeldPool(1000);
    const body = new HeldUntilWhole(undefined, undefined, pool);
    for (let i = 0; i < 3; i++) body.take(bytes(100));
    expect(pool.inUse).toBe(300);
    body.end(300, false);
    const reader = (await whole(body)).body.getReader();
    await reader.read();
    await tick();
    expect(pool.inUse, 'the first chunk read is no longer held').toBeLessThan(300);
    while (!(await reader.read()).done);
    await tick();
    expect(pool.inUse).toBe(0);
  });

  it('a client that leaves before its answer is whole: its share goes back at once, and a body not stored is pulled no further', async () => {
    const pool = new HeldPool(1000);
    const client = new AbortController();
    const body = new HeldUntilWhole(undefined, client.signal, pool);
    body.take(bytes(100));
    client.abort(new Error('the client went away'));
    expect(pool.inUse).toBe(0);
    expect(() => body.take(bytes(100)), 'the fill ends: there is nobody to hold it for').toThrow();
    await expect(whole(body)).rejects.toThrow('the client went away');
  });

  it('a client that leaves before its answer is whole, of a body being stored: its share goes back, and the store goes on', async () => {
    const client = new AbortController();
    const object = bytes(300);
    const store = memoryPut();
    const before = isolateHeldPool.inUse;
    const fill = startFill(bodySource(gatedHalf(object, client), { length: undefined }), {
      length: undefined,
      store,
      resume: async () => ({ body: streamOf(store.bytes()), from: 0 }),
      signal: client.signal,
    });
    await expect(held(fill)).rejects.toThrow('the client went away');
    expect(await fill.stored, 'stored all the same').toBe(true);
    expect(store.bytes()).toEqual(object);
    expect(isolateHeldPool.inUse, 'nothing more held than before').toBe(before);
  });

  it('gives its share back when its body breaks, and when its answer is cancelled unread', async () => {
    const pool = new HeldPool(1000);
    const broken = new HeldUntilWhole(undefined, undefined, pool);
    broken.take(bytes(100));
    broken.fail(new Error('the next hop broke'));
    expect(pool.inUse).toBe(0);
    const unread = new HeldUntilWhole(undefined, undefined, pool);
    unread.take(bytes(200));
    unread.end(200, false);
    await (await whole(unread)).body.cancel('the client went away');
    await tick();
    expect(pool.inUse).toBe(0);
  });
});

describe('withKnownLength', () => {
  const whole = (body: ReadableStream<Uint8Array>, stored: boolean): { resolved: WholeObject } => ({
    resolved: {
      kind: 'whole',
      status: 200,
      headers: new Headers({ 'content-type': 'text/plain' }),
      body,
      age: 0,
      report: { fwd: 'uri-miss', stored },
      originAt: 0,
    },
  });

  it('answers a held body with its Content-Length, and `stored` only when it was (RFC 9211 §2.5)', async () => {
    const kept = startFill(bodySource(streamOf(bytes(64), 8), { length: undefined }), {
      length: undefined,
      store: memoryPut(true),
    });
    const answer = (await withKnownLength(whole(kept.client, true))).resolved;
    expect(answer.headers.get('content-length')).toBe('64');
    expect(answer.report.stored).toBe(true);
    expect((await readOutcome(answer.body as ReadableStream<Uint8Array>)).bytes).toEqual(bytes(64));
    const lost = startFill(bodySource(streamOf(bytes(64), 8), { length: undefined }), {
      length: undefined,
      store: memoryPut(false),
    });
    expect((await withKnownLength(whole(lost.client, true))).resolved.report.stored).toBe(false);
  });

  it('answers a held body that broke with a 502 (RFC 9110 §15.6.3) saying why', async () => {
    const broken = startFill(bodySource(faultyStream(bytes(100), 30, 'error', 10), { length: undefined }), {
      length: undefined,
      store: memoryPut(),
    });
    const refusal = await withKnownLength(whole(broken.client, true)).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(BadGateway);
    expect((refusal as BadGateway).detail).toBe('body-cut');
  });

  it('leaves an answer whose body is not held as it is', async () => {
    const filled = whole(streamOf(bytes(5)), true);
    expect(await withKnownLength(filled)).toBe(filled);
  });
});
