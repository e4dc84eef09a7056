// A client that goes away part-way is normal: counted in stats.json as departed at the tier it left, never logged
// as an error, and never the cause of a raw runtime line; a download read to its end, or a range that ended, is
// not departed. Cut downloads are real TCP clients that close their connection part-way.

import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { StatsJson } from '../../shared/stats/stats-json.ts';
import { patternBytes, sha256 } from './bytes.ts';
import { cacheStatus, type Fixture, rawRequest, settle, startFixture } from './fixture.ts';

const STATS_TOKEN = 'test-stats-token';
const MiB = 1024 * 1024;
const SIZE = 24 * MiB + 100;
let f: Fixture;
let bytes: Uint8Array;
/** What the workers printed while the test ran (workerd's output, which Miniflare hands to the console). */
const printed: string[] = [];

beforeAll(async () => {
  f = await startFixture({
    STATS_TOKEN,
    STATS_FLUSH_MS: '0',
    LOG_SAMPLE: '0',
    SLICE_SIZE: '1MiB',
    WHOLE_COPY_MAX: '0',
  });
  bytes = patternBytes(25, SIZE);
  await f.origin.putObject('movie.bin', bytes, { 'content-type': 'video/mp4', 'cache-control': 'max-age=600' });
  for (const method of ['log', 'error', 'warn'] as const)
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void printed.push(args.map(String).join(' ')));
});
afterAll(async () => {
  vi.restoreAllMocks();
  await f?.close();
});

/**
 * A GET that stops reading once `bytes` of the body have arrived and closes its connection a moment later (once the
 * socket's buffers are full, so that the tier is caught writing mid-slice); resolves when it has.
 */
function cutGet(
  path: string,
  headers: Record<string, string>,
  bytes: number,
  base = f.stack.url,
): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    let received = 0;
    const req = httpRequest(new URL(path, base), { headers, agent: false }, (res) => {
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received < bytes || res.isPaused()) return;
        res.pause();
        setTimeout(() => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0 });
        }, 300);
      });
      res.on('error', () => undefined);
      res.on('end', () => reject(new Error(`the body ended after ${received} bytes, before the cut`)));
    });
    req.on('error', () => undefined);
    req.end();
  });
}

async function statsJson(fixture = f): Promise<StatsJson> {
  const answer = await fixture.get('/__tiercache/stats.json', { headers: { authorization: `Bearer ${STATS_TOKEN}` } });
  expect(answer.status).toBe(200);
  return JSON.parse(answer.text) as StatsJson;
}

/** stats.json once the edge has counted `requests` and nothing moves any more (the records settle after the bodies). */
async function settledStats(requests: number, fixture = f): Promise<StatsJson> {
  let last = '';
  for (let attempt = 0; attempt < 40; attempt++) {
    const view = await statsJson(fixture);
    const now = JSON.stringify(view.tiers);
    if (view.tiers.edge.totals.requests >= requests && now === last) return view;
    last = now;
    await settle(250);
  }
  throw new Error(`stats did not settle: ${last}`);
}

