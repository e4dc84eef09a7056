import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { patternBytes } from './bytes.ts';
import { type Answer, cacheStatus, request, settle } from './fixture.ts';
import { type Site, startSite } from './http-site.ts';

const VIDEO = patternBytes(5, 3 * 1024 * 1024 + 17);
let site: Site;
let stack: Stack;
const get = (path: string, init?: RequestInit): Promise<Answer> => request(new URL(path, stack.url), init);

beforeAll(async () => {
  site = await startSite();
  site.page('/page.html', '<p>page</p>', { 'cache-control': 'max-age=600', etag: '"p1"' });
  site.page('/search', '<p>results</p>', { 'cache-control': 'max-age=600' });
  site.page('/dynamic.html', '<p>no freshness</p>');
  site.page('/video.bin', VIDEO, { 'cache-control': 'max-age=600', etag: '"v1"', 'accept-ranges': 'bytes' });
  site.page('/download.bin', VIDEO, { 'cache-control': 'max-age=600', etag: '"d1"' });
  stack = await startWorkers({
    config: {
      ORIGIN_KIND: 'http',
      ORIGIN_URL: site.url,
      SHIELD_TOKEN: 't',
      SLICE_SIZE: '1MiB',
      // As with the default 8 MiB slices: a fill its client left (a range that ended) finishes a 3 MiB object.
      ABANDONED_FILL_MAX: '8MiB',
    },
  });
});
afterAll(async () => {
  await stack?.dispose();
  await site?.close();
});

