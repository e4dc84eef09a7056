// No spelling of a path escapes its prefix (docs/private-content.md), in front of origins that resolve paths before
// they serve them: a programmable origin answering each spelling as a lenient origin would, and an unmodified static
// file server (Python's http.server, which decodes `%2F`, merges slashes and removes dot segments). Each spelling is
// refused without a token before anything is asked of the origin, a folder's token never opens a path that climbs
// out of it, and a 404 page or a single-page app's fallback under a protected prefix is served only to a request
// whose token grants it.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { type SignOptions, signToken } from '../../shared/admission/signer.ts';
import { normalizePath } from '../../shared/request/canonical-path.ts';
import { type AnyOrigin, startAnyOrigin } from './any-origin.ts';
import { type Answer, request, SHIELD_TOKEN } from './fixture.ts';
import { type StaticFileServer, startStaticFileServer } from './static-file-server.ts';

const SECRET = 'spellings-signing-secret-0123456789abcdef';
const SECRET_BODY = 'the protected secret';

/** Spellings of /private/secret.txt that reach the file on an origin that decodes and resolves paths. */
const INTO_PRIVATE = [
  '//private/secret.txt',
  '/private%2Fsecret.txt',
  '/private%2fsecret.txt',
  '/%2Fprivate/secret.txt',
  '/x/..%2Fprivate/secret.txt',
  '/x/..%2fprivate/secret.txt',
  '/x/%2e%2e%2Fprivate/secret.txt',
  '/x/..%5Cprivate/secret.txt',
  '/x/..%5cprivate/secret.txt',
  '/x/..%252Fprivate/secret.txt',
  '/x/..;/private/secret.txt',
  // Dot segments removed before the slashes are merged (RFC 3986 alone, nginx without merge_slashes).
  '/y/..%2Fprivate//..%2Fsecret.txt',
  '/PRIVATE/secret.txt',
  '/Private/secret.txt',
];

/** The climb out of a granted folder (`tc_prefix=/video/ep1/`) into its neighbour. */
const OUT_OF_EP1 = [
  '/video/ep1/..%2Fep2/x.ts',
  '/video/ep1/..%2fep2/x.ts',
  '/video/ep1/%2e%2e%2Fep2/x.ts',
  '/video/ep1/..%5Cep2/x.ts',
  '/video/ep1/..%252Fep2/x.ts',
];

const now = (): number => Math.floor(Date.now() / 1000);
const folder = (path: string): SignOptions => ({
  keyId: 'k',
  secret: SECRET,
  path,
  prefix: true,
  expires: now() + 600,
});

/** `target` on `stack`, written as it is (a URL joined to a base would read `//private` as a host). */
function get(stack: Stack, target: string, init?: RequestInit): Promise<Answer> {
  return request(`${stack.url}${target}`, init);
}

/** The path the tiers forward for `target` (shared/request/request-target.ts, http). */
function forwarded(target: string): string {
  return normalizePath(new URL(`http://cdn.example${target}`).pathname);
}

function expectRefused(answer: Answer, reason: string, target: string): void {
  expect(answer.status, `${target}: ${answer.text}`).toBe(403);
  expect(answer.text, target).toMatch(new RegExp(`^403 ${reason}: `));
  expect(answer.text, target).not.toContain(SECRET_BODY);
}

