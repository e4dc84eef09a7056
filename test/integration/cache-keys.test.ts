// Cache keys: several sites (host names) behind one deployment, each reading its own bucket,
// and the query parameters that may tell S3 cache entries apart (CACHE_KEY_QUERY).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECOND_BUCKET } from '../../local/origin.ts';
import { cacheStatus, type Fixture, rawGet, settle, startFixture } from './fixture.ts';

let f: Fixture;
const port = (): string => new URL(f.stack.url).port;
const asHost = (host: string, path: string) => rawGet(new URL(path, f.stack.url), { host: `${host}:${port()}` });

beforeAll(async () => {
  f = await startFixture({
    HOST_BUCKETS: `site-b.test=${SECOND_BUCKET}`,
    CACHE_KEY_QUERY: 'v',
    RULES: JSON.stringify([{ name: 'live', match: { path: '/live/*' }, bypass: true }]),
  });
  await f.origin.putObject('page.html', 'bucket assets');
  await f.origin.putObjectIn(SECOND_BUCKET, 'page.html', 'bucket site-b');
  await f.origin.putObject('live/now.txt', 'live in assets');
  await f.origin.putObjectIn(SECOND_BUCKET, 'live/now.txt', 'live in site-b');
  await f.origin.putObject('app.js', 'app');
});
afterAll(() => f?.close());

describe('host names and buckets (HOST_BUCKETS)', () => {
  it('reads the bucket the host name maps to, and S3_BUCKET for any other host', async () => {
    expect((await asHost('site-b.test', '/page.html')).text).toBe('bucket site-b');
    expect((await asHost('SITE-B.test', '/page.html')).text).toBe('bucket site-b');
    expect((await asHost('127.0.0.1', '/page.html')).text).toBe('bucket assets');
    expect(f.tap.requests.map((r) => r.path)).toEqual(
      expect.arrayContaining([`/${SECOND_BUCKET}/page.html`, '/assets/page.html']),
    );
  });

  it("reads the host name's bucket for a request a rule bypasses too", async () => {
    expect((await asHost('site-b.test', '/live/now.txt')).text).toBe('live in site-b');
    expect((await asHost('127.0.0.1', '/live/now.txt')).text).toBe('live in assets');
  });

  it('keeps the two sites apart at both tiers', async () => {
    await settle();
    const b = await asHost('site-b.test', '/page.html');
    const a = await asHost('127.0.0.1', '/page.html');
    expect([a.text, b.text]).toEqual(['bucket assets', 'bucket site-b']);
    expect(cacheStatus(a).at(-1)?.[1]).toBe('hit');
    expect(cacheStatus(b).at(-1)?.[1]).toBe('hit');
  });
});

describe('query strings in S3 cache keys (CACHE_KEY_QUERY)', () => {
  it('tells entries apart by the listed parameters only, and never sends any to the origin', async () => {
    f.tap.clear();
    await f.get('/app.js?v=1&utm_source=x');
    await settle();
    expect(cacheStatus(await f.get('/app.js?utm_source=y&v=1')).at(-1)?.[1]).toBe('hit');
    expect(cacheStatus(await f.get('/app.js?v=2')).at(-1)?.[1]).not.toBe('hit');
    expect(f.tap.requests.every((r) => !r.path.includes('?'))).toBe(true);
  });
});

describe('a deployment that maps host names but has no default bucket', () => {
  it('answers 421 Misdirected Request for a host it does not serve', async () => {
    const only = await startFixture({ S3_BUCKET: '', HOST_BUCKETS: 'only.test=assets' });
    try {
      const answer = await rawGet(new URL('/page.html', only.stack.url), { host: 'unknown.test' });
      expect(answer.status).toBe(421);
      expect(only.tap.requests).toEqual([]);
    } finally {
      await only.close();
    }
  });
});
