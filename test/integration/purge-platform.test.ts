// The platform path of a purge (docs/purge.md "Paths"): with CF_API_TOKEN and CF_ZONE_ID, a purge is also sent to
// Cloudflare's zone purge (here the test double, local/cloudflare-api.ts), and the answer's bound is the platform's
// when nothing the platform cannot reach may hold a copy (the edge's memory layer off); rate-limited past the retries,
// without the token, or with the memory layer on, the records' 65 s. What the edge stores carries the tags the zone
// purge finds it by. A second edge isolate, as another location's, shows what each bound covers: the double records
// the zone purge, and the test drops the Cache API entry it would have purged.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { durationMs } from '../../cli/purge.ts';
import { type CloudflareApiDouble, startCloudflareApi } from '../../local/cloudflare-api.ts';
import { PLATFORM_BOUND_BASIS, RECORDS_BOUND_BASIS } from '../../shared/purge/purge-bounds.ts';
import { REFRESH_MS } from '../../shared/purge/purge-rules.ts';
import { folderTag, urlTag } from '../../shared/purge/workers-cache-purge.ts';
import { hostTag } from '../../shared/purge/zone-tags.ts';
import { type Answer, cacheStatus, type Fixture, rawGet, request, settle, startFixture, until } from './fixture.ts';

const PURGE_TOKEN = 'platform-purge-token';
const CF_API_TOKEN = 'cf-api-token-for-tests';
const CF_ZONE_ID = '0123456789abcdef0123456789abcdef';

let api: CloudflareApiDouble;
let f: Fixture;
let plain: Fixture;
/** The platform purge configured and the edge's memory layer off (MEMORY_CACHE_SIZE=0). */
let memoryOff: Fixture;

