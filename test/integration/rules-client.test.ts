// RULES on the client's side of the edge (docs/rules.md, "What the client gets"): a metadata-less bucket's assets
// told to browsers as immutable while the tiers keep their own freshness, security headers on every answer (a miss,
// a Cache API hit, a memory hit, an error), redirects answered before any cache or the origin, and a single-page
// app's fallback read through the tiers like any object. Against s3rver, and in `http` mode against a scripted site.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { type Answer, cacheStatus, type Fixture, request, SHIELD_TOKEN, settle, startFixture } from './fixture.ts';
import { type Site, startSite } from './http-site.ts';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const APP_SHELL = '<!doctype html><div id="app"></div>';
const NOT_FOUND_PAGE = '<h1>nothing here</h1>';
const RULES = [
  { name: 'assets', match: { path: '/assets/*' }, browserCacheControl: IMMUTABLE },
  {
    name: 'security',
    headers: {
      set: { 'x-frame-options': 'DENY', 'strict-transport-security': 'max-age=63072000' },
      add: { link: '</assets/app.css>; rel=preload; as=style' },
      remove: ['content-disposition'],
    },
  },
  {
    name: 'old-docs',
    match: { path: '/old/*' },
    redirect: { status: 301, location: '/docs/', preservePathSuffix: true },
  },
  {
    name: 'moved',
    match: { path: '/moved' },
    redirect: { status: 308, location: 'https://new.example/landing?from=cdn', preserveQuery: true },
  },
  { name: 'app', match: { path: '/app/*' }, spaFallback: '/app/index.html' },
  // The document's own path only: a fallback answer for another path must not carry it.
  { name: 'shell', match: { path: '/app/index.html' }, headers: { set: { 'x-shell': 'asked-for' } } },
];

let f: Fixture;

beforeAll(async () => {
  f = await startFixture({ RULES: JSON.stringify(RULES), NOT_FOUND_DOCUMENT: '404.html' });
  const year = { 'content-type': 'text/css', 'cache-control': 'max-age=600' };
  await f.origin.putObject('assets/app.css', 'body{}', year);
  await f.origin.putObject('assets/logo.svg', '<svg/>', { 'content-type': 'image/svg+xml' });
  await f.origin.putObject('report.pdf', '%PDF-1.7', {
    'content-type': 'application/pdf',
    'content-disposition': 'attachment',
    'cache-control': 'max-age=600',
  });
  await f.origin.putObject('docs/guide.html', '<h1>guide</h1>', { 'cache-control': 'max-age=600' });
  await f.origin.putObject('app/index.html', APP_SHELL, { 'content-type': 'text/html', 'cache-control': 'max-age=60' });
  await f.origin.putObject('app/main.js', 'start()', { 'content-type': 'text/javascript' });
  await f.origin.putObject('404.html', NOT_FOUND_PAGE, { 'content-type': 'text/html' });
});
afterAll(() => f?.close());

const edgeMember = (answer: Answer): string[] => cacheStatus(answer).at(-1) ?? [];
const originGets = (): string[] => f.tap.requests.map((r) => `${r.method} ${r.path.slice(f.origin.bucket.length + 1)}`);
const edgeCache = async () => (await f.stack.mf.getCaches()).open('tiercache-edge');
/** The headers of the edge's Cache API entry for `path` (its body read, so the stream closes). */
async function storedAtEdge(path: string): Promise<Headers> {
  const stored = await (await edgeCache()).match(new URL(path, f.stack.url).href);
  expect(stored, `the edge's entry for ${path}`).toBeDefined();
  await stored?.arrayBuffer();
  return stored?.headers ?? new Headers();
}
const shieldGet = (path: string): Promise<Answer> =>
  request(new URL(path, f.stack.shieldUrl), { headers: { 'x-tiercache-credential': SHIELD_TOKEN } });

