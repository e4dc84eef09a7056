// A static site's own answers (docs/static-sites.md): `/dir` redirected to `/dir/` where the folder has its index
// document (FOLDER_REDIRECT, on with INDEX_DOCUMENT), a 404 page per folder (NOT_FOUND_DOCUMENTS, the longest prefix's),
// and the site's page for a 5xx of ours (ERROR_DOCUMENT). Each is read like any object (cached at both tiers, purged
// as any object) and only for a client whose token admits it: under SIGNED_PREFIXES none of them says anything of what
// exists to a client without one.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signToken } from '../../shared/admission/signer.ts';
import { type Answer, cacheStatus, type Fixture, request, settle, startFixture } from './fixture.ts';

const SECRET = 'site-documents-secret-0123456789abcdef';
const PURGE_TOKEN = 'site-documents-purge';
const HTML = { 'content-type': 'text/html' };
const ERROR_PAGE = '<h1>we are down, back soon</h1>';

let f: Fixture;
/** A stack whose origin fails on demand (the tap's faults), with ERROR_DOCUMENT. */
let down: Fixture;

beforeAll(async () => {
  [f, down] = await Promise.all([
    startFixture({
      INDEX_DOCUMENT: 'index.html',
      NOT_FOUND_DOCUMENT: '404.html',
      NOT_FOUND_DOCUMENTS: '/docs/=docs/404.html,/members/=members/404.html,/help/=members/help-404.html',
      SIGNING_KEYS: `k=${SECRET}`,
      SIGNED_PREFIXES: '/private/dir/,/members/',
      PURGE_TOKEN,
    }),
    startFixture({
      ERROR_DOCUMENT: 'errors/50x.html',
      SIGNING_KEYS: `k=${SECRET}`,
      SIGNED_PREFIXES: '/members/',
      // The busy origin is waited out within this before the 503 is ours.
      ORIGIN_TIMEOUT_MS: '1000',
    }),
  ]);
  const pages: [string, string][] = [
    ['docs/index.html', '<p>docs</p>'],
    ['docs/404.html', '<p>docs: no such page</p>'],
    ['404.html', '<p>site: no such page</p>'],
    ['both', 'the object both'],
    ['both/index.html', '<p>the folder both</p>'],
    ['private/dir/index.html', '<p>private folder</p>'],
    ['members/dir/index.html', '<p>members folder</p>'],
    ['members/404.html', '<p>members: no such page</p>'],
    ['members/help-404.html', '<p>members: no such help</p>'],
    ['moved/index.html', '<p>moved</p>'],
  ];
  for (const [key, body] of pages) await f.origin.putObject(key, body, HTML);
  await down.origin.putObject('errors/50x.html', ERROR_PAGE, HTML);
  await down.origin.putObject('members/book.html', '<p>the book</p>', HTML);
  await down.origin.putObject('page.html', '<p>a page</p>', HTML);
});
afterAll(async () => {
  await Promise.all([f?.close(), down?.close()]);
});

async function token(prefix: string): Promise<string> {
  return signToken({
    keyId: 'k',
    secret: SECRET,
    path: prefix,
    prefix: true,
    expires: Math.floor(Date.now() / 1000) + 600,
  });
}

function edgeMember(answer: Answer): string[] {
  return cacheStatus(answer).at(-1) ?? [];
}

function originGets(fixture: Fixture = f): string[] {
  return fixture.tap.requests.filter((r) => r.method === 'GET' || r.method === 'HEAD').map((r) => r.path);
}

