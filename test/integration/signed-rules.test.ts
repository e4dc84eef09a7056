// Signatures come before the rules (worker/index.ts): a protected path without a token meets no redirect and no
// single-page-app fallback, and one with a token gets both, the fallback document read for it (its own path admitted
// by the same token) without the token reaching the origin. A document under a protected prefix is never the answer
// to a request whose token does not grant it: a missing public path gets no members-only fallback or 404 page.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signToken } from '../../shared/admission/signer.ts';
import { type Fixture, request, startFixture } from './fixture.ts';

const SECRET = 'rules-signing-secret-0123456789abcdef';
const RULES = [
  { name: 'app', match: { path: '/app/*' }, spaFallback: '/app/index.html' },
  { name: 'moved', match: { path: '/old/*' }, redirect: { status: 301, location: '/new/', preservePathSuffix: true } },
];

let f: Fixture;
let members: Fixture;

beforeAll(async () => {
  members = await startFixture({
    SIGNING_KEYS: `k=${SECRET}`,
    SIGNED_PREFIXES: '/members/',
    NOT_FOUND_DOCUMENT: 'members/404.html',
    RULES: JSON.stringify([{ name: 'spa', match: { path: '/app/*' }, spaFallback: '/members/app.html' }]),
  });
  await members.origin.putObject('members/app.html', '<p>the members app</p>', { 'content-type': 'text/html' });
  await members.origin.putObject('members/404.html', '<p>members: not found</p>', { 'content-type': 'text/html' });
  f = await startFixture({
    SIGNING_KEYS: `k=${SECRET}`,
    SIGNED_PREFIXES: '/app/,/old/',
    RULES: JSON.stringify(RULES),
  });
  await f.origin.putObject('app/index.html', '<p>the app</p>', { 'content-type': 'text/html' });
});
afterAll(async () => {
  await Promise.all([f?.close(), members?.close()]);
});

/** `path` with a token for everything under `prefix`. */
async function signed(path: string, prefix: string, fixture: Fixture = f): Promise<URL> {
  return new URL(`${path}?${await token(prefix)}`, fixture.stack.url);
}

async function token(prefix: string): Promise<string> {
  return signToken({
    keyId: 'k',
    secret: SECRET,
    path: prefix,
    prefix: true,
    expires: Math.floor(Date.now() / 1000) + 600,
  });
}

describe('signed paths under rules', () => {
  it('refuses a protected path without a token before its fallback or its redirect is considered', async () => {
    f.tap.clear();
    const fallback = await request(new URL('/app/settings', f.stack.url));
    expect(fallback.status).toBe(403);
    expect(fallback.text).toMatch(/^403 missing: /);
    const moved = await request(new URL('/old/a/b', f.stack.url));
    expect(moved.status).toBe(403);
    expect(moved.headers.get('location')).toBeNull();
    expect(f.tap.requests).toEqual([]);
  });

  it('answers a signed request for a missing key with the fallback document, the token kept from the origin', async () => {
    f.tap.clear();
    const answer = await request(await signed('/app/settings', '/app/'));
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('<p>the app</p>');
    expect(f.tap.requests.length).toBeGreaterThan(0);
    for (const seen of f.tap.requests) expect(seen.path).not.toMatch(/tc_/);
  });

  it('redirects a signed request as its rule says, without its token in the location', async () => {
    const answer = await request(await signed('/old/a/b', '/old/'));
    expect(answer.status).toBe(301);
    expect(answer.headers.get('location')).toBe('/new/a/b');
  });
});

describe('documents under a protected prefix', () => {
  it('answers a missing public path with neither the members’ fallback nor their 404 page, never reading them', async () => {
    members.tap.clear();
    for (const path of ['/no-such-page', '/app/settings']) {
      const answer = await request(new URL(path, members.stack.url));
      expect(answer.status, path).toBe(404);
      expect(answer.text, path).not.toContain('members');
    }
    expect(members.tap.requests.map((r) => r.path).filter((path) => path.includes('members'))).toEqual([]);
  });

  it('answers a request whose token grants the document with it: the fallback, and the 404 page', async () => {
    const cookie = { cookie: `tc_token=${await token('/members/')}` };
    const app = await request(new URL('/app/settings', members.stack.url), { headers: cookie });
    expect(app.status).toBe(200);
    expect(app.text).toBe('<p>the members app</p>');
    const missing = await request(await signed('/members/gone.html', '/members/', members));
    expect(missing.status).toBe(404);
    expect(missing.text).toBe('<p>members: not found</p>');
  });

  it('keeps the bare 404 for a token that does not grant the document', async () => {
    const answer = await request(new URL('/app/settings', members.stack.url), {
      headers: { cookie: `tc_token=${await token('/members/other/')}` },
    });
    expect(answer.status).toBe(404);
    expect(answer.text).not.toContain('members');
  });
});
