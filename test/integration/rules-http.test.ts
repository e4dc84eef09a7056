// RULES in front of a site (ORIGIN_KIND=http; docs/rules.md): an override beating the site's own freshness at both
// tiers (overriding RFC 9111 §4.2.1, as Cloudflare's "ignore cache-control header" does), never its no-store; an
// edgeTtl where the site says nothing (DEFAULT_TTL is 0 for a site); a bypass; a rule's cacheKeyQuery, which is also
// what the site gets. The origin answers whatever a test scripts (any-origin.ts).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { type AnyOrigin, type Script, startAnyOrigin } from './any-origin.ts';
import { type Answer, cacheStatus, FakeClock, request, settle } from './fixture.ts';

const RULES = [
  { name: 'api', match: { path: '/api/*' }, edgeTtl: 600, override: true },
  { name: 'pages', match: { extension: 'html' }, edgeTtl: 120 },
  { name: 'session', match: { path: '/session/*' }, bypass: true },
  { name: 'search', match: { path: '/search' }, cacheKeyQuery: ['q'] },
];

let origin: AnyOrigin;
let stack: Stack;
const clock = new FakeClock();
const get = (path: string, init?: RequestInit): Promise<Answer> => request(new URL(path, stack.url), init);
/** The site's answer, dated by the fake clock, as a real site's clock agrees with the cache's. */
const dated =
  (status: number, headers: Record<string, string>, body: string): Script =>
  () => ({ status, headers: { ...headers, date: new Date(clock.now()).toUTCString() }, body });
const member = (answer: Answer, cache: string): string =>
  cacheStatus(answer)
    .find((parts) => parts[0] === cache)
    ?.join('; ') ?? '';

beforeAll(async () => {
  origin = await startAnyOrigin();
  stack = await startWorkers({
    config: { ORIGIN_KIND: 'http', ORIGIN_URL: origin.url, SHIELD_TOKEN: 't', RULES: JSON.stringify(RULES) },
    clock: clock.now,
  });
});
afterAll(async () => {
  await stack?.dispose();
  await origin?.close();
});

describe('a rule’s override in front of a site', () => {
  it('keeps an answer the site marks max-age=0 for the rule’s 600 s at both tiers, saying which rule decided', async () => {
    origin.answer('/api/prices', dated(200, { 'cache-control': 'max-age=0' }, '{"p":1}'));
    const first = await get('/api/prices');
    expect(first.text).toBe('{"p":1}');
    expect(member(first, 'tiercache-shield')).toMatch(/stored; detail=rule:api/);
    expect(member(first, 'tiercache-edge')).toMatch(/stored; detail=rule:api/);
    await settle();
    clock.advance(300);
    const later = await get('/api/prices');
    expect(member(later, 'tiercache-edge')).toMatch(/^tiercache-edge; hit; ttl=(29\d|300); detail=rule:api$/);
    expect(origin.receivedFor('/api/prices')).toHaveLength(1);
  });

  it('still keeps a no-store answer out of both tiers: an override decides how long, never whether', async () => {
    origin.answer('/api/me', dated(200, { 'cache-control': 'no-store' }, 'me'));
    for (let i = 0; i < 2; i++) {
      const answer = await get('/api/me');
      expect(answer.headers.get('cache-status')).not.toContain('rule:');
      await settle();
    }
    expect(origin.receivedFor('/api/me')).toHaveLength(2);
  });

  it('gives an answer without freshness the rule’s edgeTtl where DEFAULT_TTL gives none, and leaves explicit freshness alone', async () => {
    origin.answer('/about.html', dated(200, {}, '<p>about</p>'));
    origin.answer('/news.html', dated(200, { 'cache-control': 'max-age=5' }, '<p>news</p>'));
    expect(member(await get('/about.html'), 'tiercache-edge')).toMatch(/stored; detail=rule:pages/);
    const news = await get('/news.html');
    expect(news.headers.get('cache-status')).not.toContain('rule:');
    await settle();
    clock.advance(60);
    expect(member(await get('/about.html'), 'tiercache-edge')).toMatch(/^tiercache-edge; hit; .*detail=rule:pages/);
    expect(member(await get('/news.html'), 'tiercache-edge')).not.toMatch(/; hit/);
    expect(origin.receivedFor('/about.html')).toHaveLength(1);
    expect(origin.receivedFor('/news.html')).toHaveLength(2);
  });
});

describe('a rule’s bypass in front of a site', () => {
  it('sends each request with its cookie to the site and stores nothing', async () => {
    origin.answer('/session/state', dated(200, { 'cache-control': 'max-age=600' }, 'state'));
    for (let i = 0; i < 2; i++) {
      const answer = await get('/session/state', { headers: { cookie: 'id=7' } });
      expect(answer.text).toBe('state');
      expect(member(answer, 'tiercache-edge')).toBe('tiercache-edge; fwd=bypass; detail=rule:session');
      await settle();
    }
    expect(origin.receivedFor('/session/state').map((r) => r.headers.cookie)).toEqual(['id=7', 'id=7']);
  });
});

describe('a rule’s cacheKeyQuery in front of a site', () => {
  it('keys /search by q alone, and sends the site only q: an answer never depends on what its key leaves out', async () => {
    origin.answer('/search', (asked) => ({
      status: 200,
      headers: { 'cache-control': 'max-age=600' },
      body: asked.path,
    }));
    expect((await get('/search?q=cats&utm_source=mail')).text).toBe('/search?q=cats');
    await settle();
    const again = await get('/search?utm_source=feed&q=cats');
    expect(again.text).toBe('/search?q=cats');
    expect(member(again, 'tiercache-edge')).toMatch(/^tiercache-edge; hit/);
    expect((await get('/search?q=dogs')).text).toBe('/search?q=dogs');
    const asked = origin.received.filter((r) => r.path.startsWith('/search'));
    expect(asked.map((r) => r.path)).toEqual(['/search?q=cats', '/search?q=dogs']);
  });
});
