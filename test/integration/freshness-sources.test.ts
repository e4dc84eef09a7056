// Where freshness comes from (RFC 9111 §4.2.1, §4.2.2, §4.2.3), observed across both tiers.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, cacheStatus, FakeClock, type Fixture, settle, startFixture } from './fixture.ts';

let f: Fixture;
/** Same stack with no configured default, so the Last-Modified heuristic decides. */
let noDefault: Fixture;
const clock = new FakeClock();

// These tests read each tier's Cache API copy in turn, dropping the edge's behind its back to
// reach the shield's; the edge's memory layer would keep answering from its own copy, so it is
// off here (its freshness is tested in memory-layer.test.ts).
const NO_MEMORY = { MEMORY_CACHE_SIZE: '0' };

beforeAll(async () => {
  [f, noDefault] = await Promise.all([
    startFixture(NO_MEMORY, { clock }),
    startFixture({ ...NO_MEMORY, DEFAULT_TTL: '0' }, { clock }),
  ]);
});
afterAll(async () => {
  await Promise.all([f?.close(), noDefault?.close()]);
});

const originGets = (fixture: Fixture) => fixture.tap.requests.filter((r) => r.method === 'GET');
/** The ttl one tier's Cache-Status member reports (`tiercache-edge` or `tiercache-shield`). */
function ttl(answer: Answer, tier: string): number {
  const member = cacheStatus(answer).find((m) => m[0] === tier) ?? [];
  const param = member.find((p) => p.startsWith('ttl='));
  return param === undefined ? Number.NaN : Number(param.slice('ttl='.length));
}
/** Drops the edge's copy so the next request is answered by the shield's. */
async function forgetAtEdge(fixture: Fixture, path: string): Promise<void> {
  const edge = await (await fixture.stack.mf.getCaches()).open('tiercache-edge');
  expect(await edge.delete(new URL(path, fixture.stack.url).href)).toBe(true);
}

