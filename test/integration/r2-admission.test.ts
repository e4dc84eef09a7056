// The R2 tier's admission through the real workers, at the published prices (R2_TIER_ADMIT=cost, the default): a
// one-off read keeps nothing; once the shield's Cache API has forgotten an object and fetched it again, what pays is
// kept (its 1 MiB slices, its manifest) and what does not is not (its half slice: a put costs more than the egress of
// one more fetch of it); the next read takes the first from R2 and only the second from the origin. And the stats
// count the R2 tier as a tier of its own.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sliceKey, wholeCopyKey } from '../../shared/slices/slice-plan.ts';
import type { StatsJson } from '../../shared/stats/stats-json.ts';
import { patternBytes, sha256 } from './bytes.ts';
import { type Answer, cacheStatus, FakeClock, type Fixture, settle, startFixture } from './fixture.ts';

const MiB = 1024 * 1024;
const SIZE = 2.5 * MiB;
const STATS_TOKEN = 'r2-admission-stats-token';
const PATH = '/r2/admitted.bin';
const BYTES = patternBytes(41, SIZE);
const clock = new FakeClock();
let f: Fixture;

beforeAll(async () => {
  f = await startFixture(
    { SLICE_SIZE: '1MiB', SLICE_THRESHOLD: '2MiB', MEMORY_CACHE_SIZE: '0', STATS_TOKEN, STATS_FLUSH_MS: '0' },
    { r2Tier: true, clock },
  );
  await f.origin.putObject(PATH.slice(1), BYTES, { 'cache-control': 'max-age=3600' });
});
afterAll(() => f?.close());

async function read(): Promise<Answer> {
  const answer = await f.get(PATH);
  await settle(300);
  expect(answer.status).toBe(200);
  expect(sha256(answer.body)).toBe(sha256(BYTES));
  return answer;
}

/** The edge's and the shield's entries for the object deleted, as eviction would take them. */
async function evict(answer: Answer): Promise<void> {
  const caches = await f.stack.mf.getCaches();
  const version = { etag: answer.headers.get('etag') ?? '', size: SIZE };
  for (const [name, key] of [
    ['tiercache-edge', new URL(PATH, f.stack.url).href],
    ['tiercache-shield', `${new URL(f.tap.url).origin}/${f.origin.bucket}${PATH}`],
  ] as const) {
    const cache = await caches.open(name);
    expect(await cache.delete(key)).toBe(true);
    for (let index = 0; index * MiB < SIZE; index++) await cache.delete(sliceKey(key, version, MiB, index));
    await cache.delete(wholeCopyKey(key, version, MiB));
  }
}

/** The keys the R2 tier keeps, as the bucket lists them. */
async function kept(): Promise<string[]> {
  const bucket = await f.stack.mf.getR2Bucket('R2_TIER', 'shield');
  return (await bucket.list({ prefix: 'tiercache-r2/' })).objects.map((object) => object.key).sort();
}

/** The ranges the origin was asked for the object since the tap was last cleared. */
const originRanges = (): (string | undefined)[] =>
  f.tap.requests.filter((r) => r.method === 'GET' && r.path.split('?')[0]?.endsWith(PATH)).map((r) => r.headers.range);

describe('the R2 tier under the cost policy, at the published prices', () => {
  it('keeps nothing of a one-off; once fetched again, what pays; then serves that part without the origin', async () => {
    const first = await read();
    expect(await kept()).toEqual([]);

    // A minute on: a fetch of the same entries again, not the asks of one read (shared/store/fetch-history.ts).
    await evict(first);
    clock.advance(60);
    const again = await read();
    const keys = await kept();
    // The manifest and the two whole slices; not the last half slice.
    expect(keys).toHaveLength(3);
    expect(keys.filter((key) => key.includes('slice.tiercache.internal')).map((key) => key.split('/').at(-1))).toEqual([
      '0',
      '1',
    ]);

    await evict(again);
    clock.advance(60);
    f.tap.clear();
    const third = await read();
    expect(originRanges()).toEqual([`bytes=${2 * MiB}-${SIZE - 1}`]);
    // Its first slice answered from R2 when the answer's head went out.
    expect(cacheStatus(third).find((member) => member[0] === 'tiercache-r2')).toContain('hit');
  });

  it('counts the R2 tier in the stats as a tier of its own: its requests, and bytes from the origin', async () => {
    const answer = await f.get('/__tiercache/stats.json', { headers: { authorization: `Bearer ${STATS_TOKEN}` } });
    expect(answer.status).toBe(200);
    const stats = JSON.parse(answer.text) as StatsJson;
    expect(Object.keys(stats.tiers)).toEqual(['edge', 'shield', 'r2']);
    expect(stats.tiers.r2.totals.requests).toBeGreaterThan(0);
    expect(stats.tiers.r2.totals.bytesFromOrigin).toBeGreaterThan(0);
  });

  it("costs the origin a 304, not the body, when the shield revalidates through it and it holds nothing: the shield's validators passed on", async () => {
    const small = patternBytes(43, 4000);
    await f.origin.putObject('r2/small.bin', small, { 'cache-control': 'max-age=60' });
    const first = await f.get('/r2/small.bin');
    await settle(300);
    // 4 kB never pays for a put: R2 holds nothing of it.
    expect((await kept()).filter((key) => key.includes('small.bin'))).toEqual([]);
    clock.advance(120);
    f.tap.clear();
    const again = await f.get('/r2/small.bin');
    expect(sha256(again.body)).toBe(sha256(small));
    const asked = f.tap.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/r2/small.bin'));
    expect(asked.map((r) => [r.headers['if-none-match'], r.status])).toEqual([[first.headers.get('etag'), 304]]);
    expect(cacheStatus(again).find((member) => member[0] === 'tiercache-r2')).toEqual([
      'tiercache-r2',
      'fwd=uri-miss',
      'fwd-status=304',
    ]);
  });
});
