// RULES at the tiers that store (docs/rules.md), through both workers against s3rver, objects uploaded without any
// Cache-Control (a bucket without metadata): a rule's edgeTtl and stale windows at both tiers, `detail=rule:<name>`
// in Cache-Status, a bypass that stores nothing anywhere, and a rule's cacheKeyQuery. On the fake clock: days pass
// when a test moves it.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIAL_HEADER, HOST_HEADER } from '../../shared/hop/hop-fields.ts';
import {
  type Answer,
  cacheStatus,
  FakeClock,
  type Fixture,
  request,
  SHIELD_TOKEN,
  settle,
  startFixture,
} from './fixture.ts';

const YEAR = 31_536_000;
const RULES = [
  { name: 'assets', match: { path: '/assets/*' }, edgeTtl: YEAR },
  { name: 'html', match: { extension: 'html' }, edgeTtl: 60, staleWhileRevalidate: 30 },
  { name: 'live', match: { path: '/live/*' }, bypass: true },
  { name: 'images', match: { path: '/img/*' }, cacheKeyQuery: ['w'] },
];

let f: Fixture;
const clock = new FakeClock();
const originGets = () => f.tap.requests.filter((r) => r.method === 'GET');

beforeAll(async () => {
  f = await startFixture(
    { RULES: JSON.stringify(RULES), DEFAULT_TTL: '3600', STALE_WHILE_REVALIDATE: '0', STALE_IF_ERROR: '0' },
    { clock },
  );
});
afterAll(() => f?.close());

/** The member of `cache` in the answer's Cache-Status, as written. */
function member(answer: Answer, cache: 'tiercache-edge' | 'tiercache-shield'): string {
  return (
    cacheStatus(answer)
      .find((parts) => parts[0] === cache)
      ?.join('; ') ?? ''
  );
}

/** The shield's own answer for `path`, as the edge would ask for it whole (its port exists only locally). */
function askShield(path: string): Promise<Answer> {
  return request(new URL(path, f.stack.shieldUrl), {
    headers: { [CREDENTIAL_HEADER]: SHIELD_TOKEN, [HOST_HEADER]: new URL(f.stack.url).hostname },
  });
}

