// An edge isolate that cannot read the purge list (a KV outage: every KV request fails) through the real workers
// (docs/purge.md "When KV cannot be read"): it still never serves what a purge made the bound ago removed, it
// answers (never a 500), it fetches each object again once rather than on every request, and its health answer says
// the list is unread; a purge it cannot record is a 503 to ask again. A second edge isolate, as another location's, shares the first's Cache API namespace here (one
// workerd), so it finds the copy the first stored.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORDS_REACH_MS } from '../../shared/purge/purge-bounds.ts';
import { HEALTH_PATH } from '../../shared/request/reserved-paths.ts';
import { type Answer, cacheStatus, FakeClock, type Fixture, rawGet, request, settle, startFixture } from './fixture.ts';

const PURGE_TOKEN = 'unreadable-purge-token';
const A_YEAR = { 'content-type': 'text/plain', 'cache-control': 'max-age=31536000' };
const clock = new FakeClock();
let f: Fixture;
let second: string;

beforeAll(async () => {
  f = await startFixture(
    { PURGE_TOKEN },
    { clock, secondEdge: true, entries: { edge: 'test/integration/unreadable-purges-edge.js' } },
  );
  second = f.stack.secondEdgeUrl ?? '';
});
afterAll(() => f?.close());

function purgeAt(base: string, body: unknown): Promise<Answer> {
  return request(new URL('/__tiercache/purge', base), {
    method: 'POST',
    headers: { authorization: `Bearer ${PURGE_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function purge(body: unknown): Promise<void> {
  const answer = await purgeAt(f.stack.url, body);
  expect(answer.status, answer.text).toBe(200);
}

function edgeMember(answer: Answer): string[] {
  return cacheStatus(answer).at(-1)?.slice(0, 2) ?? [];
}

/**
 * `path` asked of the second edge for the first edge's host: the edge keys its entries by URL, host and all, so this is
 * the copy the first one stored (another location's edge, asked for the same site).
 */
function atSecondEdge(path: string): Promise<Answer> {
  return rawGet(new URL(path, second), { host: new URL(f.stack.url).host });
}

const originGets = (path: string): number =>
  f.tap.requests.filter((r) => r.method === 'GET' && r.path.endsWith(path)).length;

describe('an edge isolate whose reads of the purge list fail from the first', () => {
  it('never serves a copy a purge made the bound ago removed, answers, fetches it again once, and says the list is unread', async () => {
    expect(second, 'the second edge').not.toBe('');
    await f.origin.putObject('kv/a.txt', 'before', A_YEAR);
    await f.get('/kv/a.txt');
    await settle();
    expect(edgeMember(await f.get('/kv/a.txt'))).toEqual(['tiercache-edge', 'hit']);
    await purge({ prefixes: ['/kv/'] });
    await f.origin.putObject('kv/a.txt', 'after', A_YEAR);
    // The purge is older than the bound the answer states by the time the second edge first reads the list.
    clock.advance(RECORDS_REACH_MS / 1000 + 1);
    expect((await request(new URL('/__test/purges-unreadable', second))).status).toBe(200);
    f.tap.clear();

    const first = await atSecondEdge('/kv/a.txt');
    expect(first.status).toBe(200);
    expect(first.text).toBe('after');
    expect(edgeMember(first)).not.toEqual(['tiercache-edge', 'hit']);
    await settle();
    // What came from the origin after the horizon of the failed read is vouched for: a hit, not a fetch a request.
    const again = await atSecondEdge('/kv/a.txt');
    expect(again.text).toBe('after');
    expect(edgeMember(again)).toEqual(['tiercache-edge', 'hit']);
    expect(originGets('/kv/a.txt')).toBe(1);

    const health = JSON.parse((await request(new URL(HEALTH_PATH, second))).text) as {
      purgeList?: { edge?: { state: string }; shield?: { state: string } };
    };
    expect(health.purgeList?.edge?.state).toBe('unread');
    expect(health.purgeList?.shield?.state).toBe('read');
  });

  it('answers a purge it cannot record 503 with Retry-After, saying so: never a 500, and safe to ask again', async () => {
    const answer = await purgeAt(second, { urls: ['/kv/a.txt'] });
    expect(answer.status, answer.text).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('60');
    expect(answer.text).toMatch(/the purge list \(KV\) did not take the purge/);
  });
});
