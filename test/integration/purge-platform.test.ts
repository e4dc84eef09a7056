// The platform path of a purge (docs/purge.md "Paths"): with CF_API_TOKEN and CF_ZONE_ID, a purge is also sent to
// Cloudflare's zone purge (here the test double, local/cloudflare-api.ts), and the answer's bound is the platform's;
// rate-limited past the retries, or without the token, the records' 65 s. What the edge stores carries the tags the
// zone purge finds it by.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CloudflareApiDouble, startCloudflareApi } from '../../local/cloudflare-api.ts';
import { folderTag, urlTag } from '../../shared/purge/workers-cache-purge.ts';
import { hostTag } from '../../shared/purge/zone-tags.ts';
import { type Answer, cacheStatus, type Fixture, request, settle, startFixture, until } from './fixture.ts';

const PURGE_TOKEN = 'platform-purge-token';
const CF_API_TOKEN = 'cf-api-token-for-tests';
const CF_ZONE_ID = '0123456789abcdef0123456789abcdef';

let api: CloudflareApiDouble;
let f: Fixture;
let plain: Fixture;

beforeAll(async () => {
  api = await startCloudflareApi(CF_API_TOKEN, CF_ZONE_ID);
  [f, plain] = await Promise.all([
    startFixture({ PURGE_TOKEN, CF_API_TOKEN, CF_ZONE_ID, CF_API_BASE: api.base }),
    startFixture({ PURGE_TOKEN }),
  ]);
  for (const fixture of [f, plain]) {
    await fixture.origin.putObject('a.txt', 'a', { 'content-type': 'text/plain' });
    await fixture.origin.putObject('img/logo.txt', 'logo', {
      'content-type': 'text/plain',
      'x-amz-meta-cache-tag': 'Brand, v2',
    });
  }
});
afterAll(async () => {
  await Promise.all([f?.close(), plain?.close()]);
  await api?.close();
});

interface PurgeAnswer {
  reachesEveryLocationWithin: string;
  paths: {
    platform: { sent: boolean; reason?: string; reachesEveryLocationWithin?: string; calls: { outcome: string }[] };
    records: { reachesEveryLocationWithin: string };
  };
}