describe('freshness from the response', () => {
  it('keeps an object with Expires fresh until then, at both tiers (RFC 9111 §4.2.1)', async () => {
    const expires = new Date(Date.now() + 60_000).toUTCString();
    await f.origin.putObject('expires.txt', 'until then', { expires });
    const first = await f.get('/expires.txt');
    expect(first.headers.get('expires')).toBe(expires);
    await settle();
    f.tap.clear();

    const edgeHit = await f.get('/expires.txt');
    expect(cacheStatus(edgeHit).at(-1)?.slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    // Expires − Date, less the seconds this took (HTTP dates have one-second precision; a loaded machine takes a few).
    expect(ttl(edgeHit, 'tiercache-edge')).toBeGreaterThanOrEqual(50);
    expect(ttl(edgeHit, 'tiercache-edge')).toBeLessThanOrEqual(60);

    await forgetAtEdge(f, '/expires.txt');
    const shieldHit = await f.get('/expires.txt');
    expect(cacheStatus(shieldHit)[0]?.slice(0, 2)).toEqual(['tiercache-shield', 'hit']);
    expect(ttl(shieldHit, 'tiercache-shield')).toBeGreaterThanOrEqual(50);
    expect(ttl(shieldHit, 'tiercache-shield')).toBeLessThanOrEqual(60);
    expect(originGets(f)).toEqual([]);
  });

  it('lets Cache-Control: max-age win over Expires (RFC 9111 §5.3)', async () => {
    const expires = new Date(Date.now() + 10_000).toUTCString();
    await f.origin.putObject('max-age-and-expires.txt', 'x', { expires, 'cache-control': 'max-age=600' });
    await f.get('/max-age-and-expires.txt');
    await settle();
    const hit = await f.get('/max-age-and-expires.txt');
    expect(cacheStatus(hit).at(-1)?.[1]).toBe('hit');
    expect(ttl(hit, 'tiercache-edge')).toBeGreaterThan(590);
    expect(ttl(hit, 'tiercache-edge')).toBeLessThanOrEqual(600);
  });

  it('treats an Expires at or before Date as already stale and does not store it (RFC 9111 §4.2.1)', async () => {
    await f.origin.putObject('expired.txt', 'old news', { expires: new Date(Date.now() - 60_000).toUTCString() });
    await f.get('/expired.txt');
    await settle();
    f.tap.clear();
    const again = await f.get('/expired.txt');
    expect(again.text).toBe('old news');
    expect(originGets(f)).toHaveLength(1);
  });
});

describe('freshness when the response says nothing', () => {
  it('applies the configured DEFAULT_TTL (3600 s for s3) at both tiers', async () => {
    await f.origin.putObject('silent.txt', 'no caching headers');
    await f.get('/silent.txt');
    await settle();
    const edgeHit = await f.get('/silent.txt');
    expect(ttl(edgeHit, 'tiercache-edge')).toBeGreaterThan(3590);
    expect(ttl(edgeHit, 'tiercache-edge')).toBeLessThanOrEqual(3600);
    await forgetAtEdge(f, '/silent.txt');
    const shieldHit = await f.get('/silent.txt');
    expect(ttl(shieldHit, 'tiercache-shield')).toBeGreaterThan(3590);
    expect(ttl(shieldHit, 'tiercache-shield')).toBeLessThanOrEqual(3600);
  });

  it('without DEFAULT_TTL, gives a just-modified object 10% of its age since Last-Modified, here 0 s, so does not store it (RFC 9111 §4.2.2)', async () => {
    await noDefault.origin.putObject('heuristic.txt', 'just uploaded');
    const first = await noDefault.get('/heuristic.txt');
    expect(first.status).toBe(200);
    expect(first.headers.get('last-modified')).not.toBeNull();
    // Date − Last-Modified is a second at most, and 10% of that rounds down to no freshness.
    const sinceModified =
      (Date.parse(first.headers.get('date') ?? '') - Date.parse(first.headers.get('last-modified') ?? '')) / 1000;
    expect(Math.floor(sinceModified * 0.1)).toBe(0);
    for (const member of cacheStatus(first)) expect(member).not.toContain('stored');
    await settle();
    noDefault.tap.clear();
    const again = await noDefault.get('/heuristic.txt');
    expect(again.text).toBe('just uploaded');
    expect(originGets(noDefault)).toHaveLength(1);
  });

  it('without DEFAULT_TTL, still stores an object that gives its own freshness', async () => {
    await noDefault.origin.putObject('explicit.txt', 'x', { 'cache-control': 'max-age=60' });
    await noDefault.get('/explicit.txt');
    await settle();
    noDefault.tap.clear();
    expect(cacheStatus(await noDefault.get('/explicit.txt')).at(-1)?.[1]).toBe('hit');
    expect(originGets(noDefault)).toEqual([]);
  });
});

describe('Age across tiers', () => {
  it('counts the time the response spent at the shield in the Age the edge sends (RFC 9111 §4.2.3, §5.1)', async () => {
    await f.origin.putObject('aged.txt', 'x', { 'cache-control': 'max-age=600' });
    await f.get('/aged.txt');
    await settle();
    clock.advance(2);
    await forgetAtEdge(f, '/aged.txt');
    f.tap.clear();
    const answer = await f.get('/aged.txt');
    expect(cacheStatus(answer)[0]?.slice(0, 2)).toEqual(['tiercache-shield', 'hit']);
    expect(Number(answer.headers.get('age'))).toBeGreaterThanOrEqual(2);
    // And the edge's copy is fresh for that much less.
    expect(ttl(answer, 'tiercache-shield')).toBeLessThanOrEqual(598);
    await settle();
    const edgeHit = await f.get('/aged.txt');
    expect(cacheStatus(edgeHit).at(-1)?.slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    expect(ttl(edgeHit, 'tiercache-edge')).toBeLessThanOrEqual(598);
    expect(f.tap.requests).toEqual([]);
  });
});
