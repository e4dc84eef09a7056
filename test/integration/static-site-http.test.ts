// The static-site settings in front of a plain HTTP site: paths are the site's own, CORS for
// every origin never touches a method passed through, a 404 page the site lacks leaves the
// plain 404, and with the Content-Type fix off a type is passed on as the site sent it.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { type Answer, request } from './fixture.ts';
import { type Site, startSite } from './http-site.ts';

const ORIGIN = { origin: 'https://app.example' };

let site: Site;
let stack: Stack;
const get = (path: string, init?: RequestInit): Promise<Answer> => request(new URL(path, stack.url), init);

beforeAll(async () => {
  site = await startSite();
  site.page('/docs/', '<p>docs</p>', { 'cache-control': 'max-age=600' });
  site.page('/page.html', '<p>page</p>', { 'cache-control': 'max-age=600', vary: 'Accept-Encoding' });
  site.page('/untyped.js', 'console.log(1)', {
    'cache-control': 'max-age=600',
    'content-type': 'application/octet-stream',
  });
  stack = await startWorkers({
    config: {
      ORIGIN_KIND: 'http',
      ORIGIN_URL: site.url,
      SHIELD_TOKEN: 't',
      CORS_ALLOW_ORIGINS: '*',
      INDEX_DOCUMENT: 'index.html',
      NOT_FOUND_DOCUMENT: 'errors/404.html',
      CONTENT_TYPE_FROM_EXTENSION: 'off',
    },
  });
});
afterAll(async () => {
  await stack?.dispose();
  await site?.close();
});

describe('the static-site settings for an HTTP origin', () => {
  it('leave paths ending in / to the site', async () => {
    site.received.length = 0;
    expect((await get('/docs/')).text).toBe('<p>docs</p>');
    expect(site.received.map((r) => r.path)).toEqual(['/docs/']);
  });

  it('say * on every GET, with or without Origin, and keep the Vary the site sent', async () => {
    for (const headers of [ORIGIN, {}] as Record<string, string>[]) {
      const answer = await get('/page.html', { headers });
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
      expect(answer.headers.get('vary')).toBe('Accept-Encoding');
    }
  });

  it('never add CORS headers to a method passed through to the site', async () => {
    const answer = await get('/form', { method: 'POST', body: 'a=1', headers: ORIGIN });
    expect(answer.status).toBe(201);
    expect([...answer.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });

  it("keep the site's own 404 answer when the 404 page is missing too, asking for the page once", async () => {
    site.received.length = 0;
    const answer = await get('/no/such/page.html');
    expect(answer.status).toBe(404);
    expect(answer.text).toBe('<h1>the site’s own 404 page</h1>');
    expect(site.received.map((r) => r.path)).toEqual(['/no/such/page.html', '/errors/404.html']);
    site.received.length = 0;
    expect((await get('/errors/404.html')).status).toBe(404);
    expect(site.received.length).toBeLessThanOrEqual(1);
  });

  it("pass the site's octet-stream on as it is when the fix is off", async () => {
    const answer = await get('/untyped.js');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/octet-stream');
  });
});