describe('a plain HTTP origin', () => {
  it('is fetched unsigned, with path and query, and cached per query', async () => {
    site.received.length = 0;
    expect((await get('/search?q=cats')).text).toBe('<p>results</p>');
    await settle();
    expect(cacheStatus(await get('/search?q=cats')).at(-1)?.[1]).toBe('hit');
    await get('/search?q=dogs');
    expect(site.received.map((r) => r.path)).toEqual(['/search?q=cats', '/search?q=dogs']);
    expect(site.received[0]?.headers.authorization).toBeUndefined();
  });

  it('does not store a response without explicit or heuristic freshness', async () => {
    await get('/dynamic.html');
    await settle();
    const second = await get('/dynamic.html');
    expect(cacheStatus(second).at(-1)).toEqual(['tiercache-edge', 'fwd=uri-miss']);
  });

  it('stores an answer without Cache-Control for 10% of the time since its Last-Modified, as npm start says (an hour ago: 360 s; RFC 9111 §4.2.2)', async () => {
    site.page('/hour-old.html', '<p>an hour old</p>', {
      'last-modified': new Date(Date.now() - 3600_000).toUTCString(),
    });
    await get('/hour-old.html');
    await settle();
    site.received.length = 0;
    const again = await get('/hour-old.html');
    const edge = cacheStatus(again).at(-1) ?? [];
    expect(edge.slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    const ttl = Number(edge.find((param) => param.startsWith('ttl='))?.slice('ttl='.length));
    expect(ttl).toBeGreaterThan(350);
    expect(ttl).toBeLessThanOrEqual(360);
    expect(site.received).toEqual([]);
  });

  it("passes other methods through uncached, with the client's cookies and credentials (RFC 9110 §7.6.1: end-to-end)", async () => {
    site.received.length = 0;
    const answer = await get('/form?x=1', {
      method: 'POST',
      body: 'name=value',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: 'session=s', authorization: 'Bearer b' },
    });
    expect(answer.status).toBe(201);
    expect(answer.text).toBe('POST /form?x=1 got 10 bytes');
    const [received] = site.received;
    expect(received?.method).toBe('POST');
    expect(received?.body).toBe('name=value');
    expect(received?.headers.cookie).toBe('session=s');
    expect(received?.headers.authorization).toBe('Bearer b');
    expect(cacheStatus(answer).map((m) => m.slice(0, 2))).toEqual([
      ['tiercache-shield', 'fwd=method'],
      ['tiercache-edge', 'fwd=method'],
    ]);
  });

  it('invalidates the stored URL at both tiers after a successful unsafe request (RFC 9111 §4.4)', async () => {
    await get('/page.html');
    await settle();
    expect(cacheStatus(await get('/page.html')).at(-1)?.[1]).toBe('hit');
    expect((await get('/page.html', { method: 'PUT', body: 'new' })).status).toBe(200);
    await settle();
    site.page('/page.html', '<p>page v2</p>', { 'cache-control': 'max-age=600', etag: '"p2"' });
    const after = await get('/page.html');
    expect(after.text).toBe('<p>page v2</p>');
    expect(cacheStatus(after).map((m) => m.slice(0, 2))).toEqual([
      ['tiercache-shield', 'fwd=uri-miss'],
      ['tiercache-edge', 'fwd=uri-miss'],
    ]);
  });

  it('is read in slices when it serves byte ranges', async () => {
    site.received.length = 0;
    const answer = await get('/video.bin', { headers: { range: 'bytes=2097152-2097161' } });
    expect(answer.status).toBe(206);
    expect(Buffer.compare(answer.body, VIDEO.subarray(2097152, 2097162))).toBe(0);
    expect(site.received.map((r) => r.headers.range)).toEqual(['bytes=2097152-3145727']);
    expect(cacheStatus(answer).at(-1)?.at(-1)).toMatch(/^detail="slices/);
  });

  it('is cached whole when it ignores Range', async () => {
    const answer = await get('/download.bin', { headers: { range: 'bytes=0-9' } });
    expect(answer.status).toBe(206);
    expect(Buffer.compare(answer.body, VIDEO.subarray(0, 10))).toBe(0);
    await settle();
    site.received.length = 0;
    const whole = await get('/download.bin');
    expect(whole.body.byteLength).toBe(VIDEO.length);
    expect(site.received).toEqual([]);
    expect(cacheStatus(whole).at(-1)?.slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
  });

  it('also invalidates the same-host URL in Location, never one on another host (RFC 9111 §4.4)', async () => {
    site.page('/page2.html', '<p>two</p>', { 'cache-control': 'max-age=600' });
    site.page('/page3.html', '<p>three</p>', { 'cache-control': 'max-age=600' });
    await get('/page2.html');
    await get('/page3.html');
    await settle();
    expect((await get('/comments', { method: 'POST', body: 'hi' })).status).toBe(201);
    await settle();
    expect(cacheStatus(await get('/page2.html')).map((m) => m[1])).toEqual(['fwd=uri-miss', 'fwd=uri-miss']);
    expect(cacheStatus(await get('/page3.html')).at(-1)?.[1]).toBe('hit');
  });

  it("answers 404 with the site's own 404 page (RFC 9110 §15: the origin's answer is the answer)", async () => {
    const answer = await get('/missing.html');
    expect(answer.status).toBe(404);
    expect(answer.text).toContain('own 404 page');
  });
});

describe('a plain HTTP origin with DEFAULT_TTL set (the line npm start prints offers DEFAULT_TTL=120, as Varnish)', () => {
  let varnishLike: Stack;
  beforeAll(async () => {
    varnishLike = await startWorkers({
      config: { ORIGIN_KIND: 'http', ORIGIN_URL: site.url, SHIELD_TOKEN: 't', DEFAULT_TTL: '120' },
    });
  });
  afterAll(() => varnishLike?.dispose());

  it('stores an answer with neither freshness nor Last-Modified for DEFAULT_TTL at both tiers', async () => {
    site.page('/bare.html', '<p>no freshness, no validator</p>');
    await request(new URL('/bare.html', varnishLike.url));
    await settle();
    site.received.length = 0;
    const again = await request(new URL('/bare.html', varnishLike.url));
    expect(again.text).toBe('<p>no freshness, no validator</p>');
    const edge = cacheStatus(again).at(-1) ?? [];
    expect(edge.slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    const ttl = Number(edge.find((param) => param.startsWith('ttl='))?.slice('ttl='.length));
    expect(ttl).toBeGreaterThan(110);
    expect(ttl).toBeLessThanOrEqual(120);
    expect(site.received).toEqual([]);
  });
});
