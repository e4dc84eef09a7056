import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PurgeStore, REFRESH_MS } from '../../shared/purge/purge-store.ts';
import { type Answer, cacheStatus, type Fixture, rawRequest, request, settle, startFixture } from './fixture.ts';

const PURGE_TOKEN = 'test-purge-token';
let f: Fixture;

beforeAll(async () => {
  f = await startFixture({ PURGE_TOKEN });
  await f.origin.putObject('a.txt', 'a', { 'content-type': 'text/plain' });
  await f.origin.putObject('b.txt', 'b', { 'content-type': 'text/plain' });
  await f.origin.putObject('docs/one.txt', 'one', { 'content-type': 'text/plain' });
  await f.origin.putObject('docs/two.txt', 'two', { 'content-type': 'text/plain' });
  await f.origin.putObject('tagged.txt', 'tagged', {
    'content-type': 'text/plain',
    'x-amz-meta-cache-tag': 'Blog, news',
  });
});
afterAll(() => f?.close());

/** A purge request; the origin must hear nothing of it (a purge never deletes there). */
async function purge(
  body: unknown,
  init: { token?: string | null; type?: string; fixture?: Fixture } = {},
): Promise<Answer> {
  const fixture = init.fixture ?? f;
  const headers: Record<string, string> = { 'content-type': init.type ?? 'application/json' };
  const token = init.token === undefined ? PURGE_TOKEN : init.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  fixture.tap.clear();
  const answer = await request(new URL('/__tiercache/purge', fixture.stack.url), {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  await settle(50);
  expect(fixture.tap.requests).toEqual([]);
  return answer;
}

/** Reads `path` until the edge answers it from its cache. */
async function warm(path: string): Promise<void> {
  await f.get(path);
  await settle();
  expect(
    cacheStatus(await f.get(path))
      .at(-1)
      ?.slice(0, 2),
    path,
  ).toEqual(['tiercache-edge', 'hit']);
}

async function expectMissAtBothTiers(path: string, body: string): Promise<void> {
  f.tap.clear();
  const answer = await f.get(path);
  expect(answer.text).toBe(body);
  expect(answer.headers.get('cache-status'), path).toBe(
    'tiercache-shield; fwd=uri-miss; stored, tiercache-edge; fwd=uri-miss; stored',
  );
  expect(f.tap.requests.filter((r) => r.method === 'GET' && r.path.endsWith(path))).toHaveLength(1);
  await settle();
}

async function expectEdgeHit(path: string): Promise<void> {
  expect(
    cacheStatus(await f.get(path))
      .at(-1)
      ?.slice(0, 2),
    path,
  ).toEqual(['tiercache-edge', 'hit']);
}

describe('purge', () => {
  it('refuses a request without the token, or with a wrong one, with 401 and WWW-Authenticate', async () => {
    for (const token of [null, 'wrong-token', `${PURGE_TOKEN}x`]) {
      const answer = await purge({ urls: ['/a.txt'] }, { token });
      expect(answer.status, String(token)).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer /);
    }
  });

  it('refuses a malformed body with 400, saying what was expected and what arrived', async () => {
    const notJson = await purge('urls=/a.txt');
    expect(notJson.status).toBe(400);
    expect(notJson.text).toMatch(/expected a JSON object.*"urls=\/a.txt"/);
    const empty = await purge({});
    expect(empty.status).toBe(400);
    expect(empty.text).toMatch(/at least one/);
    const wrongShape = await purge({ urls: '/a.txt' });
    expect(wrongShape.status).toBe(400);
    expect(wrongShape.text).toMatch(/"urls" to be an array of strings/);
    expect((await purge({ urls: ['/'] })).status).toBe(400);
  });

  it('refuses a body that is not declared as JSON with 415', async () => {
    expect((await purge({ urls: ['/a.txt'] }, { type: 'text/plain' })).status).toBe(415);
  });

  it('purges one URL at both tiers, leaving other objects cached, without asking the origin anything', async () => {
    await warm('/a.txt');
    await warm('/b.txt');
    const answer = await purge({ urls: ['/a.txt'] });
    expect(answer.status).toBe(200);
    const json = JSON.parse(answer.text) as { purged: unknown; at: number; reachesEveryLocationWithin: string };
    expect(json.purged).toEqual({ urls: ['/a.txt'], prefixes: [], tags: [], everything: false, soft: false });
    expect(Math.abs(json.at - Date.now())).toBeLessThan(10_000);
    expect(json.reachesEveryLocationWithin).toMatch(/^\d+s$/);
    await expectMissAtBothTiers('/a.txt', 'a');
    await expectEdgeHit('/a.txt');
    await expectEdgeHit('/b.txt');
  });

  it('purges an absolute URL naming this edge', async () => {
    await warm('/a.txt');
    expect((await purge({ urls: [new URL('/a.txt', f.stack.url).href] })).status).toBe(200);
    await expectMissAtBothTiers('/a.txt', 'a');
  });

  it('purges by prefix', async () => {
    await warm('/docs/one.txt');
    await warm('/docs/two.txt');
    await warm('/b.txt');
    expect((await purge({ prefixes: ['/docs/'] })).status).toBe(200);
    await expectMissAtBothTiers('/docs/one.txt', 'one');
    await expectMissAtBothTiers('/docs/two.txt', 'two');
    await expectEdgeHit('/b.txt');
  });

  it('purges by tag, from the object metadata x-amz-meta-cache-tag (exposed as Cache-Tag)', async () => {
    await warm('/tagged.txt');
    await warm('/b.txt');
    expect((await f.get('/tagged.txt')).headers.get('cache-tag')).toBe('Blog, news');
    expect((await purge({ tags: ['blog'] })).status).toBe(200);
    await expectMissAtBothTiers('/tagged.txt', 'tagged');
    await expectEdgeHit('/b.txt');
  });

  it('answers HEAD of a purged object from upstream too', async () => {
    await warm('/a.txt');
    expect((await purge({ urls: ['/a.txt'] })).status).toBe(200);
    const head = await f.get('/a.txt', { method: 'HEAD' });
    expect(cacheStatus(head).at(-1)).toContain('fwd=uri-miss');
  });

  it('purges everything', async () => {
    await warm('/a.txt');
    await warm('/b.txt');
    expect((await purge({ everything: true })).status).toBe(200);
    await expectMissAtBothTiers('/a.txt', 'a');
    await expectMissAtBothTiers('/b.txt', 'b');
    await expectEdgeHit('/b.txt');
  });
});

describe('a purge on its way through the global list', () => {
  // Another location records the purge; neither tier here has read it yet. Meanwhile the edge
  // fills a second key (another Host) from the shield's old copy. When the purge arrives, that
  // copy must go too: it is judged by when its bytes came from the origin, not when it was stored.
  it('still finds a copy one tier refilled from another that had not read it yet', async () => {
    await f.origin.putObject('relay.txt', 'before', { 'content-type': 'text/plain', 'cache-control': 'max-age=600' });
    await warm('/relay.txt');
    await f.origin.putObject('relay.txt', 'after', { 'content-type': 'text/plain', 'cache-control': 'max-age=600' });
    // Both tiers' copies of the list come due, then each re-reads it (on this request): the
    // purge recorded next is one neither has seen, for REFRESH_MS.
    await settle(REFRESH_MS + 200);
    const third = await rawAs('third.test');
    expect(third.text).toBe('before');
    const purgedAt = Date.now();
    await new PurgeStore().recordPurges(
      await f.stack.mf.getKVNamespace('PURGES', 'edge'),
      [{ kind: 'url', value: '/relay.txt', at: purgedAt }],
      purgedAt,
    );

    // Not read yet at either tier: the edge fills the other key from the shield's old copy.
    const relayed = await rawAs('another-host.test');
    expect(relayed.text).toBe('before');
    expect(cacheStatus(relayed).map((member) => member.slice(0, 2).join(' '))).toEqual([
      'tiercache-shield hit',
      'tiercache-edge fwd=uri-miss',
    ]);
    await settle();

    // Once read, every copy is gone, the relayed one included.
    let after: Answer | undefined;
    while (Date.now() - purgedAt < REFRESH_MS + 3000) {
      after = await rawAs('another-host.test');
      if (after.text === 'after') break;
      await settle(250);
    }
    expect(after?.text).toBe('after');
    expect((await rawAs('third.test')).text).toBe('after');
    expect((await f.get('/relay.txt')).text).toBe('after');
  }, 20_000);
});

/** GET /relay.txt as a client of `host` names it: the edge keys it apart, the shield does not. */
function rawAs(host: string): Promise<Answer> {
  return rawRequest(new URL('/relay.txt', f.stack.url), { host });
}

describe('purge without PURGE_TOKEN', () => {
  it('is disabled: 403 saying which secret enables it', async () => {
    const plain = await startFixture();
    try {
      const answer = await purge({ everything: true }, { fixture: plain, token: 'anything' });
      expect(answer.status).toBe(403);
      expect(answer.text).toMatch(/PURGE_TOKEN/);
    } finally {
      await plain.close();
    }
  });
});