async function purge(fixture: Fixture, body: unknown): Promise<Answer & { json: PurgeAnswer }> {
  const answer = await request(new URL('/__tiercache/purge', fixture.stack.url), {
    method: 'POST',
    headers: { authorization: `Bearer ${PURGE_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(answer.status, answer.text).toBe(200);
  return Object.assign(answer, { json: JSON.parse(answer.text) as PurgeAnswer });
}

/** The edge's stored entry for `path`, as the Cache API holds it. */
async function storedAtEdge(fixture: Fixture, path: string): Promise<Headers> {
  const cache = await (await fixture.stack.mf.getCaches()).open('tiercache-edge');
  const stored = await cache.match(new URL(path, fixture.stack.url).href);
  expect(stored, `the edge's entry for ${path}`).toBeDefined();
  await stored?.arrayBuffer();
  return stored?.headers ?? new Headers();
}

describe('what the edge stores carries the tags a zone purge finds it by', () => {
  it("its path's tag, its folders', its host's and the object's own, while the client sees the object's own", async () => {
    const answer = await f.get('/img/logo.txt');
    expect(answer.headers.get('cache-tag')).toBe('Brand, v2');
    await settle();
    const stored = await storedAtEdge(f, '/img/logo.txt');
    const tags = (stored.get('cache-tag') ?? '').split(',');
    const host = new URL(f.stack.url).host;
    expect(tags).toEqual(
      expect.arrayContaining([
        urlTag('/img/logo.txt'),
        folderTag('/'),
        folderTag('/img/'),
        hostTag(host),
        'brand',
        'v2',
      ]),
    );
    // A hit is answered from that entry: the client's view is the origin's Cache-Tag, as before.
    const hit = await f.get('/img/logo.txt');
    expect(hit.headers.get('cache-status')).toMatch(/tiercache-edge; hit/);
    expect(hit.headers.get('cache-tag')).toBe('Brand, v2');
    // The memory layer holds what the Cache API hit read: the client's view there is the origin's too.
    const fromMemory = await f.get('/img/logo.txt');
    expect(fromMemory.headers.get('cache-status')).toMatch(/tiercache-edge; hit/);
    expect(fromMemory.headers.get('cache-tag')).toBe('Brand, v2');
    expect(fromMemory.headers.has('x-tiercache-zone-tagged')).toBe(false);
  });
});

// First: a queued retry of the rate-limited purge below may reach the double later.
describe('a purge without the token', () => {
  it('takes the records path alone, with the 65 s bound, and sends nothing', async () => {
    api.received.length = 0;
    const { json } = await purge(plain, { urls: ['/a.txt'], tags: ['brand'], prefixes: ['/img/'] });
    expect(json.reachesEveryLocationWithin).toBe('65s');
    expect(json.paths.records).toEqual({ reachesEveryLocationWithin: '65s' });
    expect(json.paths.platform).toMatchObject({ sent: false, calls: [] });
    expect(api.received).toEqual([]);
  });

  it('still tags what the edge stores', async () => {
    await plain.get('/a.txt');
    await settle();
    const stored = await storedAtEdge(plain, '/a.txt');
    expect((stored.get('cache-tag') ?? '').split(',')).toContain(urlTag('/a.txt'));
  });
});

describe('a purge with the token configured', () => {
  it('sends the URL, tag and prefix as tags and prefixes, with the bearer token, and the bound is the platform’s', async () => {
    api.received.length = 0;
    const { json } = await purge(f, { urls: ['/a.txt'], tags: ['Brand'], prefixes: ['/img/'] });
    const host = new URL(f.stack.url).host;
    expect(api.received.map((call) => call.body)).toEqual([
      { tags: [urlTag('/a.txt'), folderTag('/img/'), 'brand'] },
      { prefixes: [`${host}/img/`] },
    ]);
    for (const call of api.received) {
      expect(call.authorization).toBe(`Bearer ${CF_API_TOKEN}`);
      expect(call.path).toBe(`/client/v4/zones/${CF_ZONE_ID}/purge_cache`);
      expect(call.contentType).toBe('application/json');
      expect(call.status).toBe(200);
    }
    expect(json.paths.platform).toMatchObject({ sent: true, reachesEveryLocationWithin: '150ms' });
    expect(json.paths.records).toEqual({ reachesEveryLocationWithin: '65s' });
    expect(json.reachesEveryLocationWithin).toBe('150ms');
  });

  it('still records the purge: the next request misses at both tiers, as without the token', async () => {
    await f.get('/a.txt');
    await settle();
    expect(
      cacheStatus(await f.get('/a.txt'))
        .at(-1)
        ?.slice(0, 2),
    ).toEqual(['tiercache-edge', 'hit']);
    await purge(f, { urls: ['/a.txt'] });
    const after = await f.get('/a.txt');
    expect(after.text).toBe('a');
    expect(after.headers.get('cache-status')).toBe(
      'tiercache-shield; fwd=uri-miss; stored, tiercache-edge; fwd=uri-miss; stored',
    );
  });

  it('sends everything as purge_everything', async () => {
    api.received.length = 0;
    const { json } = await purge(f, { everything: true });
    expect(api.received.map((call) => call.body)).toEqual([{ purge_everything: true }]);
    expect(json.reachesEveryLocationWithin).toBe('150ms');
  });

  it('retries a 429 after its Retry-After, and the purge succeeds', async () => {
    api.received.length = 0;
    api.rateLimitNext(1, '1');
    const { json } = await purge(f, { tags: ['v2'] });
    expect(api.received.map((call) => [call.status, call.body])).toEqual([
      [429, { tags: ['v2'] }],
      [200, { tags: ['v2'] }],
    ]);
    expect(json.paths.platform).toMatchObject({ sent: true, calls: [{ outcome: 'sent', tries: 2 }] });
    expect(json.reachesEveryLocationWithin).toBe('150ms');
  });

  it('rate-limited beyond the retries: the answer says so, the call is queued, and the bound is the records’', async () => {
    api.received.length = 0;
    // A Retry-After longer than the request may wait (3 s in all): queued at once, tried again after the answer.
    api.rateLimitNext(5, '10');
    const { json } = await purge(f, { tags: ['brand'] });
    expect(api.received.map((call) => call.status)).toEqual([429]);
    expect(json.paths.platform).toMatchObject({
      sent: false,
      calls: [{ outcome: 'rateLimited', queued: true, retryAfterMs: 10_000 }],
    });
    expect(json.paths.platform.reason).toMatch(/1 rate-limited, queued to be tried again from 10s on/);
    expect(json.reachesEveryLocationWithin).toBe('65s');
    api.rateLimitNext(0, '1');
  });

  it('1,000 URLs in one purge: ten calls of 100 tags; past the token bucket the rest are queued in order, none dropped', async () => {
    api.received.length = 0;
    // A bucket of 5 calls refilled 30 a minute: a token every 2 s.
    api.tokenBucket({ size: 5, perMinute: 30 });
    try {
      const urls = Array.from({ length: 1000 }, (_, i) => `/many/${i}.txt`);
      const { json } = await purge(f, { urls });
      const sent = json.paths.platform.calls.filter((call) => call.outcome === 'sent').length;
      // Five at once, a sixth after its 2 s Retry-After within the request's 3 s, the rest queued behind.
      expect(sent).toBeGreaterThanOrEqual(5);
      expect(json.paths.platform.calls).toHaveLength(10);
      expect(json.paths.platform.sent).toBe(false);
      expect(json.paths.platform.reason).toMatch(new RegExp(`${10 - sent} rate-limited, queued`));
      expect(json.reachesEveryLocationWithin).toBe('65s');
      // After the answer, the queue sends the rest as tokens come: every tag once, within the queue's budget.
      await until(() => api.received.filter((call) => call.status === 200).length === 10, 20_000);
      const accepted = api.received
        .filter((call) => call.status === 200)
        .map((call) => call.body as { tags: string[] });
      expect(accepted).toHaveLength(10);
      expect(accepted.every((body) => body.tags.length === 100)).toBe(true);
      expect(new Set(accepted.flatMap((body) => body.tags))).toEqual(new Set(urls.map((url) => urlTag(url))));
    } finally {
      api.tokenBucket(undefined);
    }
  }, 30_000);

  it('refused by the API (a wrong token): the answer says so and the bound is the records’', async () => {
    const other = await startCloudflareApi('another-token', CF_ZONE_ID);
    const refused = await startFixture({ PURGE_TOKEN, CF_API_TOKEN, CF_ZONE_ID, CF_API_BASE: other.base });
    try {
      const { json } = await purge(refused, { urls: ['/a.txt'] });
      expect(other.received.map((call) => call.status)).toEqual([403]);
      expect(json.paths.platform).toMatchObject({ sent: false, calls: [{ outcome: 'refused', status: 403 }] });
      expect(json.paths.platform.reason).toMatch(/Authentication error/);
      expect(json.reachesEveryLocationWithin).toBe('65s');
    } finally {
      await refused.close();
      await other.close();
    }
  });
});