beforeAll(async () => {
  api = await startCloudflareApi(CF_API_TOKEN, CF_ZONE_ID);
  const platform = { PURGE_TOKEN, CF_API_TOKEN, CF_ZONE_ID, CF_API_BASE: api.base };
  [f, plain, memoryOff] = await Promise.all([
    startFixture(platform, { secondEdge: true }),
    startFixture({ PURGE_TOKEN }),
    startFixture({ ...platform, MEMORY_CACHE_SIZE: '0' }, { secondEdge: true }),
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
  await Promise.all([f?.close(), plain?.close(), memoryOff?.close()]);
  await api?.close();
});

interface PurgeAnswer {
  reachesEveryLocationWithin: string;
  paths: {
    platform: {
      sent: boolean;
      reason?: string;
      reachesEveryLocationWithin?: string;
      reaches?: string[];
      calls: { outcome: string }[];
    };
    records: { reachesEveryLocationWithin: string; reaches?: string[] };
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

/**
 * `path` asked of the fixture's second edge isolate for the first one's host: the edge keys entries by URL, host and
 * all, so both edges share these entries in the one Cache API namespace of the local stack.
 */
function atSecondEdge(fixture: Fixture, path: string): Promise<Answer> {
  return rawGet(new URL(path, fixture.stack.secondEdgeUrl), { host: new URL(fixture.stack.url).host });
}

/** What the zone purge does to the edge's Cache API entry for `path` (the double only records the call). */
async function zonePurged(fixture: Fixture, path: string): Promise<void> {
  const cache = await (await fixture.stack.mf.getCaches()).open('tiercache-edge');
  expect(await cache.delete(new URL(path, fixture.stack.url).href), `the edge's entry for ${path}`).toBe(true);
}

/** The second edge isolate holds `path` in memory (with the memory layer on) and in the Cache API. */
async function heldAtSecondEdge(fixture: Fixture, path: string): Promise<void> {
  await atSecondEdge(fixture, path);
  await settle();
  for (let i = 0; i < 2; i++) expect(edgeMember(await atSecondEdge(fixture, path))).toEqual(['tiercache-edge', 'hit']);
}

function edgeMember(answer: Answer): string[] {
  return cacheStatus(answer).at(-1)?.slice(0, 2) ?? [];
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

describe("the answer's bound covers every copy another isolate may answer from", () => {
  const A_HOUR = { 'content-type': 'text/plain', 'cache-control': 'max-age=3600' };

  it('with the memory layer on, it is the records’: another isolate answers its memory copy past the platform’s 150 ms, until its next re-read', async () => {
    await f.origin.putObject('p6/hot.txt', 'before', A_HOUR);
    await heldAtSecondEdge(f, '/p6/hot.txt');
    await f.origin.putObject('p6/hot.txt', 'after', A_HOUR);
    const { json } = await purge(f, { prefixes: ['/p6/'] });
    const answered = Date.now();
    await zonePurged(f, '/p6/hot.txt');
    // How long after the answer the second isolate still answered the purged copy: its memory, which no zone purge
    // reaches, until it re-reads the records (locally KV shows a write at once: within REFRESH_MS).
    let lastPurgedAnswer = 0;
    for (;;) {
      const answer = await atSecondEdge(f, '/p6/hot.txt');
      if (answer.text !== 'before') break;
      expect(edgeMember(answer)).toEqual(['tiercache-edge', 'hit']);
      lastPurgedAnswer = Date.now() - answered;
      expect(lastPurgedAnswer, 'the second isolate keeps the purged copy').toBeLessThan(3 * REFRESH_MS);
      await settle(100);
    }
    expect(lastPurgedAnswer).toBeLessThanOrEqual(durationMs(json.reachesEveryLocationWithin) ?? 0);
    expect(lastPurgedAnswer, 'the memory copy outlived the platform’s bound').toBeGreaterThan(
      durationMs(json.paths.platform.reachesEveryLocationWithin ?? '') ?? Infinity,
    );
    expect(json.reachesEveryLocationWithin).toBe('65s');
    expect(json).toMatchObject({ bound: 'typical', boundBasis: RECORDS_BOUND_BASIS });
    expect(json.paths.platform).toMatchObject({
      sent: true,
      reachesEveryLocationWithin: '150ms',
      reaches: ['edge Cache API'],
      bound: 'typical',
      boundBasis: PLATFORM_BOUND_BASIS,
    });
    expect(json.paths.records).toEqual({
      reachesEveryLocationWithin: '65s',
      reaches: ['edge memory', 'edge Cache API', 'shield Cache API'],
      bound: 'typical',
      boundBasis: RECORDS_BOUND_BASIS,
    });
  });

  it('with the memory layer off (MEMORY_CACHE_SIZE=0), it is the platform’s: once the zone purge took the Cache API copy, another isolate’s next request has the new bytes', async () => {
    await memoryOff.origin.putObject('p6/cold.txt', 'before', A_HOUR);
    await heldAtSecondEdge(memoryOff, '/p6/cold.txt');
    await memoryOff.origin.putObject('p6/cold.txt', 'after', A_HOUR);
    const { json } = await purge(memoryOff, { prefixes: ['/p6/'] });
    await zonePurged(memoryOff, '/p6/cold.txt');
    const next = await atSecondEdge(memoryOff, '/p6/cold.txt');
    expect(next.text).toBe('after');
    expect(json.reachesEveryLocationWithin).toBe('150ms');
    expect(json).toMatchObject({ bound: 'typical', boundBasis: PLATFORM_BOUND_BASIS });
    expect(json.paths.records).toEqual({
      reachesEveryLocationWithin: '65s',
      reaches: ['edge Cache API', 'shield Cache API'],
      bound: 'typical',
      boundBasis: RECORDS_BOUND_BASIS,
    });
  });
});

// First: a queued retry of the rate-limited purge below may reach the double later.
describe('a purge without the token', () => {
  it('takes the records path alone, with the 65 s bound, and sends nothing', async () => {
    api.received.length = 0;
    const { json } = await purge(plain, { urls: ['/a.txt'], tags: ['brand'], prefixes: ['/img/'] });
    expect(json.reachesEveryLocationWithin).toBe('65s');
    expect(json).toMatchObject({ bound: 'typical', boundBasis: RECORDS_BOUND_BASIS });
    expect(json.paths.records).toEqual({
      reachesEveryLocationWithin: '65s',
      reaches: ['edge memory', 'edge Cache API', 'shield Cache API'],
      bound: 'typical',
      boundBasis: RECORDS_BOUND_BASIS,
    });
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
  it('sends the URL, tag and prefix as tags and prefixes, with the bearer token; the platform’s path says its 150 ms', async () => {
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
    expect(json.paths.platform).toMatchObject({
      sent: true,
      reachesEveryLocationWithin: '150ms',
      reaches: ['edge Cache API'],
    });
    // The memory layer is on (the default): only the records reach it ("the answer's bound covers every copy", above).
    expect(json.paths.records).toMatchObject({ reachesEveryLocationWithin: '65s' });
    expect(json.reachesEveryLocationWithin).toBe('65s');
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
    expect(json.paths.platform).toMatchObject({ sent: true, reachesEveryLocationWithin: '150ms' });
  });

  it('retries a 429 after its Retry-After, and the purge succeeds', async () => {
    api.received.length = 0;
    api.rateLimitNext(1, '1');
    const { json } = await purge(f, { tags: ['v2'] });
    expect(api.received.map((call) => [call.status, call.body])).toEqual([
      [429, { tags: ['v2'] }],
      [200, { tags: ['v2'] }],
    ]);
    expect(json.paths.platform).toMatchObject({
      sent: true,
      reachesEveryLocationWithin: '150ms',
      calls: [{ outcome: 'sent', tries: 2 }],
    });
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
