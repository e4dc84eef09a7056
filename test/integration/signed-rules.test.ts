// Signatures come before the rules (worker/index.ts): a protected path without a token meets no redirect and no
// single-page-app fallback, and one with a token gets both, the fallback document read for it without being refused
// (it is a request of the edge's own, built from the admitted path) and without the token reaching the origin.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signToken } from '../../shared/admission/signer.ts';
import { type Fixture, request, startFixture } from './fixture.ts';

const SECRET = 'rules-signing-secret-0123456789abcdef';
const RULES = [
  { name: 'app', match: { path: '/app/*' }, spaFallback: '/app/index.html' },
  { name: 'moved', match: { path: '/old/*' }, redirect: { status: 301, location: '/new/', preservePathSuffix: true } },
];

let f: Fixture;

beforeAll(async () => {
  f = await startFixture({
    SIGNING_KEYS: `k=${SECRET}`,
    SIGNED_PREFIXES: '/app/,/old/',
    RULES: JSON.stringify(RULES),
  });
  await f.origin.putObject('app/index.html', '<p>the app</p>', { 'content-type': 'text/html' });
});
afterAll(async () => {
  await f?.close();
});

/** `path` with a token for everything under `prefix`. */
async function signed(path: string, prefix: string): Promise<URL> {
  const token = await signToken({
    keyId: 'k',
    secret: SECRET,
    path: prefix,
    prefix: true,
    expires: Math.floor(Date.now() / 1000) + 600,
  });
  return new URL(`${path}?${token}`, f.stack.url);
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
