// RFC 9111 §4.2.4 / §4.3 and RFC 5861 across both tiers, on a fake clock: time passes when a
// test moves it, so these tests neither sleep for freshness to run out nor race it.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheStatus, FakeClock, type Fixture, settle, startFixture } from './fixture.ts';

let f: Fixture;
const clock = new FakeClock();
const originGets = () => f.tap.requests.filter((r) => r.method === 'GET');

beforeAll(async () => {
  f = await startFixture({ STALE_WHILE_REVALIDATE: '0', STALE_IF_ERROR: '0' }, { clock });
});
afterAll(() => f?.close());

describe('stale content', () => {
  it('serves the stale copy and refreshes it in the background once (stale-while-revalidate)', async () => {
    await f.origin.putObject('swr.txt', 'v1', { 'cache-control': 'max-age=60, stale-while-revalidate=30' });
    expect((await f.get('/swr.txt')).text).toBe('v1');
    await settle();
    clock.advance(70);
    await f.origin.putObject('swr.txt', 'v2', { 'cache-control': 'max-age=60, stale-while-revalidate=30' });
    f.tap.clear();
    const stale = await f.get('/swr.txt');
    expect(stale.text).toBe('v1');
    expect(cacheStatus(stale).at(-1)).toContain('detail=stale-while-revalidate');
    expect(Number(/ttl=(-?\d+)/.exec(stale.headers.get('cache-status') ?? '')?.[1])).toBeLessThanOrEqual(0);
    await settle(500);
    expect(originGets()).toHaveLength(1);
    const fresh = await f.get('/swr.txt');
    expect(fresh.text).toBe('v2');
    expect(originGets()).toHaveLength(1);
  });

  it('revalidates a stale copy with a conditional request and keeps its body on 304', async () => {
    await f.origin.putObject('revalidate.txt', 'same', { 'cache-control': 'max-age=60' });
    const first = await f.get('/revalidate.txt');
    await settle();
    clock.advance(61);
    f.tap.clear();
    const again = await f.get('/revalidate.txt');
    expect(again.text).toBe('same');
    const sent = originGets();
    expect(sent).toHaveLength(1);
    expect(sent[0]?.headers['if-none-match']).toBe(first.headers.get('etag'));
    expect(sent[0]?.status).toBe(304);
    const [shield, edge] = cacheStatus(again);
    expect(shield).toEqual(expect.arrayContaining(['fwd=stale', 'fwd-status=304']));
    expect(edge).toEqual(expect.arrayContaining(['fwd=stale', 'fwd-status=304']));
    await settle();
    f.tap.clear();
    expect(cacheStatus(await f.get('/revalidate.txt')).at(-1)?.[1]).toBe('hit');
    expect(f.tap.requests).toEqual([]);
  });

  it('stores a no-cache response but validates it before every use', async () => {
    await f.origin.putObject('no-cache.txt', 'check me', { 'cache-control': 'no-cache' });
    await f.get('/no-cache.txt');
    await settle();
    f.tap.clear();
    for (let i = 0; i < 2; i++) expect((await f.get('/no-cache.txt')).text).toBe('check me');
    expect(originGets().map((r) => r.status)).toEqual([304, 304]);
  });

  it('does not store no-store or private responses', async () => {
    await f.origin.putObject('no-store.txt', 'x', { 'cache-control': 'no-store' });
    await f.origin.putObject('private.txt', 'x', { 'cache-control': 'private, max-age=600' });
    for (const path of ['/no-store.txt', '/private.txt']) {
      await f.get(path);
      await settle();
      f.tap.clear();
      await f.get(path);
      expect(originGets(), path).toHaveLength(1);
    }
  });

  it('prefers s-maxage over max-age at both tiers', async () => {
    await f.origin.putObject('smaxage.txt', 'x', { 'cache-control': 'max-age=0, s-maxage=600' });
    await f.get('/smaxage.txt');
    await settle();
    const hit = await f.get('/smaxage.txt');
    expect(cacheStatus(hit).at(-1)?.[1]).toBe('hit');
    expect(Number(/ttl=(\d+)/.exec(hit.headers.get('cache-status') ?? '')?.[1])).toBeGreaterThan(590);
  });
});

describe('when the origin fails', () => {
  it('serves stale within stale-if-error, never past it, and never when must-revalidate forbids', async () => {
    await f.origin.putObject('sie.txt', 'still here', { 'cache-control': 'max-age=60, stale-if-error=300' });
    await f.origin.putObject('strict.txt', 'strict', {
      'cache-control': 'max-age=60, must-revalidate, stale-if-error=300',
    });
    await f.get('/sie.txt');
    await f.get('/strict.txt');
    await settle();
    clock.advance(61);
    await f.origin.close();
    const stale = await f.get('/sie.txt');
    expect(stale.status).toBe(200);
    expect(stale.text).toBe('still here');
    expect(cacheStatus(stale).at(-1)).toContain('detail=stale-if-error');
    expect((await f.get('/strict.txt')).status).toBe(502);
    clock.advance(300);
    expect((await f.get('/sie.txt')).status).toBe(502);
  });
});
