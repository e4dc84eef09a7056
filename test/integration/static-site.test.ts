// A bucket holding a web site, uploaded by a tool that sets no Content-Type, served with an
// index document (and the folder redirect it brings), a 404 page and CORS for one origin (docs/static-sites.md).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patternBytes } from './bytes.ts';
import { type Answer, cacheStatus, type Fixture, request, SHIELD_TOKEN, settle, startFixture } from './fixture.ts';

const APP = 'https://app.example';
const NOT_FOUND_PAGE = '<!doctype html><h1>nothing here</h1>';
const VIDEO = patternBytes(11, 2 * 1024 * 1024 + 100);
const CORS_REQUEST_HEADERS = { origin: APP };

let f: Fixture;

beforeAll(async () => {
  f = await startFixture({
    INDEX_DOCUMENT: 'index.html',
    NOT_FOUND_DOCUMENT: '404.html',
    CORS_ALLOW_ORIGINS: APP,
    SLICE_SIZE: '1MiB',
  });
  await f.origin.putObject('index.html', '<h1>home</h1>');
  await f.origin.putObject('docs/index.html', '<h1>docs</h1>');
  await f.origin.putObject('404.html', NOT_FOUND_PAGE);
  await f.origin.putObject('app.js', 'console.log(1)');
  await f.origin.putObject('style.css', 'body{}');
  await f.origin.putObject('blob', 'opaque');
  await f.origin.putObject('typed.html', 'shown as text', { 'content-type': 'text/plain' });
  await f.origin.putObject('video.mp4', VIDEO);
});
afterAll(() => f?.close());

const shieldGet = (path: string): Promise<Answer> =>
  request(new URL(path, f.stack.shieldUrl), { headers: { 'x-tiercache-credential': SHIELD_TOKEN } });
const originGets = (): string[] => f.tap.requests.filter((r) => r.method === 'GET').map((r) => r.path);

