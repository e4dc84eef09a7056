// Signed URLs and cookies (worker/admission.ts, shared/admission/; docs/private-content.md): a protected prefix is
// served only with a token the edge verifies before anything else, the memory layer included; a refusal reaches
// neither the shield nor the origin (the shield here notes what it is asked: counting-shield.js); and the token never
// enters the cache key or reaches the origin, so one stored copy serves every authorized client.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { type SignOptions, signedUrl, signToken } from '../../shared/admission/signer.ts';
import { type Answer, cacheStatus, type Fixture, request, settle, startFixture } from './fixture.ts';
import { type Site, startSite } from './http-site.ts';

const OLD = 'old-signing-secret-0123456789abcdef';
const NEW = 'new-signing-secret-0123456789abcdef';
const COUNTING_SHIELD = 'test/integration/counting-shield.js';
const run = promisify(execFile);

let f: Fixture;
let rotated: Fixture;

beforeAll(async () => {
  [f, rotated] = await Promise.all([
    startFixture(
      { SIGNING_KEYS: `old=${OLD},new=${NEW}`, SIGNED_PREFIXES: '/video/,/paid/' },
      { entries: { shield: COUNTING_SHIELD } },
    ),
    // The same deployment once the old key is rotated out.
    startFixture({ SIGNING_KEYS: `new=${NEW}`, SIGNED_PREFIXES: '/video/,/paid/' }),
  ]);
  for (const fixture of [f, rotated]) {
    for (const name of ['seg1.ts', 'seg2.ts', 'seg3.ts', 'seg4.ts'])
      await fixture.origin.putObject(`video/ep1/${name}`, `segment ${name}`, { 'content-type': 'video/mp2t' });
    await fixture.origin.putObject('paid/book.pdf', 'the paid book', { 'content-type': 'application/pdf' });
    await fixture.origin.putObject('public.txt', 'for everyone', { 'content-type': 'text/plain' });
  }
});
afterAll(async () => {
  await Promise.all([f?.close(), rotated?.close()]);
});
beforeEach(async () => {
  f.tap.clear();
  await request(new URL('/__test/shield-forget', f.stack.shieldUrl));
});

const now = (): number => Math.floor(Date.now() / 1000);
const folder = (): SignOptions => ({
  keyId: 'new',
  secret: NEW,
  path: '/video/ep1/',
  prefix: true,
  expires: now() + 600,
});

/** `path` with the token's parameters appended. */
async function signed(path: string, options: SignOptions = folder()): Promise<string> {
  return `${path}${path.includes('?') ? '&' : '?'}${await signToken(options)}`;
}

/** What the shield was asked since the test began. */
async function shieldHeard(fixture: Fixture = f): Promise<string[]> {
  return JSON.parse((await request(new URL('/__test/shield-heard', fixture.stack.shieldUrl))).text) as string[];
}

function originGets(fixture: Fixture = f): string[] {
  return fixture.tap.requests.filter((r) => r.method === 'GET').map((r) => r.path);
}

function edgeMember(answer: Answer): string[] {
  return cacheStatus(answer).at(-1) ?? [];
}

