// A static site's own answers in front of an HTTP origin (docs/static-sites.md): the folder redirect when asked for
// (the site names its folders itself: `/docs/` is its own page), a 404 page by prefix, and the error page for a 5xx
// of ours only, never in place of the site's own 503 page. Signed prefixes hide the folder from a client without a
// token, as in front of S3.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { signToken } from '../../shared/admission/signer.ts';
import { type Answer, cacheStatus, request, settle } from './fixture.ts';
import { type Site, startSite } from './http-site.ts';

const SECRET = 'site-documents-http-secret-0123456789';
const KEPT = { 'cache-control': 'max-age=600' };
const ERROR_PAGE = '<h1>the site is down, back soon</h1>';

let site: Site;
let stack: Stack;
const get = (path: string, init?: RequestInit): Promise<Answer> => request(new URL(path, stack.url), init);

beforeAll(async () => {
  site = await startSite();
  site.page('/docs/', '<p>docs</p>', KEPT);
  site.page('/docs/404.html', '<p>docs: no such page</p>', KEPT);
  site.page('/private/dir/', '<p>private folder</p>', KEPT);
  site.page('/50x.html', ERROR_PAGE, KEPT);
  site.page('/maintenance', '<h1>the site’s own maintenance page</h1>', {}, 503);
  site.page('/page.html', '<p>a page</p>');
  stack = await startWorkers({
    config: {
      ORIGIN_KIND: 'http',
      ORIGIN_URL: site.url,
      SHIELD_TOKEN: 't',
      FOLDER_REDIRECT: '308',
      NOT_FOUND_DOCUMENTS: '/docs/=docs/404.html',
      ERROR_DOCUMENT: '50x.html',
      SIGNING_KEYS: `k=${SECRET}`,
      SIGNED_PREFIXES: '/private/dir/',
      ORIGIN_TIMEOUT_MS: '1000',
    },
  });
});
afterAll(async () => {
  await stack?.dispose();
  await site?.close();
});

function asked(): string[] {
  return site.received.map((r) => r.path);
}

describe('the static-site documents for an HTTP origin', () => {
  it('redirect /docs to /docs/ with the status asked for, when the site answers /docs/ and not /docs', async () => {
    site.received.length = 0;
    const answer = await get('/docs?page=2');
    expect(answer.status).toBe(308);
    expect(answer.headers.get('location')).toBe('/docs/?page=2');
    expect(asked()).toEqual(['/docs?page=2', '/docs/']);
    const head = await get('/docs', { method: 'HEAD' });
    expect(head.status).toBe(308);
    expect(head.body).toHaveLength(0);
  });

  it('keep the site’s own 404 where the folder has no page either, and the prefix’s page under it', async () => {
    const none = await get('/nothing');
    expect(none.status).toBe(404);
    expect(none.text).toBe('<h1>the site’s own 404 page</h1>');
    const docs = await get('/docs/missing.html');
    expect(docs.status).toBe(404);
    expect(docs.text).toBe('<p>docs: no such page</p>');
  });

  it('tell a client without a token nothing of a protected folder, and redirect one with it', async () => {
    site.received.length = 0;
    const folder = await get('/private/dir');
    const none = await get('/private/none');
    expect(folder.status).toBe(404);
    expect(folder.text).toBe(none.text);
    expect(asked().filter((path) => path.startsWith('/private/dir/'))).toEqual([]);
    const query = await signToken({
      keyId: 'k',
      secret: SECRET,
      path: '/private/dir/',
      prefix: true,
      expires: Math.floor(Date.now() / 1000) + 600,
    });
    const signed = await get(`/private/dir?${query}`);
    expect(signed.status).toBe(308);
    expect(signed.headers.get('location')).toBe(`/private/dir/?${query}`);
  });

  it('pass the site’s own 503 page on as it sent it, never the error page', async () => {
    const answer = await get('/maintenance');
    expect(answer.status).toBe(503);
    expect(answer.text).toBe('<h1>the site’s own maintenance page</h1>');
  });

  it('answer with the error page, kept by the tiers, once the site cannot be reached', async () => {
    await get('/50x.html');
    await settle();
    await site.close();
    const answer = await get('/page.html');
    expect(answer.status).toBe(502);
    expect(answer.text).toBe(ERROR_PAGE);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(cacheStatus(answer).at(0)).toContain('detail=origin-unreachable');
  });
});