describe('a rule’s freshness at the tiers that store', () => {
  it('keeps /assets/* a year at both tiers, where DEFAULT_TTL would have let it go within the hour, and says which rule', async () => {
    await f.origin.putObject('assets/app.js', 'console.log(1)');
    const first = await f.get('/assets/app.js');
    expect(first.text).toBe('console.log(1)');
    expect(member(first, 'tiercache-edge')).toMatch(/stored.*detail="?rule:assets/);
    expect(member(first, 'tiercache-shield')).toMatch(/detail="?rule:assets/);
    await settle();
    clock.advance(5 * 86_400);
    f.tap.clear();
    const later = await f.get('/assets/app.js');
    expect(later.text).toBe('console.log(1)');
    expect(member(later, 'tiercache-edge')).toMatch(/^tiercache-edge; hit; ttl=(\d+); detail="?rule:assets/);
    const ttl = Number(/ttl=(\d+)/.exec(member(later, 'tiercache-edge'))?.[1]);
    expect(ttl).toBeGreaterThan(YEAR - 5 * 86_400 - 60);
    expect(ttl).toBeLessThanOrEqual(YEAR - 5 * 86_400);
    const shield = await askShield('/assets/app.js');
    expect(member(shield, 'tiercache-shield')).toMatch(/^tiercache-shield; hit; ttl=\d+; detail="?rule:assets/);
    expect(f.tap.requests).toEqual([]);
  });

  it('leaves an object no rule matches to DEFAULT_TTL, with no rule in its Cache-Status', async () => {
    await f.origin.putObject('plain.txt', 'plain');
    const first = await f.get('/plain.txt');
    expect(first.headers.get('cache-status')).not.toContain('rule:');
    await settle();
    clock.advance(3601);
    f.tap.clear();
    const later = await f.get('/plain.txt');
    expect(member(later, 'tiercache-edge')).not.toMatch(/; hit/);
    expect(originGets()).toHaveLength(1);
  });

  it('serves *.html stale for the rule’s 30 s past its 60 s, refreshing it in the background', async () => {
    await f.origin.putObject('page.html', '<p>v1</p>', { 'content-type': 'text/html' });
    expect((await f.get('/page.html')).text).toBe('<p>v1</p>');
    await settle();
    clock.advance(61);
    await f.origin.putObject('page.html', '<p>v2</p>', { 'content-type': 'text/html' });
    f.tap.clear();
    const stale = await f.get('/page.html');
    expect(stale.text).toBe('<p>v1</p>');
    expect(member(stale, 'tiercache-edge')).toMatch(
      /^tiercache-edge; hit; ttl=-\d+; detail="rule:html stale-while-revalidate"/,
    );
    await settle(500);
    expect(originGets()).toHaveLength(1);
    expect((await f.get('/page.html')).text).toBe('<p>v2</p>');
    expect(originGets()).toHaveLength(1);
  });

  it('answers *.html past its stale window only once the origin was asked again', async () => {
    await f.origin.putObject('late.html', '<p>late</p>', { 'content-type': 'text/html' });
    await f.get('/late.html');
    await settle();
    clock.advance(95);
    f.tap.clear();
    const after = await f.get('/late.html');
    expect(after.text).toBe('<p>late</p>');
    expect(member(after, 'tiercache-edge')).toMatch(/^tiercache-edge; fwd=stale/);
    expect(member(after, 'tiercache-edge')).not.toContain('stale-while-revalidate');
    // Asked before the answer came, not in the background.
    expect(originGets()).toHaveLength(1);
  });
});

describe('a rule’s bypass', () => {
  it('sends every request to the origin and stores nothing at either tier, saying so at both', async () => {
    await f.origin.putObject('live/now.txt', 'now', { 'cache-control': 'max-age=600' });
    f.tap.clear();
    for (let i = 0; i < 3; i++) {
      const answer = await f.get('/live/now.txt');
      expect(answer.text).toBe('now');
      expect(member(answer, 'tiercache-edge')).toBe('tiercache-edge; fwd=bypass; detail=rule:live');
      expect(member(answer, 'tiercache-shield')).toBe('tiercache-shield; fwd=bypass; detail=rule:live');
      await settle();
    }
    expect(originGets()).toHaveLength(3);
    // Nothing was stored at the shield either: its own answer goes to the origin too.
    await askShield('/live/now.txt');
    expect(originGets()).toHaveLength(4);
  });

  it('passes a client’s Range and HEAD through to the origin, signed as the object’s own GET and HEAD', async () => {
    await f.origin.putObject('live/range.txt', '0123456789');
    f.tap.clear();
    const part = await f.get('/live/range.txt', { headers: { range: 'bytes=2-4' } });
    expect(part.status).toBe(206);
    expect(part.text).toBe('234');
    expect(part.headers.get('content-range')).toBe('bytes 2-4/10');
    const head = await f.get('/live/range.txt', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('10');
    expect(f.tap.requests.map((r) => [r.method, r.path.split('?')[0], r.headers.range, r.status])).toEqual([
      ['GET', `/${f.origin.bucket}/live/range.txt`, 'bytes=2-4', 206],
      ['HEAD', `/${f.origin.bucket}/live/range.txt`, undefined, 200],
    ]);
  });

  it('answers a missing object with 404, never S3’s error document', async () => {
    const missing = await f.get('/live/missing.txt');
    expect(missing.status).toBe(404);
    expect(missing.text).not.toContain('<Error>');
    expect(member(missing, 'tiercache-edge')).toContain('fwd=bypass');
  });
});

describe('a rule’s cacheKeyQuery', () => {
  it('keys /img/* by w at both tiers, each w its own entry, while the origin never gets a query', async () => {
    await f.origin.putObject('img/cat.jpg', 'cat');
    f.tap.clear();
    for (const query of ['?w=100', '?w=200', '?w=100&utm=x', '?utm=y&w=200']) {
      expect((await f.get(`/img/cat.jpg${query}`)).text).toBe('cat');
      await settle();
    }
    expect(originGets().map((r) => r.path)).toEqual([
      `/${f.origin.bucket}/img/cat.jpg`,
      `/${f.origin.bucket}/img/cat.jpg`,
    ]);
    expect(cacheStatus(await f.get('/img/cat.jpg?w=200'))).toContainEqual(
      expect.arrayContaining(['tiercache-edge', 'hit']),
    );
  });

  it('keeps one entry for an object no such rule matches, whatever its query (CACHE_KEY_QUERY is empty)', async () => {
    await f.origin.putObject('other.txt', 'other');
    f.tap.clear();
    for (const query of ['?w=100', '?w=200']) {
      await f.get(`/other.txt${query}`);
      await settle();
    }
    expect(originGets()).toHaveLength(1);
  });
});