describe('a static site (INDEX_DOCUMENT, NOT_FOUND_DOCUMENT, CORS_ALLOW_ORIGINS)', () => {
  it('serves / as index.html, from the same cache entry as /index.html', async () => {
    f.tap.clear();
    const root = await f.get('/');
    expect(root.status).toBe(200);
    expect(root.text).toBe('<h1>home</h1>');
    expect(originGets()).toEqual(['/assets/index.html']);
    await settle();
    const named = await f.get('/index.html');
    expect(named.text).toBe('<h1>home</h1>');
    expect(cacheStatus(named).at(-1)?.[1]).toBe('hit');
    expect(originGets()).toHaveLength(1);
  });

  it("serves a path ending in / as that folder's index.html, and redirects the path without / to it", async () => {
    f.tap.clear();
    expect((await f.get('/docs/')).text).toBe('<h1>docs</h1>');
    await settle();
    const redirect = await f.get('/docs', { headers: CORS_REQUEST_HEADERS });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('/docs/');
    // A cross-origin fetch follows a redirect only when it passes the CORS check.
    expect(redirect.headers.get('access-control-allow-origin')).toBe(APP);
    // The folder's index was cached by the first read: only the missing key was asked for.
    expect(originGets()).toEqual(['/assets/docs/index.html', '/assets/docs']);
  });

  it('answers HEAD of / with the index document’s headers', async () => {
    const head = await f.get('/', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String('<h1>home</h1>'.length));
    expect(head.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });

  it('answers a missing object with the 404 page, status 404', async () => {
    // Uncompressed, so that the page's own Content-Length shows (workerd gzips text types for clients that accept it).
    const answer = await f.get('/no/such/page.html', { headers: { 'accept-encoding': 'identity' } });
    expect(answer.status).toBe(404);
    expect(answer.text).toBe(NOT_FOUND_PAGE);
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(answer.headers.get('content-length')).toBe(String(NOT_FOUND_PAGE.length));
    expect(answer.headers.get('etag')).toBeNull();
  });

  it('reads the 404 page through the cache like any object: it is fetched once', async () => {
    await f.get('/missing-1.txt');
    await settle();
    f.tap.clear();
    const answer = await f.get('/missing-2.txt', { headers: { range: 'bytes=0-3', 'if-none-match': '*' } });
    expect(answer.status).toBe(404);
    expect(answer.text).toBe(NOT_FOUND_PAGE);
    // The key, and the folder it might be (FOLDER_REDIRECT); never the page again.
    expect(originGets()).toEqual(['/assets/missing-2.txt', '/assets/missing-2.txt/index.html']);
    expect(cacheStatus(await f.get('/404.html')).at(-1)?.[1]).toBe('hit');
  });

  it('answers HEAD of a missing object with the 404 page’s headers and no body', async () => {
    const head = await f.get('/missing-head.txt', { method: 'HEAD' });
    expect(head.status).toBe(404);
    expect(head.body).toHaveLength(0);
    expect(head.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(head.headers.get('content-length')).toBe(String(NOT_FOUND_PAGE.length));
  });

  it('types objects uploaded without a Content-Type by their extension, at both tiers', async () => {
    for (const [path, type] of [
      ['/app.js', 'text/javascript; charset=utf-8'],
      ['/style.css', 'text/css; charset=utf-8'],
    ] as const) {
      expect((await f.get(path)).headers.get('content-type'), path).toBe(type);
      await settle();
      const hit = await f.get(path);
      expect(cacheStatus(hit).at(-1)?.[1]).toBe('hit');
      expect(hit.headers.get('content-type')).toBe(type);
      expect((await shieldGet(path)).headers.get('content-type')).toBe(type);
    }
  });

  it("keeps a type the uploader set, and S3's default where the name says nothing", async () => {
    expect((await f.get('/typed.html')).headers.get('content-type')).toBe('text/plain');
    expect((await f.get('/blob')).headers.get('content-type')).toBe('binary/octet-stream');
  });

  it('types a sliced object in its manifest: ranges and HEAD alike', async () => {
    const range = await f.get('/video.mp4', { headers: { range: 'bytes=1048570-1048580' } });
    expect(range.status).toBe(206);
    expect(range.headers.get('content-type')).toBe('video/mp4');
    const head = await f.get('/video.mp4', { method: 'HEAD' });
    expect(head.headers.get('content-type')).toBe('video/mp4');
    expect(head.headers.get('content-length')).toBe(String(VIDEO.length));
  });

  it('lets an allowed origin read answers and the headers a player needs, and varies on Origin', async () => {
    const answer = await f.get('/video.mp4', { headers: { ...CORS_REQUEST_HEADERS, range: 'bytes=0-9' } });
    expect(answer.status).toBe(206);
    expect(answer.headers.get('access-control-allow-origin')).toBe(APP);
    expect(answer.headers.get('access-control-expose-headers')).toBe(
      'Content-Length, Content-Range, ETag, Accept-Ranges, Cache-Status, Server-Timing, Age',
    );
    expect(answer.headers.get('vary')).toBe('Origin');
    const head = await f.get('/app.js', { method: 'HEAD', headers: CORS_REQUEST_HEADERS });
    expect(head.headers.get('access-control-allow-origin')).toBe(APP);
    const missing = await f.get('/nope.txt', { headers: CORS_REQUEST_HEADERS });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('access-control-allow-origin')).toBe(APP);
  });

  it('gives other origins, and requests without one, no CORS headers but still Vary: Origin', async () => {
    for (const headers of [{ origin: 'https://evil.example' }, {}] as Record<string, string>[]) {
      const answer = await f.get('/app.js', { headers });
      expect([...answer.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
      expect(answer.headers.get('vary')).toBe('Origin');
    }
  });

  it('answers a preflight for GET from an allowed origin, granting only the safe request headers', async () => {
    f.tap.clear();
    const answer = await f.get('/video.mp4', {
      method: 'OPTIONS',
      headers: {
        origin: APP,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'range,if-none-match,x-debug',
      },
    });
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe(APP);
    expect(answer.headers.get('access-control-allow-methods')).toBe('GET, HEAD');
    expect(answer.headers.get('access-control-allow-headers')).toBe('range, if-none-match');
    expect(answer.headers.get('access-control-max-age')).toBe('86400');
    expect(f.tap.requests).toHaveLength(0);
  });

  it('answers a preflight from another origin, or for another method, without any CORS header', async () => {
    for (const headers of [
      { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
      { origin: APP, 'access-control-request-method': 'PUT' },
    ]) {
      const answer = await f.get('/app.js', { method: 'OPTIONS', headers });
      expect(answer.status).toBe(204);
      expect(answer.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      expect([...answer.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
  });

  it('adds no CORS headers to a refused method', async () => {
    const answer = await f.get('/app.js', { method: 'PUT', body: 'x', headers: CORS_REQUEST_HEADERS });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });
});
