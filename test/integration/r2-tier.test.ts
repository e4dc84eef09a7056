// The R2 tier (shield/r2/) through the real workers, on Miniflare's R2, against S3: an object read, the edge's and
// the shield's Cache API emptied of it as eviction would, read again: served from R2, its member in Cache-Status, the
// origin asked nothing. And R2 behaves as the other tiers do: a purge of every kind reaches what it keeps, a soft purge
// makes it stale and a 304 renews it, a new version replaces it once stale, a read that comes short is discarded and
// the origin asked, and what a shared cache may not keep (no-store, private) never enters it. The stats count what it
// did to its bucket and price it, and show its card.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sliceKey, wholeCopyKey } from '../../shared/slices/slice-plan.ts';
import type { StatsJson } from '../../shared/stats/stats-json.ts';
import { patternBytes, sha256 } from './bytes.ts';
import { type Answer, cacheStatus, FakeClock, type Fixture, request, settle, startFixture } from './fixture.ts';

const MiB = 1024 * 1024;
const PURGE_TOKEN = 'r2-tier-purge-token';
const STATS_TOKEN = 'r2-tier-stats-token';
const DAY_S = 86_400;
const clock = new FakeClock();
let f: Fixture;

beforeAll(async () => {
  f = await startFixture(
    {
      SLICE_SIZE: '1MiB',
      SLICE_THRESHOLD: '2MiB',
      // The edge's memory would answer a small object itself: off, so that every read below reaches the Cache API.
      MEMORY_CACHE_SIZE: '0',
      STALE_WHILE_REVALIDATE: '0',
      STALE_IF_ERROR: '0',
      PURGE_TOKEN,
      STATS_TOKEN,
      // Each isolate's counts flushed as they are made: what the stats say is read right after.
      STATS_FLUSH_MS: '0',
      // Every storable entry kept: what this file shows is the tier; when an entry pays is r2-admission.test.ts's.
      R2_TIER_ADMIT: 'all',
    },
    { r2Tier: true, clock },
  );
});
afterAll(() => f?.close());

/** The objects read below: a whole one and a sliced one (2.5 slices), each under a name of its own per test. */
const KINDS = [
  ['a whole object', 4000],
  ['a sliced object', 2.5 * MiB],
] as const;
let objects = 0;

async function put(
  size: number,
  headers: Record<string, string> = {},
  seed = ++objects,
): Promise<{ path: string; bytes: Uint8Array }> {
  const path = `/r2/object-${seed}.bin`;
  const bytes = patternBytes(seed, size);
  await f.origin.putObject(path.slice(1), bytes, {
    'content-type': 'application/octet-stream',
    'cache-control': 'max-age=3600',
    ...headers,
  });
  return { path, bytes };
}

/** A GET through the edge, once what it left running (the fills into every tier) has had time to settle. */
async function read(path: string): Promise<Answer> {
  const answer = await f.get(path);
  await settle(300);
  return answer;
}

/** The origin's GETs of `path` since the tap was last cleared. */
const originGets = (path: string) =>
  f.tap.requests.filter((r) => r.method === 'GET' && r.path.split('?')[0]?.endsWith(path));

/** The member of `tier` in an answer's Cache-Status: its name, then its parameters. */
const member = (answer: Answer, tier: string): string[] =>
  cacheStatus(answer).find((m) => m[0] === `tiercache-${tier}`) ?? [];

/**
 * The edge's and the shield's entries for `path` deleted, as eviction would take them: the whole entry or the
 * manifest, and a sliced object's every slice (and the edge's whole copy of it). Each tier held the object.
 */
async function evict(path: string, answer: Answer, size: number): Promise<void> {
  const caches = await f.stack.mf.getCaches();
  const version = { etag: answer.headers.get('etag') ?? '', size };
  const keys = {
    'tiercache-edge': new URL(path, f.stack.url).href,
    'tiercache-shield': `${new URL(f.tap.url).origin}/${f.origin.bucket}${path}`,
  };
  for (const [name, key] of Object.entries(keys)) {
    const cache = await caches.open(name);
    expect(await cache.delete(key), `${name} held ${path}`).toBe(true);
    for (let index = 0; index * MiB < size; index++) await cache.delete(sliceKey(key, version, MiB, index));
    await cache.delete(wholeCopyKey(key, version, MiB));
  }
}

