// Clients that stop reading, read slowly or go away part-way: none may hold the isolate's read-ahead or a half-read
// copy, and what one started is completed into the store, never fetched twice. The origin is throttled so a slice is
// caught in the act; every byte still comes from s3rver.

import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FIRST_AHEAD } from '../../shared/tier/slice-reader/demand.ts';
import type { RecordedRequest } from '../local/origin-tap.ts';
import { patternBytes, sha256 } from './bytes.ts';
import { type Fixture, rawRequest, settle, startFixture, until } from './fixture.ts';

const MiB = 1024 * 1024;
let f: Fixture;

beforeAll(async () => {
  // 1 MiB slices, six in flight (the default), whole copies up to 32 MiB.
  f = await startFixture({ SLICE_SIZE: '1MiB', WHOLE_COPY_MAX: '32MiB', LOG_SAMPLE: '1' });
});
afterAll(() => f?.close());

let objects = 0;
async function object(size: number): Promise<{ key: string; bytes: Uint8Array }> {
  const key = `slow/${++objects}.bin`;
  const bytes = patternBytes(500 + objects, size);
  await f.origin.putObject(key, bytes, { 'content-type': 'video/mp4' });
  return { key, bytes };
}

/** Every origin answer at `bytesPerSecond` (4 MiB/s by default: a 1 MiB slice takes a quarter of a second). */
function slowOrigin(bytesPerSecond = 4 * MiB): void {
  f.tap.faults((request) => (request.method === 'GET' ? { kind: 'throttle', bytesPerSecond } : undefined));
}

/** A GET whose reading the test drives: pause it, resume it, or cut it off. */
interface OpenGet {
  received(): number;
  pause(): void;
  resume(): void;
  disconnect(): void;
  /** Resolves with every byte once the body ends. */
  body: Promise<Uint8Array>;
  /** Resolves once `bytes` have arrived. */
  reached(bytes: number): Promise<void>;
}

function openGet(key: string, headers: Record<string, string> = {}): OpenGet {
  const chunks: Buffer[] = [];
  let received = 0;
  let response: IncomingMessage | undefined;
  const waiters: { bytes: number; resolve: () => void }[] = [];
  let settleBody: (bytes: Uint8Array) => void = () => undefined;
  const body = new Promise<Uint8Array>((resolve) => (settleBody = resolve));
  const req = httpRequest(new URL(`/${key}`, f.stack.url), { headers, agent: false }, (res) => {
    response = res;
    res.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      for (const waiter of waiters.filter((w) => received >= w.bytes)) waiter.resolve();
    });
    res.on('end', () => settleBody(new Uint8Array(Buffer.concat(chunks))));
    res.on('error', () => undefined);
  });
  req.on('error', () => undefined);
  req.end();
  return {
    received: () => received,
    pause: () => response?.pause(),
    resume: () => response?.resume(),
    disconnect: () => req.destroy(),
    body,
    reached: (bytes) => new Promise((resolve) => (received >= bytes ? resolve() : waiters.push({ bytes, resolve }))),
  };
}

/** Most origin answers for `key` streaming at the same moment. */
function mostAtOnce(key: string): number {
  const answers = f.tap.requests.filter(
    (r): r is RecordedRequest & { streaming: { from: number; to?: number } } =>
      r.path.endsWith(key) && r.streaming !== undefined,
  );
  let most = 0;
  for (const a of answers) {
    const at = a.streaming.from;
    most = Math.max(most, answers.filter((b) => b.streaming.from <= at && (b.streaming.to ?? Infinity) > at).length);
  }
  return most;
}

describe('a client that goes away part-way', () => {
  it('has what it started completed into the store, starts nothing more, and never has the origin send a byte twice', async () => {
    // A slice takes a quarter second to arrive: the client is gone long before the first one is in.
    slowOrigin();
    const { key, bytes } = await object(16 * MiB);
    const asked = (): string[] =>
      f.tap.requests.filter((r) => r.method === 'GET' && r.path.endsWith(key)).map((r) => r.headers.range ?? 'all');
    const reader = openGet(key);
    await reader.reached(128 * 1024);
    reader.disconnect();
    await until(() => f.tap.open() === 0, 10_000);
    expect(f.tap.open(), 'origin answers still open long after the client went away').toBe(0);
    const started = asked();
    // Its first slice and what it had earned ahead of it (FIRST_AHEAD), each fetched once; nothing after it left.
    expect(started.length).toBeGreaterThan(0);
    expect(started.length).toBeLessThanOrEqual(1 + FIRST_AHEAD);
    await settle(500);
    expect(asked()).toEqual(started);

    // Every slice it started went into the store, whole: the next reader has the origin send only the rest.
    f.tap.faults(undefined);
    const full = await rawRequest(new URL(`/${key}`, f.stack.url));
    expect(full.error).toBeUndefined();
    expect(sha256(full.body)).toBe(sha256(bytes));
    await settle(300);
    const all = asked();
    expect(all.slice(0, started.length)).toEqual(started);
    expect(new Set(all).size, `asked twice: ${all.join(' ')}`).toBe(all.length);

    // The isolate's read-ahead is whole again: another cold download runs its full window.
    slowOrigin();
    const next = await object(12 * MiB);
    const answer = await rawRequest(new URL(`/${next.key}`, f.stack.url));
    expect(sha256(answer.body)).toBe(sha256(next.bytes));
    expect(mostAtOnce(next.key)).toBeGreaterThanOrEqual(5);
    f.tap.faults(undefined);
  });
});

