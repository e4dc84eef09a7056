// The purge list's head through the real workers (shared/purge/purge-head.ts, head-store.ts): a purge at one edge
// rewrites the head key beside its batch; another edge isolate, whose copy of the list was complete, reads the head at
// its next re-read, sees it changed, lists, and serves the purged object no longer. Re-reads of an unchanged head cost a
// KV get each and no list (stats.json's windowOperations count them), and an isolate takes a read of the head another
// isolate of its location made moments before from the Cache API instead of reading KV.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORDS_REACH_MS } from '../../shared/purge/purge-bounds.ts';
import { HEAD_KEY, parseHead } from '../../shared/purge/purge-head.ts';
import { REFRESH_MS } from '../../shared/purge/purge-rules.ts';
import type { StatsJson } from '../../shared/stats/stats-json.ts';
import { type Answer, cacheStatus, FakeClock, type Fixture, rawGet, request, settle, startFixture } from './fixture.ts';

const PURGE_TOKEN = 'purge-head-token';
const STATS_TOKEN = 'purge-head-stats';
const A_YEAR = { 'content-type': 'text/plain', 'cache-control': 'max-age=31536000' };
const clock = new FakeClock();
let f: Fixture;
let second: string;

beforeAll(async () => {
  f = await startFixture({ PURGE_TOKEN, STATS_TOKEN, STATS_FLUSH_MS: '0' }, { clock, secondEdge: true });
  second = f.stack.secondEdgeUrl ?? '';
});
afterAll(() => f?.close());

/** `path` asked of the second edge for the first edge's host: the same site, another isolate. */
function atSecondEdge(path: string): Promise<Answer> {
  return rawGet(new URL(path, second), { host: new URL(f.stack.url).host });
}

function edgeMember(answer: Answer): string[] {
  return cacheStatus(answer).at(-1)?.slice(0, 2) ?? [];
}

/** The KV requests stats.json counted in its window, and the edge's requests, read through the first edge. */
async function operations(): Promise<{ lists: number; reads: number; edgeRequests: number }> {
  const answer = await request(new URL('/__tiercache/stats.json', f.stack.url), {
    headers: { authorization: `Bearer ${STATS_TOKEN}` },
  });
  expect(answer.status, answer.text).toBe(200);
  const view = JSON.parse(answer.text) as StatsJson;
  const { kvListRequests, kvReadRequests } = view.cost.windowOperations;
  return { lists: kvListRequests, reads: kvReadRequests, edgeRequests: view.tiers.edge.totals.requests };
}

/** The second edge's hit on `path` once its flush (waitUntil) reached the store. */
async function hitAtSecondEdge(path: string, requestsBefore: number): Promise<void> {
  const answer = await atSecondEdge(path);
  expect(edgeMember(answer)).toEqual(['tiercache-edge', 'hit']);
  for (let i = 0; i < 50 && (await operations()).edgeRequests < requestsBefore + 1; i++) await settle(50);
}

describe('a purge seen through the head key', () => {
  it('is in force at another edge isolate after its next re-read: the head changed, so it listed', async () => {
    expect(second, 'the second edge').not.toBe('');
    await f.origin.putObject('head/a.txt', 'before', A_YEAR);
    expect((await atSecondEdge('/head/a.txt')).text).toBe('before');
    await settle();
    expect(edgeMember(await atSecondEdge('/head/a.txt'))).toEqual(['tiercache-edge', 'hit']);
    const purges = await f.stack.mf.getKVNamespace('PURGES', 'edge');
    expect(await purges.get(HEAD_KEY)).toBeNull();

    const purged = await request(new URL('/__tiercache/purge', f.stack.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${PURGE_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ urls: ['/head/a.txt'] }),
    });
    expect(purged.status, purged.text).toBe(200);
    const head = parseHead(await purges.get(HEAD_KEY));
    expect(head?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Math.abs((head?.at ?? 0) - clock.now())).toBeLessThan(10_000);

    await f.origin.putObject('head/a.txt', 'after', A_YEAR);
    clock.advance(REFRESH_MS / 1000);
    const after = await atSecondEdge('/head/a.txt');
    expect(after.text).toBe('after');
    expect(edgeMember(after)).not.toEqual(['tiercache-edge', 'hit']);
  });

  it('costs a KV get and no list per re-read while the head is unchanged, once it settled', async () => {
    // Past the purge's settling (KV's propagation and HEAD_SETTLE_MS): this re-read lists one last time.
    clock.advance(RECORDS_REACH_MS / 1000 + 5);
    await settle();
    await hitAtSecondEdge('/head/a.txt', (await operations()).edgeRequests);
    const before = await operations();
    const rereads = 6;
    for (let i = 0; i < rereads; i++) {
      clock.advance(REFRESH_MS / 1000);
      await hitAtSecondEdge('/head/a.txt', before.edgeRequests + i);
    }
    const after = await operations();
    expect(after.edgeRequests - before.edgeRequests).toBe(rereads);
    expect(after.reads - before.reads).toBe(rereads);
    expect(after.lists - before.lists).toBe(0);
  });

  it('takes the head another isolate of its location read moments before from the Cache API: no KV request of its own', async () => {
    clock.advance(REFRESH_MS / 1000);
    // The first edge re-reads here (its stats answer lists the recent purges): a KV get, shared.
    const before = await operations();
    await hitAtSecondEdge('/head/a.txt', before.edgeRequests);
    const after = await operations();
    expect(after.edgeRequests - before.edgeRequests).toBe(1);
    expect([after.reads - before.reads, after.lists - before.lists]).toEqual([0, 0]);
  });
});