describe('a protected prefix in front of a programmable origin that resolves every spelling', () => {
  let origin: AnyOrigin;
  let stack: Stack;

  beforeAll(async () => {
    origin = await startAnyOrigin();
    // What a lenient origin does: each spelling, as the tiers forward it, is the protected file (or ep2's segment).
    const file = { status: 200, headers: { 'content-type': 'text/plain', 'cache-control': 'max-age=600' } };
    for (const target of ['/private/secret.txt', ...INTO_PRIVATE])
      origin.answer(forwarded(target), { ...file, body: SECRET_BODY });
    for (const target of OUT_OF_EP1) origin.answer(forwarded(target), { ...file, body: 'episode 2' });
    origin.answer('/video/ep1/x.ts', { ...file, body: 'episode 1' });
    stack = await startWorkers({
      config: {
        ORIGIN_KIND: 'http',
        ORIGIN_URL: origin.url,
        SHIELD_TOKEN,
        SIGNING_KEYS: `k=${SECRET}`,
        SIGNED_PREFIXES: '/private/,/video/',
      },
    });
  });
  afterAll(async () => {
    await stack?.dispose();
    await origin?.close();
  });

  it('refuses every spelling without a token, and asks the origin for none of them', async () => {
    origin.received.length = 0;
    for (const target of INTO_PRIVATE) expectRefused(await get(stack, target), 'missing', target);
    expect(origin.received.map((r) => r.path)).toEqual([]);
  });

  it('never opens, with a folder’s token, a path that climbs out of the folder', async () => {
    const token = await signToken(folder('/video/ep1/'));
    origin.received.length = 0;
    for (const target of OUT_OF_EP1) expectRefused(await get(stack, `${target}?${token}`), 'wrong-prefix', target);
    expect(origin.received.map((r) => r.path)).toEqual([]);
    // The folder itself is open to it.
    const inside = await get(stack, `/video/ep1/x.ts?${token}`);
    expect(inside.status).toBe(200);
    expect(inside.text).toBe('episode 1');
  });
});

describe('a protected prefix in front of an unmodified static file server (python3 -m http.server)', () => {
  let files: StaticFileServer;
  let stack: Stack;

  beforeAll(async () => {
    files = await startStaticFileServer({
      'private/secret.txt': SECRET_BODY,
      'video/ep1/x.ts': 'episode 1',
      'video/ep2/x.ts': 'episode 2',
      'members/app.html': '<p>the members app</p>',
      'members/404.html': '<p>the members 404 page</p>',
      'public.txt': 'for everyone',
    });
    stack = await startWorkers({
      config: {
        ORIGIN_KIND: 'http',
        ORIGIN_URL: files.url,
        SHIELD_TOKEN,
        SIGNING_KEYS: `k=${SECRET}`,
        SIGNED_PREFIXES: '/private/,/video/,/members/',
        NOT_FOUND_DOCUMENT: 'members/404.html',
        RULES: JSON.stringify([{ name: 'app', match: { path: '/app/*' }, spaFallback: '/members/app.html' }]),
      },
    });
  });
  afterAll(async () => {
    await stack?.dispose();
    await files?.close();
  });

  it('serves the file to a token for its folder, so the server does serve it', async () => {
    const answer = await get(stack, `/private/secret.txt?${await signToken(folder('/private/'))}`);
    expect(answer.status).toBe(200);
    expect(answer.text).toBe(SECRET_BODY);
  });

  it('refuses every spelling without a token, and asks the server for none of them', async () => {
    const before = files.received().length;
    for (const target of INTO_PRIVATE) expectRefused(await get(stack, target), 'missing', target);
    expect(files.received().slice(before)).toEqual([]);
  });

  it('never opens, with a folder’s token, a path the server resolves into another folder', async () => {
    const token = await signToken(folder('/video/ep1/'));
    const before = files.received().length;
    for (const target of OUT_OF_EP1) expectRefused(await get(stack, `${target}?${token}`), 'wrong-prefix', target);
    expect(files.received().slice(before)).toEqual([]);
  });

  it('answers a missing public path without the members-only 404 page or fallback, never asking for them', async () => {
    const before = files.received().length;
    for (const target of ['/no-such-page', '/app/settings']) {
      const answer = await get(stack, target);
      expect(answer.status, target).toBe(404);
      expect(answer.text, target).not.toContain('members');
    }
    expect(files.received().slice(before)).toEqual(['GET /no-such-page', 'GET /app/settings']);
  });

  it('serves the members’ 404 page and fallback to a request whose token grants them', async () => {
    const token = await signToken(folder('/members/'));
    const missing = await get(stack, '/members/no-such-page', { headers: { cookie: `tc_token=${token}` } });
    expect(missing.status).toBe(404);
    expect(missing.text).toBe('<p>the members 404 page</p>');
    const app = await get(stack, '/app/settings', { headers: { cookie: `tc_token=${token}` } });
    expect(app.status).toBe(200);
    expect(app.text).toBe('<p>the members app</p>');
  });
});