async function purge(body: Record<string, unknown>): Promise<void> {
  const answer = await request(new URL('/__tiercache/purge', f.stack.url), {
    method: 'POST',
    headers: { authorization: `Bearer ${PURGE_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(answer.status, answer.text).toBe(200);
  await settle(50);
}

function expectBytes(answer: Answer, bytes: Uint8Array): void {
  expect(answer.status).toBeLessThan(300);
  expect(answer.body.length).toBe(bytes.length);
  expect(sha256(answer.body)).toBe(sha256(bytes));
}

describe.each(KINDS)('%s', (_kind, size) => {
  it('is served from R2 once both Cache API tiers have forgotten it: its member a hit, the origin asked nothing', async () => {
    const { path, bytes } = await put(size);
    const first = await read(path);
    expectBytes(first, bytes);
    expect(member(first, 'r2')[0]).toBe('tiercache-r2');
    expect(originGets(path).length).toBeGreaterThan(0);

    await evict(path, first, size);
    f.tap.clear();
    const again = await read(path);
    expectBytes(again, bytes);
    expect(member(again, 'r2')).toContain('hit');
    expect(member(again, 'shield')).not.toContain('hit');
    expect(originGets(path)).toEqual([]);
    // The tiers in the order a request meets them, nearest the client last (RFC 9211 §2).
    expect(cacheStatus(again).map((m) => m[0])).toEqual(['tiercache-r2', 'tiercache-shield', 'tiercache-edge']);
    expect(again.headers.get('server-timing')).toMatch(/\br2;dur=/);
  });

  it('is fetched again once a URL purge names it, the new bytes served and kept', async () => {
    const { path } = await put(size);
    const first = await read(path);
    // The object replaced at the origin under the same key: only the purge may make a tier ask for it again.
    const { bytes: replaced } = await put(size, {}, objects + 1000);
    await f.origin.putObject(path.slice(1), replaced, { 'cache-control': 'max-age=3600' });
    await purge({ urls: [path] });
    f.tap.clear();
    expectBytes(await read(path), replaced);
    expect(originGets(path).length).toBeGreaterThan(0);
    void first;
  });

  it('is revalidated after a soft purge, a 304 renewing it without a body', async () => {
    const { path, bytes } = await put(size);
    const first = await read(path);
    await evict(path, first, size);
    await purge({ urls: [path], soft: true });
    f.tap.clear();
    const again = await read(path);
    expectBytes(again, bytes);
    const asked = originGets(path);
    expect(asked.length).toBe(1);
    expect(asked[0]?.headers['if-none-match']).toBe(first.headers.get('etag'));
    expect(asked[0]?.status).toBe(304);
    expect(member(again, 'r2')).toContain('fwd=stale');
  });

  it('is replaced by a new version once stale, as at the other tiers', async () => {
    const { path } = await put(size, { 'cache-control': 'max-age=60' });
    const first = await read(path);
    await evict(path, first, size);
    const { bytes: newer } = await put(size, {}, objects + 2000);
    await f.origin.putObject(path.slice(1), newer, { 'cache-control': 'max-age=60' });
    clock.advance(120);
    f.tap.clear();
    const again = await read(path);
    expectBytes(again, newer);
    expect(member(again, 'r2')).toContain('fwd=stale');
    // The new version is what R2 keeps now.
    await evict(path, again, size);
    f.tap.clear();
    expectBytes(await read(path), newer);
    expect(originGets(path)).toEqual([]);
  });

  it('is fetched from the origin when what R2 holds reads short, and kept again whole', async () => {
    const { path, bytes } = await put(size);
    const first = await read(path);
    await evict(path, first, size);
    const bucket = await f.stack.mf.getR2Bucket('R2_TIER', 'shield');
    // Every object of it cut to half its bytes, its metadata (the length counted in) left as it was.
    let cut = 0;
    for (const listed of (await bucket.list({ prefix: 'tiercache-r2/', include: ['customMetadata'] })).objects) {
      if (!listed.key.includes(encodeURIComponent(path.slice(1))) && !listed.key.includes(path)) continue;
      const object = await bucket.get(listed.key);
      const whole = new Uint8Array((await object?.arrayBuffer()) ?? new ArrayBuffer(0));
      if (whole.length === 0) continue;
      await bucket.put(listed.key, whole.subarray(0, whole.length >> 1), {
        customMetadata: listed.customMetadata ?? {},
      });
      cut++;
    }
    expect(cut).toBeGreaterThan(0);
    f.tap.clear();
    expectBytes(await read(path), bytes);
    expect(originGets(path).length).toBeGreaterThan(0);
  });
});

describe('the R2 tier in the stats', () => {
  async function stats(): Promise<{ json: StatsJson; page: string }> {
    await settle(300);
    const headers = { authorization: `Bearer ${STATS_TOKEN}` };
    const json = await f.get('/__tiercache/stats.json', { headers });
    const page = await f.get('/__tiercache/stats', { headers });
    expect([json.status, page.status]).toEqual([200, 200]);
    return { json: JSON.parse(json.text) as StatsJson, page: page.text };
  }

  it('counts its gets and the put R2 took, with its bytes and the storage its retention commits to, and prices them', async () => {
    const before = (await stats()).json.cost.windowOperations;
    const { path, bytes } = await put(4000);
    const first = await read(path);
    await evict(path, first, bytes.length);
    expectBytes(await read(path), bytes);
    const { json, page } = await stats();
    const after = json.cost.windowOperations;
    // One entry put (a whole object), looked up twice: a miss, then the hit.
    expect(after.r2Puts - before.r2Puts).toBe(1);
    expect(after.r2PutBytes - before.r2PutBytes).toBe(bytes.length);
    expect(after.r2Gets - before.r2Gets).toBeGreaterThanOrEqual(2);
    // Kept as long as the purge records vouch for it (R2_TIER_ADMIT=all): about 31 days from its bytes' fetch.
    const retentionS = (after.r2StoredByteSeconds - before.r2StoredByteSeconds) / bytes.length;
    expect(retentionS).toBeGreaterThan(30 * DAY_S);
    expect(retentionS).toBeLessThanOrEqual(31 * DAY_S);
    // Its walk of the index listed the bucket when the first read asked it (a page a minute per isolate at most).
    expect(after.r2Lists).toBeGreaterThanOrEqual(1);
    const lines = json.cost.month.lines.map((line) => line.item);
    expect(lines).toEqual(expect.arrayContaining(['R2 storage', 'R2 Class A operations', 'R2 Class B operations']));
    expect(page).toContain('<article class="card r2"><h3>R2</h3>');
    expect(page).toContain('<dt>bytes from the r2</dt>');
    expect(page).toMatch(/<dt>R2 gets, puts, lists<\/dt><dd>[\d,]+, [\d,]+, [\d,]+<\/dd>/);
  });
});

describe('purges of every kind reach what R2 keeps', () => {
  it.each([
    ['a prefix', (path: string) => ({ prefixes: [path.slice(0, path.lastIndexOf('/') + 1)] })],
    ['a tag', () => ({ tags: ['r2-tagged'] })],
    ['everything', () => ({ everything: true })],
  ] as const)('%s: the object fetched again, not R2 serving the copy from before', async (_kind, body) => {
    const { path } = await put(2.5 * MiB, { 'x-amz-meta-cache-tag': 'r2-tagged' });
    await read(path);
    const { bytes: replaced } = await put(2.5 * MiB, {}, objects + 3000);
    await f.origin.putObject(path.slice(1), replaced, {
      'cache-control': 'max-age=3600',
      'x-amz-meta-cache-tag': 'r2-tagged',
    });
    await purge(body(path));
    f.tap.clear();
    expectBytes(await read(path), replaced);
    expect(originGets(path).length).toBeGreaterThan(0);
  });
});

describe('the walk of its index after a purge', () => {
  it("deletes what a purge reached, the object's slices with it, once its minute comes", async () => {
    const { path } = await put(2.5 * MiB, { 'x-amz-meta-cache-tag': 'r2-walked' });
    await read(path);
    const bucket = await f.stack.mf.getR2Bucket('R2_TIER', 'shield');
    const keysOf = async (): Promise<string[]> =>
      (await bucket.list({ prefix: 'tiercache-r2/' })).objects
        .map((object) => object.key)
        .filter((key) => key.includes(encodeURIComponent(path)) || key.endsWith(path));
    // Its manifest and three slices.
    expect(await keysOf()).toHaveLength(4);
    await purge({ tags: ['r2-walked'] });
    // The walk's next page is due a minute on; any read that reaches the R2 tier takes it.
    clock.advance(61);
    await read((await put(4000)).path);
    await settle(300);
    expect(await keysOf()).toEqual([]);
  });
});

describe('what a shared cache may not keep', () => {
  it.each([['no-store'], ['private']])('%s: never put in R2, the origin asked on every read', async (directive) => {
    const { path, bytes } = await put(4000, { 'cache-control': directive });
    const bucket = await f.stack.mf.getR2Bucket('R2_TIER', 'shield');
    const before = (await bucket.list({ prefix: 'tiercache-r2/' })).objects.length;
    expectBytes(await read(path), bytes);
    expectBytes(await read(path), bytes);
    expect(originGets(path).length).toBe(2);
    expect((await bucket.list({ prefix: 'tiercache-r2/' })).objects.length).toBe(before);
  });
});

describe('when the origin cannot be reached', () => {
  const downClock = new FakeClock();
  let down: Fixture;
  beforeAll(async () => {
    down = await startFixture(
      { MEMORY_CACHE_SIZE: '0', STALE_WHILE_REVALIDATE: '0', STALE_IF_ERROR: '0', R2_TIER_ADMIT: 'all' },
      { r2Tier: true, clock: downClock },
    );
  });
  afterAll(async () => {
    // Its tap is closed by the test below: the rest is stopped here.
    await down?.stack.dispose();
    await down?.origin.close();
  });

  it('a stale copy stands in at the edge as without the R2 tier: its disconnection is told through it (RFC 9111 §4.2.4)', async () => {
    const bytes = patternBytes(77, 4000);
    await down.origin.putObject('r2/down.bin', bytes, { 'cache-control': 'max-age=60' });
    expect((await down.get('/r2/down.bin')).status).toBe(200);
    await settle(300);
    downClock.advance(120);
    await down.tap.close();
    const stale = await down.get('/r2/down.bin');
    expectBytes(stale, bytes);
    // The edge served its own copy, its stale-if-error judged on the disconnection the shield told on from R2.
    expect(member(stale, 'edge')).toEqual(
      expect.arrayContaining(['fwd=stale', 'fwd-status=502', 'detail=stale-if-error']),
    );
  });
});