describe('a client that goes away before the body ends', () => {
  it('is counted as departed at the edge, cold or from stored slices; a read to the end and a range that ended are not', async () => {
    // Cold: a player's `bytes=0-` cut after 1 MiB, its slices still filling (they are the cache's to finish).
    expect((await cutGet('/movie.bin', { range: 'bytes=0-' }, MiB + 1000)).status).toBe(206);
    await settle(1500);
    // Read to its end: every slice stored by now.
    const full = await rawRequest(new URL('/movie.bin', f.stack.url));
    expect([full.status, full.error, sha256(full.body)]).toEqual([200, undefined, sha256(bytes)]);
    await settle(500);
    // A range read whole that ends inside a slice: the rest of that slice is let go, nobody left.
    const range = await rawRequest(new URL('/movie.bin', f.stack.url), { range: 'bytes=100-199' });
    expect([range.status, range.body]).toEqual([206, bytes.slice(100, 200)]);
    // Warm: stored slices piped to a client that goes away inside the second one.
    expect((await cutGet('/movie.bin', { range: 'bytes=1-' }, MiB + MiB / 2)).status).toBe(206);
    await settle(500);

    const view = await settledStats(4);
    const { edge, shield } = view.tiers;
    expect([edge.totals.requests, edge.totals.departed]).toEqual([4, 2]);
    // Each outcome says which: the cold cut was a miss, the stored one a hit.
    expect([edge.outcomes.miss.departed, edge.outcomes.hit.departed]).toEqual([1, 1]);
    // The edge finished every fill it had started after its client left (the fill is the cache's): no shield answer
    // was left unread.
    expect(shield.totals.departed).toBe(0);
  });

  it('keeps the stored slice it was reading when its client went away: the next read asks the shield for nothing', async () => {
    const before = await settledStats(4);
    const again = await rawRequest(new URL('/movie.bin', f.stack.url), { range: 'bytes=1-' });
    expect([again.status, again.error, sha256(again.body)]).toEqual([206, undefined, sha256(bytes.slice(1))]);
    expect(cacheStatus(again).find((member) => member[0] === 'tiercache-edge')).toContain('hit');
    const after = await settledStats(5);
    expect(after.tiers.edge.totals.requests).toBe(5);
    // Every slice read from this tier's store, the one the client left in included: not one byte from the shield.
    expect(after.tiers.edge.totals.bytesFromNextHop).toBe(before.tiers.edge.totals.bytesFromNextHop);
    expect(after.tiers.shield.totals.requests).toBe(before.tiers.shield.totals.requests);
  });

  it('is counted as departed when it goes before the first byte, the origin slow (a sliced answer)', async () => {
    await f.origin.putObject('early.bin', bytes.slice(0, 3 * MiB), { 'content-type': 'video/mp4' });
    f.tap.intercept(async (request) => {
      if (request.path.includes('early')) await new Promise((resolve) => setTimeout(resolve, 800));
    });
    const req = httpRequest(new URL('/early.bin', f.stack.url), { agent: false, headers: { range: 'bytes=0-' } });
    req.on('error', () => undefined);
    req.end();
    await settle(200);
    req.destroy();
    await settle(1000);
    f.tap.intercept(undefined);
    const view = await settledStats(6);
    expect([view.tiers.edge.totals.requests, view.tiers.edge.totals.departed]).toEqual([6, 3]);
    expect(view.tiers.edge.outcomes.error.requests).toBe(0);
  });

  it('prints no line for it (LOG_SAMPLE 0 here: only errors are logged), and no raw runtime line', () => {
    expect(printed.filter((line) => line.includes('"tiercache"'))).toEqual([]);
    expect(printed.filter((line) => /Network connection lost|Error writing HTTP body|Uncaught/.test(line))).toEqual([]);
  });
});

describe('a client that goes away through the local front (npm start)', () => {
  let fronted: Fixture;
  beforeAll(async () => {
    fronted = await startFixture({ STATS_TOKEN, STATS_FLUSH_MS: '0', SLICE_SIZE: '1MiB' }, { front: true });
    await fronted.origin.putObject('movie.bin', bytes, { 'content-type': 'video/mp4' });
  });
  afterAll(() => fronted?.close());

  it("closes the client's connection to the edge too, so the edge hears it and counts it", async () => {
    // Stored first: the cut read's slices are piped from the edge's store, as fast as the sockets take them.
    const full = await rawRequest(new URL('/movie.bin', fronted.stack.url), { range: 'bytes=1-' });
    expect([full.status, full.error]).toEqual([206, undefined]);
    await settle(500);
    expect((await cutGet('/movie.bin', { range: 'bytes=1-' }, MiB, fronted.stack.url)).status).toBe(206);
    const view = await settledStats(2, fronted);
    expect([view.tiers.edge.totals.requests, view.tiers.edge.totals.departed]).toEqual([2, 1]);
  });
});