/** The headers the `security` rule gives every answer. */
function expectSecurityHeaders(answer: Answer, label: string): void {
  expect(answer.headers.get('x-frame-options'), label).toBe('DENY');
  expect(answer.headers.get('strict-transport-security'), label).toBe('max-age=63072000');
  expect(answer.headers.get('link'), label).toBe('</assets/app.css>; rel=preload; as=style');
}

describe('header edits (RULES headers)', () => {
  it('set, add and remove fields on a miss, a Cache API hit and a memory hit alike', async () => {
    const miss = await f.get('/report.pdf');
    expect(edgeMember(miss)).toContain('fwd=uri-miss');
    await settle();
    const cacheApiHit = await f.get('/report.pdf');
    expect(edgeMember(cacheApiHit).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    // Only memory holds it now: the next hit can come from nowhere else at the edge.
    expect(await (await edgeCache()).delete(new URL('/report.pdf', f.stack.url).href)).toBe(true);
    f.tap.clear();
    const memoryHit = await f.get('/report.pdf');
    expect(edgeMember(memoryHit).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    expect(originGets()).toEqual([]);
    for (const [label, answer] of [
      ['miss', miss],
      ['Cache API hit', cacheApiHit],
      ['memory hit', memoryHit],
    ] as const) {
      expect(answer.status, label).toBe(200);
      expect(answer.text, label).toBe('%PDF-1.7');
      expectSecurityHeaders(answer, label);
      expect(answer.headers.get('content-disposition'), label).toBeNull();
      expect(answer.headers.get('cache-control'), label).toBe('max-age=600');
    }
  });

  it('are never stored: the shield’s answer and the edge’s entry keep the object’s own fields', async () => {
    await f.origin.putObject('manual.pdf', '%PDF-1.7', { 'content-disposition': 'attachment' });
    expect((await f.get('/manual.pdf')).headers.get('content-disposition')).toBeNull();
    await settle();
    const stored = await storedAtEdge('/manual.pdf');
    const atShield = await shieldGet('/manual.pdf');
    for (const [label, headers] of [
      ['edge entry', stored],
      ['shield', atShield.headers],
    ] as const) {
      expect(headers.get('content-disposition'), label).toBe('attachment');
      expect(headers.get('x-frame-options'), label).toBeNull();
    }
  });

  it('reach HEAD, a range, a 304, a 404 and the answer to OPTIONS too', async () => {
    const head = await f.get('/report.pdf', { method: 'HEAD' });
    const range = await f.get('/report.pdf', { headers: { range: 'bytes=0-3' } });
    expect(range.status).toBe(206);
    const etag = head.headers.get('etag') ?? '';
    const notModified = await f.get('/report.pdf', { headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    const missing = await f.get('/no/such.txt');
    expect(missing.status).toBe(404);
    const options = await f.get('/report.pdf', { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    for (const [label, answer] of Object.entries({ head, range, notModified, missing, options })) {
      expectSecurityHeaders(answer, label);
    }
  });

  it('are made once on a memory hit that CORS copies (an added field is not added twice)', async () => {
    const cors = await startFixture({ RULES: JSON.stringify(RULES), CORS_ALLOW_ORIGINS: '*' });
    try {
      await cors.origin.putObject('font.woff2', 'wOF2', {
        'content-type': 'font/woff2',
        'cache-control': 'max-age=600',
      });
      const asked = { headers: { origin: 'https://app.example' } };
      const answers: Answer[] = [];
      for (let i = 0; i < 3; i++) {
        answers.push(await cors.get('/font.woff2', asked));
        await settle();
      }
      const hit = answers.at(-1);
      expect(hit && cacheStatus(hit).at(-1)?.slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
      for (const [i, answer] of answers.entries()) {
        expect(answer.headers.get('link'), `answer ${i + 1}`).toBe('</assets/app.css>; rel=preload; as=style');
        expect(answer.headers.get('access-control-allow-origin'), `answer ${i + 1}`).toBe('*');
      }
    } finally {
      await cors.close();
    }
  });

  it('leave the tiers’ own endpoints alone', async () => {
    const health = await f.get('/__tiercache/health');
    expect(health.headers.get('x-frame-options')).toBeNull();
  });
});

describe('browserCacheControl', () => {
  it('tells browsers an asset is immutable for a year while the tiers keep the object’s own freshness', async () => {
    const miss = await f.get('/assets/app.css');
    await settle();
    const hit = await f.get('/assets/app.css');
    expect(edgeMember(hit).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    for (const answer of [miss, hit]) expect(answer.headers.get('cache-control')).toBe(IMMUTABLE);
    // Age stays: it is the CDN's copy's age, whatever browsers are told to keep it for.
    expect(hit.headers.get('age')).toMatch(/^\d+$/);
    // The entry and the CDN's freshness are the object's: ttl counts down from its max-age=600.
    const ttl = Number(
      edgeMember(hit)
        .find((param) => param.startsWith('ttl='))
        ?.slice(4),
    );
    expect(ttl).toBeGreaterThan(500);
    expect(ttl).toBeLessThanOrEqual(600);
    // The entry keeps the origin's Cache-Control beside the one the Cache API is told (shared/store/stored-entry.ts).
    expect((await storedAtEdge('/assets/app.css')).get('x-tiercache-origin-cache-control')).toBe('max-age=600');
    expect((await shieldGet('/assets/app.css')).headers.get('cache-control')).toBe('max-age=600');
  });

  it('gives an object uploaded without metadata the browser Cache-Control too', async () => {
    const answer = await f.get('/assets/logo.svg');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe(IMMUTABLE);
  });

  it('reaches a 304 (RFC 9110 §15.4.5) and never an error: a missing asset keeps its own', async () => {
    const etag = (await f.get('/assets/app.css')).headers.get('etag') ?? '';
    const notModified = await f.get('/assets/app.css', { headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('cache-control')).toBe(IMMUTABLE);
    const missing = await f.get('/assets/missing.css');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('cache-control')).not.toBe(IMMUTABLE);
  });
});

describe('redirects (RULES redirect)', () => {
  it('answers 301 with the part of the path after /old/, never asking the shield or the origin', async () => {
    f.tap.clear();
    const moved = await f.get('/old/guide.html');
    expect(moved.status).toBe(301);
    expect(moved.headers.get('location')).toBe('/docs/guide.html');
    expect(moved.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(moved.text).toBe('301 Moved Permanently: /docs/guide.html\n');
    expect(cacheStatus(moved)).toEqual([['tiercache-edge', 'detail=rule:old-docs']]);
    // Every matching rule's headers reach a redirect too.
    expectSecurityHeaders(moved, 'redirect');
    const head = await f.get('/old/guide.html', { method: 'HEAD' });
    expect(head.status).toBe(301);
    expect(head.body).toHaveLength(0);
    expect(originGets()).toEqual([]);
    const followed = await f.get(moved.headers.get('location') ?? '');
    expect(followed.text).toBe('<h1>guide</h1>');
  });

  it('answers 308 with the query carried over after the location’s own', async () => {
    f.tap.clear();
    const moved = await f.get('/moved?utm=mail&page=2');
    expect(moved.status).toBe(308);
    expect(moved.headers.get('location')).toBe('https://new.example/landing?from=cdn&utm=mail&page=2');
    expect(originGets()).toEqual([]);
  });

  it('still redirects a path the edge had cached before the rule was deployed: no cache is asked first', async () => {
    await f.get('/docs/guide.html');
    await settle();
    const cache = await edgeCache();
    const entry = await cache.match(new URL('/docs/guide.html', f.stack.url).href);
    if (entry === undefined) throw new Error('the edge stored no entry for /docs/guide.html');
    expect(entry.status).toBe(200);
    // The entry as it would be had /old/guide-copy.html been served before the rule.
    const key = new URL('/old/guide-copy.html', f.stack.url).href;
    await cache.put(key, entry);
    const kept = await cache.match(key);
    expect(await kept?.text()).toBe('<h1>guide</h1>');
    f.tap.clear();
    const moved = await f.get('/old/guide-copy.html');
    expect(moved.status).toBe(301);
    expect(moved.headers.get('location')).toBe('/docs/guide-copy.html');
    expect(originGets()).toEqual([]);
  });
});

describe('the single-page-app fallback (RULES spaFallback)', () => {
  it('answers a missing key under /app/ with the document, 200, read from the origin once', async () => {
    f.tap.clear();
    const first = await f.get('/app/settings/profile', { headers: { 'accept-encoding': 'identity' } });
    expect(first.status).toBe(200);
    expect(first.text).toBe(APP_SHELL);
    expect(first.headers.get('content-type')).toBe('text/html');
    expect(first.headers.get('content-length')).toBe(String(APP_SHELL.length));
    expect(first.headers.get('cache-control')).toBe('max-age=60');
    expectSecurityHeaders(first, 'fallback');
    expect(originGets()).toEqual(['GET /app/settings/profile', 'GET /app/index.html']);
    await settle();
    f.tap.clear();
    const second = await f.get('/app/orders/7');
    expect(second.status).toBe(200);
    expect(second.text).toBe(APP_SHELL);
    expect(edgeMember(second).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    expect(originGets()).toEqual(['GET /app/orders/7']);
  });

  it('gives a fallback answer the rules of the path asked for, not the document’s, from memory or not', async () => {
    const cold = await f.get('/app/cold/route');
    expect(cold.text).toBe(APP_SHELL);
    expect(cold.headers.get('x-shell'), 'the document read through the tiers').toBeNull();
    expectSecurityHeaders(cold, 'the document read through the tiers');
    await settle();
    // Asked for itself twice, the document is a memory hit with its own rules' edits in its headers.
    for (let i = 0; i < 2; i++) expect((await f.get('/app/index.html')).headers.get('x-shell')).toBe('asked-for');
    const warm = await f.get('/app/warm/route');
    expect(warm.text).toBe(APP_SHELL);
    expect(edgeMember(warm).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    expect(warm.headers.get('x-shell'), 'the document read from memory').toBeNull();
    expectSecurityHeaders(warm, 'the document read from memory');
    expect((await f.get('/app/index.html')).headers.get('x-shell'), 'the document itself again').toBe('asked-for');
  });

  it("names the fallback in the edge's Cache-Status member (detail=spa-fallback:<document>), cold and warm; never on the document asked for itself", async () => {
    const cold = await f.get('/app/named/cold');
    expect(cold.text).toBe(APP_SHELL);
    const coldEdge = edgeMember(cold);
    expect(coldEdge.find((param) => param.startsWith('detail='))).toMatch(/^detail=spa-fallback:\/app\/index\.html\b/);
    await settle();
    const warm = await f.get('/app/named/warm');
    const warmEdge = edgeMember(warm);
    expect(warmEdge.slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    expect(warmEdge.find((param) => param.startsWith('detail='))).toMatch(/^detail=spa-fallback:\/app\/index\.html\b/);
    const shield = cacheStatus(cold).find((member) => member[0] === 'tiercache-shield') ?? [];
    expect(shield.join(';')).not.toContain('spa-fallback');
    const itself = await f.get('/app/index.html');
    expect(itself.headers.get('cache-status')).not.toContain('spa-fallback');
  });

  it('serves a key that exists as itself, and the document for its own path', async () => {
    const script = await f.get('/app/main.js');
    expect(script.status).toBe(200);
    expect(script.text).toBe('start()');
    const shell = await f.get('/app/index.html');
    expect(shell.text).toBe(APP_SHELL);
  });

  it('answers HEAD with the document’s headers and a Range on a missing key with the whole document', async () => {
    const head = await f.get('/app/head-only', { method: 'HEAD', headers: { 'accept-encoding': 'identity' } });
    expect(head.status).toBe(200);
    expect(head.body).toHaveLength(0);
    expect(head.headers.get('content-length')).toBe(String(APP_SHELL.length));
    const range = await f.get('/app/ranged', { headers: { range: 'bytes=0-3' } });
    expect(range.status).toBe(200);
    expect(range.text).toBe(APP_SHELL);
  });

  it('wins over NOT_FOUND_DOCUMENT under /app/, which still answers elsewhere', async () => {
    const outside = await f.get('/elsewhere/missing.html');
    expect(outside.status).toBe(404);
    expect(outside.text).toBe(NOT_FOUND_PAGE);
    expect((await f.get('/app/missing.html')).status).toBe(200);
  });

  it('falls back to the 404 page when the document is missing too, without a loop', async () => {
    const missing = await startFixture({ RULES: JSON.stringify(RULES), NOT_FOUND_DOCUMENT: '404.html' });
    try {
      await missing.origin.putObject('404.html', NOT_FOUND_PAGE, { 'content-type': 'text/html' });
      missing.tap.clear();
      const answer = await missing.get('/app/anything');
      expect(answer.status).toBe(404);
      expect(answer.text).toBe(NOT_FOUND_PAGE);
      const asked = missing.tap.requests.map((r) => r.path.slice(missing.origin.bucket.length + 1));
      expect(asked).toEqual(['/app/anything', '/app/index.html', '/404.html']);
      missing.tap.clear();
      expect((await missing.get('/app/index.html')).status).toBe(404);
      const again = missing.tap.requests.map((r) => r.path.slice(missing.origin.bucket.length + 1));
      expect(again.filter((path) => path === '/app/index.html').length).toBeLessThanOrEqual(1);
    } finally {
      await missing.close();
    }
  });
});

describe('RULES on the client’s side in http mode', () => {
  let site: Site;
  let stack: Stack;
  const get = (path: string, init?: RequestInit): Promise<Answer> => request(new URL(path, stack.url), init);

  beforeAll(async () => {
    site = await startSite();
    site.page('/app/index.html', APP_SHELL, { 'cache-control': 'max-age=60' });
    site.page('/assets/site.js', 'go()', { 'cache-control': 'max-age=600', 'x-powered-by': 'php' });
    const rules = [
      ...RULES.filter((rule) => rule.name !== 'security'),
      { name: 'security', headers: { set: { 'x-frame-options': 'DENY' }, remove: ['x-powered-by'] } },
    ];
    stack = await startWorkers({
      config: { ORIGIN_KIND: 'http', ORIGIN_URL: site.url, SHIELD_TOKEN: 't', RULES: JSON.stringify(rules) },
    });
  });
  afterAll(async () => {
    await stack?.dispose();
    await site?.close();
  });

  it('edits the site’s headers and tells browsers the asset is immutable', async () => {
    const miss = await get('/assets/site.js');
    await settle();
    const hit = await get('/assets/site.js');
    for (const answer of [miss, hit]) {
      expect(answer.text).toBe('go()');
      expect(answer.headers.get('cache-control')).toBe(IMMUTABLE);
      expect(answer.headers.get('x-frame-options')).toBe('DENY');
      expect(answer.headers.get('x-powered-by')).toBeNull();
    }
    expect(edgeMember(hit).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
  });

  it('redirects before the site is asked', async () => {
    site.received.length = 0;
    const moved = await get('/old/a/b?x=1');
    expect(moved.status).toBe(301);
    expect(moved.headers.get('location')).toBe('/docs/a/b');
    expect(site.received).toEqual([]);
  });

  it('answers the site’s own 404 under /app/ with the document, asked for once', async () => {
    site.received.length = 0;
    const first = await get('/app/route/one');
    expect(first.status).toBe(200);
    expect(first.text).toBe(APP_SHELL);
    await settle();
    const second = await get('/app/route/two');
    expect(second.text).toBe(APP_SHELL);
    expect(site.received.map((r) => r.path)).toEqual(['/app/route/one', '/app/index.html', '/app/route/two']);
  });
});