/** A 403 naming `reason`, in its body and Cache-Status, never stored. */
function expectRefused(answer: Answer, reason: string): void {
  expect(answer.status, answer.text).toBe(403);
  expect(answer.text).toMatch(new RegExp(`^403 ${reason}: `));
  expect(answer.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  expect(answer.headers.get('cache-control')).toBe('no-store');
  expect(edgeMember(answer)).toContain(`detail=signature-${reason}`);
}

describe('a protected prefix', () => {
  it('serves an object for a signed URL, and a second client with another valid token is an edge hit', async () => {
    const first = await f.get(await signed('/video/ep1/seg1.ts'));
    expect(first.status).toBe(200);
    expect(first.text).toBe('segment seg1.ts');
    await settle();
    // Another client: another key, another expiry, a token for this one path.
    const other = await signed('/video/ep1/seg1.ts', {
      keyId: 'old',
      secret: OLD,
      path: '/video/ep1/seg1.ts',
      expires: now() + 60,
    });
    const second = await f.get(other);
    expect(second.status).toBe(200);
    expect(edgeMember(second).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    expect(originGets()).toHaveLength(1);
    // Neither the origin nor the shield saw a token.
    expect(originGets()[0]).not.toContain('tc_');
    for (const heard of await shieldHeard()) expect(heard).not.toContain('tc_');
  });

  it('serves an object for the tc_token cookie (a player’s segments), one stored copy for URL and cookie alike', async () => {
    const token = await signToken(folder());
    const answer = await f.get('/video/ep1/seg2.ts', { headers: { cookie: `theme=dark; tc_token=${token}` } });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('segment seg2.ts');
    await settle();
    const again = await f.get(await signed('/video/ep1/seg2.ts'));
    expect(edgeMember(again).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    expect(originGets()).toHaveLength(1);
  });

  it('keys the object without the token: the edge’s Cache API holds it under its plain URL', async () => {
    await f.get(await signed('/video/ep1/seg3.ts'));
    await settle();
    const edge = await (await f.stack.mf.getCaches()).open('tiercache-edge');
    const stored = await edge.match(new URL('/video/ep1/seg3.ts', f.stack.url).href);
    expect(await stored?.text()).toBe('segment seg3.ts');
    const another = await f.get(await signed('/video/ep1/seg3.ts', { ...folder(), expires: now() + 900 }));
    expect(edgeMember(another).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    expect(originGets()).toHaveLength(1);
  });

  it('refuses each bad token with its reason, reaching neither the shield nor the origin', async () => {
    const base = folder();
    const sig = new URLSearchParams(await signToken(base)).get('tc_sig') ?? '';
    const tamperedSig = `${sig.slice(0, 10)}${sig[10] === 'A' ? 'B' : 'A'}${sig.slice(11)}`;
    const tampered = (await signToken(base)).replace(sig, tamperedSig);
    const cases: [string, string, Record<string, string>?][] = [
      ['missing', '/video/ep1/seg4.ts'],
      ['expired', await signed('/video/ep1/seg4.ts', { ...base, expires: now() - 1 })],
      ['not-yet-valid', await signed('/video/ep1/seg4.ts', { ...base, notBefore: now() + 3600 })],
      ['wrong-path', await signed('/video/ep1/seg4.ts', { ...base, path: '/video/ep1/seg1.ts', prefix: false })],
      ['wrong-prefix', await signed('/video/ep1/seg4.ts', { ...base, path: '/video/ep2/' })],
      ['wrong-prefix', await signed('/paid/book.pdf')],
      ['tampered', `/video/ep1/seg4.ts?${tampered}`],
      ['tampered', await signed('/video/ep1/seg4.ts', { ...base, secret: OLD })],
      ['unknown-key', await signed('/video/ep1/seg4.ts', { ...base, keyId: 'gone' })],
      ['malformed', '/video/ep1/seg4.ts?tc_exp=soon&tc_kid=new&tc_prefix=%2Fvideo%2F&tc_sig=x'],
      ['malformed', `${await signed('/video/ep1/seg4.ts')}&tc_exp=1`],
      [
        'wrong-ip',
        await signed('/video/ep1/seg4.ts', { ...base, ip: '192.0.2.1' }),
        { 'cf-connecting-ip': '198.51.100.7' },
      ],
      ['wrong-ip', await signed('/video/ep1/seg4.ts', { ...base, ip: '192.0.2.1' })],
    ];
    for (const [reason, path, headers] of cases) expectRefused(await f.get(path, { headers: headers ?? {} }), reason);
    const cookie = await f.get('/video/ep1/seg4.ts', { headers: { cookie: `tc_token=${tampered}` } });
    expectRefused(cookie, 'tampered');
    const head = await f.get('/video/ep1/seg4.ts', { method: 'HEAD' });
    expect(head.status).toBe(403);
    expect(edgeMember(head)).toContain('detail=signature-missing');
    expect(await shieldHeard()).toEqual([]);
    expect(f.tap.requests).toEqual([]);
  });

  it('admits a token bound to the client’s address from that address only', async () => {
    const path = await signed('/video/ep1/seg4.ts', { ...folder(), ip: '192.0.2.1' });
    expect((await f.get(path, { headers: { 'cf-connecting-ip': '192.0.2.1' } })).status).toBe(200);
    expectRefused(await f.get(path, { headers: { 'cf-connecting-ip': '192.0.2.2' } }), 'wrong-ip');
  });

  it('refuses a memory-layer hit without a token: the check stands before the memory layer', async () => {
    const path = await signed('/video/ep1/seg1.ts');
    await f.get(path);
    await settle();
    expect(edgeMember(await f.get(path)).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    // Now in memory only: the Cache API copy dropped behind the edge's back.
    const edge = await (await f.stack.mf.getCaches()).open('tiercache-edge');
    await edge.delete(new URL('/video/ep1/seg1.ts', f.stack.url).href);
    f.tap.clear();
    expectRefused(await f.get('/video/ep1/seg1.ts'), 'missing');
    const fromMemory = await f.get(path);
    expect(fromMemory.status).toBe(200);
    expect(edgeMember(fromMemory).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    expect(f.tap.requests).toEqual([]);
    expect(await shieldHeard()).toEqual([]);
  });

  it('rotation: both key ids admit while both are set; once the old one is removed, its tokens are unknown', async () => {
    const old = await signed('/paid/book.pdf', {
      keyId: 'old',
      secret: OLD,
      path: '/paid/',
      prefix: true,
      expires: now() + 60,
    });
    const fresh = await signed('/paid/book.pdf', {
      keyId: 'new',
      secret: NEW,
      path: '/paid/',
      prefix: true,
      expires: now() + 60,
    });
    expect((await f.get(old)).status).toBe(200);
    expect((await f.get(fresh)).status).toBe(200);
    expectRefused(await rotated.get(old), 'unknown-key');
    expect((await rotated.get(fresh)).text).toBe('the paid book');
  });

  it('leaves paths outside the prefixes, OPTIONS and the tiers’ own paths as they are', async () => {
    expect((await f.get('/public.txt')).text).toBe('for everyone');
    expect((await f.get('/video/ep1/seg1.ts', { method: 'OPTIONS' })).status).toBe(204);
    expect((await f.get('/__tiercache/health')).status).not.toBe(403);
  });

  it('admits the URL `npm run sign` prints', async () => {
    const cli = (args: string[]) =>
      run(process.execPath, ['--disable-warning=ExperimentalWarning', 'cli/sign.ts', ...args], {
        env: { ...process.env, SIGNING_KEYS: `new=${NEW},old=${OLD}` },
      });
    const one = await cli(['--base', f.stack.url, '--path', '/video/ep1/seg2.ts', '--expires', '10m', '--kid', 'old']);
    const url = one.stdout.trim().split('\n').at(-1) ?? '';
    expect(url.startsWith(`${f.stack.url}/video/ep1/seg2.ts?`)).toBe(true);
    expect((await request(url)).text).toBe('segment seg2.ts');
    // A folder: the same token for any path under it, as a query or as the cookie.
    const dir = await cli(['--base', f.stack.url, '--path', '/video/ep1/', '--prefix', '--expires', '1h', '--cookie']);
    const lines = dir.stdout.trim().split('\n');
    const query = new URL(lines.at(-1) ?? '').search;
    expect((await f.get(`/video/ep1/seg3.ts${query}`)).status).toBe(200);
    const cookie = (lines.find((line) => line.startsWith('Cookie: ')) ?? '').slice('Cookie: '.length);
    expect((await f.get('/video/ep1/seg4.ts', { headers: { cookie } })).status).toBe(200);
  });
});

describe('a protected prefix of an http origin', () => {
  let site: Site;
  let stack: Stack;

  beforeAll(async () => {
    site = await startSite();
    stack = await startWorkers({
      config: {
        ORIGIN_KIND: 'http',
        ORIGIN_URL: site.url,
        SHIELD_TOKEN: 't',
        SIGNING_KEYS: `new=${NEW}`,
        SIGNED_PREFIXES: '/',
      },
    });
    site.page('/members/page.html', 'members only', { 'cache-control': 'max-age=600' });
  });
  afterAll(async () => {
    await stack?.dispose();
    await site?.close();
  });

  it('forwards neither the token’s parameters nor its cookie, the rest of the query and cookies kept', async () => {
    const options = { keyId: 'new', secret: NEW, path: '/members/', prefix: true, expires: now() + 60 };
    const url = await signedUrl(stack.url, { ...options, path: '/members/page.html', prefix: false });
    const withQuery = url.replace('?', '?v=2&');
    expect((await request(withQuery)).text).toBe('members only');
    const token = await signToken(options);
    const byCookie = await request(new URL('/members/page.html?v=3', stack.url), {
      headers: { cookie: `session=abc; tc_token=${token}` },
    });
    expect(byCookie.text).toBe('members only');
    const asked = site.received.filter((r) => r.path.startsWith('/members/'));
    expect(asked.map((r) => r.path)).toEqual(['/members/page.html?v=2', '/members/page.html?v=3']);
    expect(asked[1]?.headers.cookie).toBe('session=abc');
    for (const r of asked) expect(JSON.stringify(r)).not.toContain('tc_');
  });

  it('keys the page without the token: a second token is an edge hit', async () => {
    const options = { keyId: 'new', secret: NEW, path: '/members/', prefix: true, expires: now() + 60 };
    const before = site.received.length;
    await request(new URL(`/members/page.html?${await signToken(options)}`, stack.url));
    await settle();
    const second = await request(
      new URL(`/members/page.html?${await signToken({ ...options, expires: now() + 120 })}`, stack.url),
    );
    expect(cacheStatus(second).at(-1)?.slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    expect(site.received.length - before).toBe(1);
  });

  it('never protects the tiers’ own paths, even under SIGNED_PREFIXES=/', async () => {
    expect((await request(new URL('/__tiercache/health', stack.url))).status).not.toBe(403);
    expectRefused(await request(new URL('/members/page.html', stack.url)), 'missing');
  });
});
