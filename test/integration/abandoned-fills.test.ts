// What a download nobody waits for any more may still cost the origin, through both workers in front of an `http`
// origin that ignores Range (each object a whole fill at both tiers) and streams its bodies at a bounded rate, counting
// what it wrote: a fill whose clients all left finishes only when what is left is within ABANDONED_FILL_MAX (one
// slice by default), else it stops and stores nothing; a body without a length has a largest size and a deadline;
// query-busted keys each cost at most that bound. The clients are real TCP clients that close their connection.

import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LEAVES_HEADER, startDepartureSwitch, TOLD_LINE } from '../../bench/setup/departure-switch.ts';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { type AnyOrigin, type Received, startAnyOrigin, streamedBytes } from './any-origin.ts';
import { sha256 } from './bytes.ts';
import { rawRequest, settle, until } from './fixture.ts';
import { rawFramedGet } from './raw-framing.ts';

const KiB = 1024;
const MiB = 1024 * KiB;
/** The slice size here, and so what an abandoned fill may still pull (ABANDONED_FILL_MAX' default). */
const SLICE = MiB;
/**
 * What is in flight between the origin and the tiers when a fill stops: the loopback sockets' buffers (the kernel's
 * send and receive buffers grow to a few MiB) and the pipes of both tiers, written by the origin before the stop
 * reaches it. Measured here under 2 MiB; the bound leaves room for a loaded machine.
 */
const IN_FLIGHT = 6 * MiB;
/** The origin's rate: a 32 MiB body takes it 2 s, so a client that leaves at once leaves nearly all of it. */
const RATE = 16 * MiB;
/** UNKNOWN_LENGTH_MAX and UNKNOWN_LENGTH_TIMEOUT_MS here: small enough to be reached within a test. */
const UNKNOWN_MAX = 24 * MiB;
const UNKNOWN_MS = 3000;

/** The real edge, whose runtime can be told a client left before the head (departure-switch.ts). */
const DEPARTING_EDGE = 'bench/setup/departing-edge.js';

let origin: AnyOrigin;
let stack: Stack;
let seed = 0;

beforeAll(async () => {
  origin = await startAnyOrigin();
  stack = await startWorkers({
    config: {
      ORIGIN_KIND: 'http',
      ORIGIN_URL: origin.url,
      SHIELD_TOKEN: 't',
      SLICE_SIZE: '1MiB',
      UNKNOWN_LENGTH_MAX: String(UNKNOWN_MAX),
      UNKNOWN_LENGTH_TIMEOUT_MS: String(UNKNOWN_MS),
      LOG_SAMPLE: '0',
    },
    // The edge as deployed hears a client leave before its answer's head; workerd locally does not (departing-edge.js).
    entries: { edge: DEPARTING_EDGE },
  });
});
afterAll(async () => {
  await stack?.dispose();
  await origin?.close();
});

/** `path` answered by a body streamed at `rate` (Range ignored), `bytes` long (Infinity: endless). */
function streamed(path: string, bytes: number, declared: boolean, rate = RATE): number {
  const stream = { bytes, bytesPerSec: rate, declared, seed: ++seed };
  origin.answer(path, {
    status: 200,
    headers: { 'content-type': 'application/octet-stream', 'cache-control': 'max-age=600' },
    stream,
  });
  return stream.seed;
}

/**
 * A GET that reads `bytes` of the body and then closes its connection; resolves once it has, with the origin's answer
 * to it (the one request the origin got for `path` since) and what the origin had written of it by then.
 */
function readThenLeave(
  path: string,
  bytes: number,
  headers: Record<string, string> = {},
): Promise<{ status: number; received: Uint8Array; answer: Received | undefined; sentAtDeparture: number }> {
  const asked = origin.receivedFor(path).length;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const req = httpRequest(new URL(path, stack.url), { headers, agent: false }, (res) => {
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        received += chunk.length;
        if (received < bytes) return;
        req.destroy();
        const answer = origin.receivedFor(path)[asked];
        resolve({
          status: res.statusCode ?? 0,
          received: Buffer.concat(chunks),
          answer,
          sentAtDeparture: answer?.sent ?? 0,
        });
      });
      res.on('error', () => undefined);
      res.on('end', () => reject(new Error(`the body ended after ${received} bytes, before the client left`)));
    });
    req.on('error', () => undefined);
    req.end();
  });
}

/** Settles once the harness's edge prints that it was told its client left (Miniflare hands workerd's output to the console). */
function toldEdge(): Promise<void> {
  const print = console.log.bind(console);
  return new Promise((resolve) => {
    const spy = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      print(...args);
      if (!args.some((arg) => TOLD_LINE.test(String(arg)))) return;
      spy.mockRestore();
      resolve();
    });
  });
}