async function purge(urls: string[]): Promise<void> {
  const answer = await request(new URL('/__tiercache/purge', f.stack.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${PURGE_TOKEN}` },
    body: JSON.stringify({ urls }),
  });
  expect(answer.status, answer.text).toBe(200);
}

/** What an answer says, without what differs between two requests (timings, dates, its own cache report). */
function said(answer: Answer): unknown {
  const headers = [...answer.headers].filter(
    ([name]) => !['date', 'server-timing', 'cache-status', 'age'].includes(name),
  );
  return { status: answer.status, headers, text: answer.text };
}

describe('the folder redirect (FOLDER_REDIRECT, on with INDEX_DOCUMENT)', () => {
  it('answers /docs with 301 to /docs/ when docs/index.html exists and docs does not', async () => {
    const answer = await f.get('/docs');
    expect(answer.status).toBe(301);
    expect(answer.headers.get('location')).toBe('/docs/');
    expect(answer.text).toBe('301 Moved Permanently: /docs/\n');
    expect(answer.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    // As long as the tiers keep the 404 it stands for (NEGATIVE_TTL), never a browser's heuristic forever.
    expect(answer.headers.get('cache-control')).toBe('max-age=60');
    expect(edgeMember(answer)).toContain('detail=folder-redirect');
    const followed = await request(new URL(answer.headers.get('location') ?? '', f.stack.url));
    expect(followed.text).toBe('<p>docs</p>');
  });

  it('keeps the query, and answers HEAD alike without a body', async () => {
    const query = await f.get('/docs?lang=fr&x=1');
    expect(query.status).toBe(301);
    expect(query.headers.get('location')).toBe('/docs/?lang=fr&x=1');
    const head = await f.get('/docs', { method: 'HEAD' });
    expect(head.status).toBe(301);
    expect(head.headers.get('location')).toBe('/docs/');
    expect(head.body).toHaveLength(0);
  });

  it('answers 404 where the folder has no index document, with the 404 page', async () => {
    const answer = await f.get('/nothing-here');
    expect(answer.status).toBe(404);
    expect(answer.headers.get('location')).toBeNull();
    expect(answer.text).toBe('<p>site: no such page</p>');
  });

  it('serves the object itself where both it and the folder exist', async () => {
    const answer = await f.get('/both');
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('the object both');
  });

  it('is made from cached answers: asked again, it asks the origin nothing', async () => {
    await f.get('/docs');
    await settle();
    f.tap.clear();
    const again = await f.get('/docs');
    expect(again.status).toBe(301);
    expect(originGets()).toEqual([]);
  });

  it('follows a purge of the folder’s index document, and of the missing object, at once', async () => {
    expect((await f.get('/moved')).status).toBe(301);
    await settle();
    await f.origin.deleteObject('moved/index.html');
    // Still cached: no purge yet, no change.
    expect((await f.get('/moved')).status).toBe(301);
    await purge(['/moved/index.html']);
    expect((await f.get('/moved')).status).toBe(404);
    await f.origin.putObject('moved/index.html', '<p>moved back</p>', HTML);
    await f.origin.putObject('moved', 'now an object', { 'content-type': 'text/plain' });
    await purge(['/moved/index.html']);
    expect((await f.get('/moved')).status).toBe(301);
    await settle();
    await purge(['/moved']);
    const object = await f.get('/moved');
    expect(object.status).toBe(200);
    expect(object.text).toBe('now an object');
  });
});

describe('the folder redirect under SIGNED_PREFIXES', () => {
  it('tells a client without a token nothing of a protected folder, never reading its index', async () => {
    f.tap.clear();
    for (const method of ['GET', 'HEAD']) {
      const folder = await f.get('/private/dir', { method });
      const none = await f.get('/private/none', { method });
      expect(folder.status, method).toBe(404);
      expect(said(folder), method).toEqual(said(none));
    }
    expect(originGets().filter((path) => path.includes('private/dir/'))).toEqual([]);
  });

  it('tells a token for another folder nothing either', async () => {
    const other = await f.get(`/private/dir?${await token('/private/other/')}`);
    const none = await f.get(`/private/none?${await token('/private/other/')}`);
    expect(other.status).toBe(404);
    expect(said(other)).toEqual(said(none));
  });

  it('redirects a client whose token grants the folder, its signed query kept in the Location', async () => {
    const query = await token('/private/dir/');
    const answer = await f.get(`/private/dir?${query}`);
    expect(answer.status).toBe(301);
    expect(answer.headers.get('location')).toBe(`/private/dir/?${query}`);
    const followed = await request(new URL(answer.headers.get('location') ?? '', f.stack.url));
    expect(followed.status).toBe(200);
    expect(followed.text).toBe('<p>private folder</p>');
    const cookie = await f.get('/private/dir', { headers: { cookie: `tc_token=${query}` } });
    expect(cookie.status).toBe(301);
    expect(cookie.headers.get('location')).toBe('/private/dir/');
  });

  it('refuses a protected path without a token before anything: 403, no redirect, the origin never asked', async () => {
    f.tap.clear();
    for (const method of ['GET', 'HEAD']) {
      const answer = await f.get('/members/dir', { method });
      expect(answer.status, method).toBe(403);
      expect(answer.headers.get('location'), method).toBeNull();
    }
    expect(f.tap.requests).toEqual([]);
    const signed = await f.get(`/members/dir?${await token('/members/')}`);
    expect(signed.status).toBe(301);
  });
});

describe('404 pages by prefix (NOT_FOUND_DOCUMENTS)', () => {
  it('answers a missing path with its longest prefix’s page, status 404, GET and HEAD', async () => {
    const docs = await f.get('/docs/no-such.html', { headers: { 'accept-encoding': 'identity' } });
    expect(docs.status).toBe(404);
    expect(docs.text).toBe('<p>docs: no such page</p>');
    expect(docs.headers.get('content-type')).toBe('text/html');
    const elsewhere = await f.get('/blog/no-such.html');
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.text).toBe('<p>site: no such page</p>');
    const head = await f.get('/docs/no-such-either.html', { method: 'HEAD' });
    expect(head.status).toBe(404);
    expect(head.body).toHaveLength(0);
    expect(head.headers.get('content-length')).toBe(String('<p>docs: no such page</p>'.length));
  });

  it('reads each page through the cache like any object: the origin is asked only for the missing key', async () => {
    await f.get('/docs/missing-1.html');
    await settle();
    f.tap.clear();
    const answer = await f.get('/docs/missing-2.html');
    expect(answer.text).toBe('<p>docs: no such page</p>');
    // The key, and the folder it might be (FOLDER_REDIRECT); never the page again.
    expect(originGets()).toEqual(['/assets/docs/missing-2.html', '/assets/docs/missing-2.html/index.html']);
    expect(edgeMember(await f.get('/docs/404.html'))[1]).toBe('hit');
  });

  it('answers under a signed prefix only with a token, and a public path never with a members’ page', async () => {
    expect((await f.get('/members/gone.html')).status).toBe(403);
    const member = await f.get(`/members/gone.html?${await token('/members/')}`);
    expect(member.status).toBe(404);
    expect(member.text).toBe('<p>members: no such page</p>');
    // /help/'s page lies under /members/: a client without a token keeps the bare 404 (not even the site's page).
    f.tap.clear();
    const help = await f.get('/help/missing');
    expect(help.status).toBe(404);
    expect(help.text).not.toContain('members');
    expect(originGets().filter((path) => path.includes('members'))).toEqual([]);
    const helped = await f.get('/help/missing', { headers: { cookie: `tc_token=${await token('/members/')}` } });
    expect(helped.text).toBe('<p>members: no such help</p>');
  });
});

describe('the error page (ERROR_DOCUMENT) for a 5xx of ours', () => {
  it('keeps the plain answer while no tier holds the page and the origin fails for it too', async () => {
    down.tap.faults(() => ({ kind: 'error' }));
    const answer = await down.get('/page.html');
    down.tap.faults(undefined);
    expect(answer.status).toBe(500);
    expect(answer.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(answer.text).toMatch(/^500 /);
  });

  it('answers a 5xx of ours with the page’s body, its status, no-store and the report kept', async () => {
    await down.get('/errors/50x.html');
    await settle();
    down.tap.faults((seen) => (seen.path.includes('50x') ? undefined : { kind: 'error' }));
    const answer = await down.get('/page.html', { headers: { 'accept-encoding': 'identity' } });
    expect(answer.status).toBe(500);
    expect(answer.text).toBe(ERROR_PAGE);
    expect(answer.headers.get('content-type')).toBe('text/html');
    expect(answer.headers.get('content-length')).toBe(String(ERROR_PAGE.length));
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(edgeMember(answer)).toEqual(expect.arrayContaining(['tiercache-edge', 'fwd=uri-miss']));
    const head = await down.get('/page.html', { method: 'HEAD' });
    expect(head.status).toBe(500);
    expect(head.body).toHaveLength(0);
    expect(head.headers.get('content-length')).toBe(String(ERROR_PAGE.length));
  });

  it('keeps a busy origin’s 503 and its Retry-After', async () => {
    down.tap.faults((seen) => (seen.path.includes('50x') ? undefined : { kind: 'busy', status: 503, retryAfter: '1' }));
    const answer = await down.get('/page.html');
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(answer.text).toBe(ERROR_PAGE);
  });

  it('answers from the cached page while the origin fails for everything', async () => {
    down.tap.faults(() => ({ kind: 'error' }));
    down.tap.clear();
    const answer = await down.get('/other.html');
    expect(answer.status).toBe(500);
    expect(answer.text).toBe(ERROR_PAGE);
    expect(originGets(down)).toEqual(['/assets/other.html']);
  });

  it('refuses a protected path without a token whatever the origin does, and answers a member with the page', async () => {
    down.tap.faults(() => ({ kind: 'error' }));
    const refused = await down.get('/members/book.html');
    expect(refused.status).toBe(403);
    expect(refused.text).not.toContain(ERROR_PAGE);
    const member = await down.get(`/members/book.html?${await token('/members/')}`);
    expect(member.status).toBe(500);
    expect(member.text).toBe(ERROR_PAGE);
  });

  it('leaves the 504 a client asking only-if-cached gets as it is, asking nothing upstream (RFC 9111 §5.2.1.7)', async () => {
    down.tap.faults(undefined);
    down.tap.clear();
    const answer = await down.get('/never-asked.html', { headers: { 'cache-control': 'only-if-cached' } });
    expect(answer.status).toBe(504);
    expect(answer.text).not.toContain(ERROR_PAGE);
    expect(down.tap.requests).toEqual([]);
  });

  it('never stores the error: the object answers once the origin is back', async () => {
    down.tap.faults(undefined);
    const answer = await down.get('/page.html');
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('<p>a page</p>');
  });
});