describe('a client that cuts a download of a stored object', () => {
  it('leaves every slice stored: the next reader is served from the edge’s store, nothing from the shield', async () => {
    // A downloader that reconnects: each read cut, the next one at once, while the first's fills may still run.
    const { key, bytes } = await object(24 * MiB);
    for (const cut of [MiB, 3 * MiB, 5 * MiB, 9 * MiB]) {
      // Not from byte 0: read from the slices, not from the whole copy the edge keeps of a small object.
      const reader = openGet(key, { range: 'bytes=1-' });
      await reader.reached(cut);
      reader.disconnect();
    }
    await settle(1000);
    // Every request's line (LOG_SAMPLE=1), to read what the last one took from the shield.
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      const again = await rawRequest(new URL(`/${key}`, f.stack.url), { range: 'bytes=1-' });
      expect(sha256(again.body)).toBe(sha256(bytes.subarray(1)));
      await settle(500);
      const records = log.mock.calls
        .map((call) => String(call[0]))
        .filter((line) => line.startsWith('{"tiercache":"edge"') && line.includes(`"keyPrefix":"/${key}"`))
        .map((line) => JSON.parse(line) as { bytesFromNextHop: number; slicesMissed: number });
      // A cut read used to forget the slice it was piping: the next one then fetched it from the shield again.
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({ bytesFromNextHop: 0, slicesMissed: 0 });
    } finally {
      log.mockRestore();
    }
  });
});

describe('a client that stops reading', () => {
  it('holds no read-ahead once its slices are in the store, and reads them back when it comes back', async () => {
    slowOrigin();
    const stalled = await object(16 * MiB);
    const reader = openGet(stalled.key);
    await reader.reached(256 * 1024);
    reader.pause();
    // Its slices arrive into the store meanwhile (six at a quarter second each)…
    await until(() => f.tap.open() === 0, 5000);
    expect(f.tap.open()).toBe(0);

    // …so another cold download gets the whole window, not what the stalled one left.
    const other = await object(12 * MiB);
    const answer = await rawRequest(new URL(`/${other.key}`, f.stack.url));
    expect(sha256(answer.body)).toBe(sha256(other.bytes));
    expect(mostAtOnce(other.key)).toBeGreaterThanOrEqual(5);

    // The stalled client comes back and gets every byte, the rest read back from the store.
    reader.resume();
    expect(sha256(await reader.body)).toBe(sha256(stalled.bytes));
    f.tap.faults(undefined);
  });
});

describe('a partial read, then full reads (the whole copy is made only from every slice)', () => {
  it('a player reads 6 of 16 MiB and goes; every later full GET and bytes=0- is byte-identical', async () => {
    const { key, bytes } = await object(16 * MiB);
    const player = openGet(key, { range: 'bytes=0-' });
    await player.reached(6 * MiB);
    player.disconnect();
    await settle(300);

    const full = await rawRequest(new URL(`/${key}`, f.stack.url));
    expect(full.error).toBeUndefined();
    expect(sha256(full.body)).toBe(sha256(bytes));
    await settle(500);
    for (let round = 0; round < 3; round++) {
      const again = await rawRequest(new URL(`/${key}`, f.stack.url));
      expect(again.error).toBeUndefined();
      expect(again.headers.get('content-length')).toBe(String(bytes.length));
      expect(sha256(again.body), `full GET ${round}`).toBe(sha256(bytes));
      const opening = await rawRequest(new URL(`/${key}`, f.stack.url), { range: 'bytes=0-' });
      expect(opening.headers.get('content-range')).toBe(`bytes 0-${bytes.length - 1}/${bytes.length}`);
      expect(sha256(opening.body), `bytes=0- ${round}`).toBe(sha256(bytes));
      await settle(300);
    }
    // By now the edge keeps it whole, and the copy is exact.
    const copied = await rawRequest(new URL(`/${key}`, f.stack.url));
    expect(copied.headers.get('cache-status')).toMatch(/detail="whole copy"/);
    expect(sha256(copied.body)).toBe(sha256(bytes));
  });
});