/** A GET whose answer's head has arrived, its body read as it comes; `leave` closes its connection. */
function openedGet(path: string): Promise<{ leave(): void }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, stack.url), { agent: false }, (res) => {
      res.on('data', () => undefined);
      res.on('error', () => undefined);
      resolve({ leave: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

/** What the origin wrote of `answer` after its client left, once it stopped (or `withinMs` passed). */
async function sentAfter(answer: Received | undefined, sentAtDeparture: number, withinMs = 6000): Promise<number> {
  if (answer === undefined) throw new Error('the origin was not asked');
  await until(() => answer.done, withinMs);
  // What the tiers still read from their sockets after the stop.
  await settle(200);
  return answer.sent - sentAtDeparture;
}

describe('a whole fill whose client leaves (an origin that ignores Range)', () => {
  it('stops once more is left than one slice: the origin sends at most a slice (and what is in flight) after the client left', async () => {
    const path = '/whole-left.bin';
    const size = 32 * MiB;
    const bodySeed = streamed(path, size, true);
    const cut = await readThenLeave(path, MiB);
    expect(cut.status).toBe(200);
    expect(sha256(cut.received.subarray(0, MiB))).toBe(sha256(streamedBytes(bodySeed, 0, MiB)));
    const after = await sentAfter(cut.answer, cut.sentAtDeparture);
    expect(after, `${after} bytes sent after the client left, of ${size}`).toBeLessThanOrEqual(SLICE + IN_FLIGHT);
    expect(cut.answer?.done, 'the origin connection was let go').toBe(true);
  });

  it("stops as well for a player's `bytes=0-` (a 206 cut from the whole body), read 1 MiB and left", async () => {
    const path = '/whole-left-ranged.bin';
    const size = 32 * MiB;
    const bodySeed = streamed(path, size, true);
    const cut = await readThenLeave(path, MiB, { range: 'bytes=0-' });
    expect(cut.status).toBe(206);
    expect(sha256(cut.received.subarray(0, MiB))).toBe(sha256(streamedBytes(bodySeed, 0, MiB)));
    const after = await sentAfter(cut.answer, cut.sentAtDeparture);
    expect(after, `${after} bytes sent after the client left, of ${size}`).toBeLessThanOrEqual(SLICE + IN_FLIGHT);
    expect(cut.answer?.done, 'the origin connection was let go').toBe(true);
  });

  it('stores nothing of a fill it stopped: the next request asks the origin again, and gets every byte', async () => {
    const path = '/whole-again.bin';
    const size = 8 * MiB;
    const bodySeed = streamed(path, size, true, 4 * RATE);
    const cut = await readThenLeave(path, 256 * KiB);
    await sentAfter(cut.answer, cut.sentAtDeparture);
    const next = await rawRequest(new URL(path, stack.url));
    expect([next.status, next.error]).toEqual([200, undefined]);
    expect(sha256(next.body)).toBe(sha256(streamedBytes(bodySeed, 0, size)));
    expect(origin.receivedFor(path)).toHaveLength(2);
  });

  it('finishes one whose rest is within a slice (a range that ended mid-body), and stores it: the next request is a hit', async () => {
    const path = '/whole-small-rest.bin';
    const size = MiB + 512 * KiB;
    const bodySeed = streamed(path, size, true);
    const range = await rawRequest(new URL(path, stack.url), { range: 'bytes=600000-600099' });
    expect([range.status, range.error]).toEqual([206, undefined]);
    expect(sha256(range.body)).toBe(sha256(streamedBytes(bodySeed, 600_000, 100)));
    const [answer] = origin.receivedFor(path);
    await until(() => answer?.done === true, 4000);
    await settle(300);
    expect(answer?.sent).toBe(size);
    const hit = await rawRequest(new URL(path, stack.url));
    expect(sha256(hit.body)).toBe(sha256(streamedBytes(bodySeed, 0, size)));
    expect(hit.headers.get('cache-status')).toMatch(/tiercache-edge; hit/);
    expect(origin.receivedFor(path)).toHaveLength(1);
  });

  it('goes on while a collapsed request still waits for it, and that request gets every byte', async () => {
    const path = '/whole-collapsed.bin';
    const size = 12 * MiB;
    const bodySeed = streamed(path, size, true);
    const first = await openedGet(path);
    const second = rawRequest(new URL(path, stack.url));
    // The second waits for the first's fill (collapsed at the edge) when the first leaves.
    await settle(250);
    first.leave();
    const waited = await second;
    expect([waited.status, waited.error]).toEqual([200, undefined]);
    expect(sha256(waited.body)).toBe(sha256(streamedBytes(bodySeed, 0, size)));
    expect(origin.receivedFor(path)).toHaveLength(1);
  });

  it('goes on at the store pace for a client that reads slowly, which gets every byte', async () => {
    const path = '/whole-slow-reader.bin';
    const size = 6 * MiB;
    const bodySeed = streamed(path, size, true, 4 * RATE);
    const chunks: Buffer[] = [];
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(new URL(path, stack.url), { agent: false }, (res) => {
        let paused = false;
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          if (paused || chunks.reduce((n, c) => n + c.length, 0) < MiB) return;
          // Falls behind: the fill lets it go and goes on into the store; it reads the rest back.
          paused = true;
          res.pause();
          setTimeout(() => res.resume(), 1500);
        });
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
    expect(sha256(Buffer.concat(chunks))).toBe(sha256(streamedBytes(bodySeed, 0, size)));
  });
});

describe('query-busted keys (?1, ?2, …: a new key each in http mode)', () => {
  it('cost the origin at most a slice each after their clients left, 20 aborted requests in a row', async () => {
    const path = '/busted.bin';
    streamed(path, 32 * MiB, true);
    const afters: number[] = [];
    for (let n = 1; n <= 20; n++) {
      const cut = await readThenLeave(`${path}?${n}`, MiB);
      const after = await sentAfter(cut.answer, cut.sentAtDeparture);
      afters.push(after);
      expect(after, `?${n}: ${after} bytes after its client left`).toBeLessThanOrEqual(SLICE + IN_FLIGHT);
    }
    expect(afters).toHaveLength(20);
  });
});

describe('a body without a length (chunked) that never ends', () => {
  it('whose client leaves while it is held, heard by the edge (as deployed): the origin sends no more than what is in flight once it is', async () => {
    const path = '/endless-left.bin';
    streamed(path, Number.POSITIVE_INFINITY, false);
    const departure = await startDepartureSwitch();
    try {
      const answering = rawFramedGet(stack.url, path, { [LEAVES_HEADER]: departure.url }, 8000).catch(() => undefined);
      await until(() => origin.receivedFor(path).length > 0, 3000);
      await settle(300);
      const [answer] = origin.receivedFor(path);
      const told = toldEdge();
      departure.leave();
      // From when the edge heard it: locally the edge runs on the thread the shield fills on at full speed, and hears
      // the harness a few hundred ms late (deployed, the runtime tells it at once).
      await told;
      const after = await sentAfter(answer, answer?.sent ?? 0, 4000);
      // Nothing is pulled for nobody of a body whose rest is not known: what arrives is what was in flight.
      expect(after, `${after} bytes sent after the edge heard its client left`).toBeLessThanOrEqual(IN_FLIGHT);
      expect(answer?.done, 'the origin connection was let go').toBe(true);
      await answering;
    } finally {
      await departure.close();
    }
  });

  it('whose client closes its connection while it is held, unheard (workerd hears it only once it writes): stops at UNKNOWN_LENGTH_MAX', async () => {
    const path = '/endless-closed.bin';
    streamed(path, Number.POSITIVE_INFINITY, false, 2 * RATE);
    const req = httpRequest(new URL(path, stack.url), { agent: false });
    req.on('error', () => undefined);
    req.end();
    await until(() => origin.receivedFor(path).length > 0, 3000);
    await settle(300);
    req.destroy();
    const [answer] = origin.receivedFor(path);
    await until(() => answer?.done === true, 4000);
    expect(answer?.done, 'the origin connection was let go').toBe(true);
    expect(answer?.sent ?? 0).toBeLessThanOrEqual(UNKNOWN_MAX + IN_FLIGHT);
  });

  it('with its client waiting: a 502 once it passes UNKNOWN_LENGTH_MAX, saying so, and nothing more is pulled', async () => {
    const path = '/endless-waited.bin';
    streamed(path, Number.POSITIVE_INFINITY, false, 2 * RATE);
    const answer = await rawFramedGet(stack.url, path, {}, 10_000);
    expect(answer.status).toBe(502);
    expect(answer.headers.get('cache-status')).toMatch(/tiercache-shield; [^,]*detail=body-too-long/);
    expect(answer.body.toString()).toContain(String(UNKNOWN_MAX));
    const [sent] = origin.receivedFor(path);
    await until(() => sent?.done === true, 3000);
    expect(sent?.done, 'the origin connection was let go').toBe(true);
    expect(sent?.sent ?? 0).toBeLessThanOrEqual(UNKNOWN_MAX + IN_FLIGHT);
  });

  it('with its client waiting, arriving slowly: a 502 past UNKNOWN_LENGTH_TIMEOUT_MS, saying so', async () => {
    const path = '/endless-slow.bin';
    streamed(path, Number.POSITIVE_INFINITY, false, 512 * KiB);
    const started = Date.now();
    const answer = await rawFramedGet(stack.url, path, {}, 10_000);
    expect(answer.status).toBe(502);
    expect(answer.headers.get('cache-status')).toMatch(/tiercache-shield; [^,]*detail=body-too-slow/);
    expect(answer.body.toString()).toContain(String(UNKNOWN_MS));
    expect(Date.now() - started).toBeGreaterThanOrEqual(UNKNOWN_MS);
    const [sent] = origin.receivedFor(path);
    await until(() => sent?.done === true, 3000);
    expect(sent?.done, 'the origin connection was let go').toBe(true);
  });
});
