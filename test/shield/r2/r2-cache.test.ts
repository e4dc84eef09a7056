// The R2 tier's store (shield/r2/r2-cache.ts): the TierCache contract every store keeps, over Miniflare's R2 (the
// local stack's) and over a bucket in a Map; then what is R2's own: an entry kept for its put's max-age, a read that
// is short or wrong discarded, a put that breaks keeping nothing, every body read to its end whether kept or not.

import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { toStoredHeaders } from '../../../shared/store/stored-entry.ts';
import { R2_PREFIX, type R2Store, R2TierCache, r2Key } from '../../../shield/r2/r2-cache.ts';
import { TIER_CACHE_CLAUSES, tierCacheViolations } from '../../shared/tier/tier-cache-contract.ts';
import { FakeR2 } from './fake-r2.ts';

const T0 = Date.parse('2026-12-04T12:00:00Z');
const URL_A = 'https://slice.tiercache.internal/a/%22v1%22/10/4/0';

let miniflare: Miniflare | undefined;
let buckets = 0;

beforeAll(async () => {
  miniflare = new Miniflare({
    modules: true,
    script: 'export default { fetch: () => new Response(null) }',
    r2Buckets: Array.from({ length: TIER_CACHE_CLAUSES.length + 1 }, (_, index) => `CONTRACT_${index}`),
  });
  await miniflare.ready;
});
afterAll(async () => {
  await miniflare?.dispose();
});

describe.each([
  [
    "Miniflare's R2 (the local stack's)",
    async () => (await (miniflare as Miniflare).getR2Bucket(`CONTRACT_${buckets++}`)) as unknown as R2Store,
  ],
  ['a bucket in a Map', async () => new FakeR2()],
] as const)('R2TierCache over %s', (_name, bucket) => {
  it(`keeps every clause of the TierCache contract (${TIER_CACHE_CLAUSES.length})`, async () => {
    expect(await tierCacheViolations(async () => new R2TierCache(await bucket(), () => T0))).toEqual([]);
  });
});

/** A clock a test moves. */
const clock = { at: T0, now: () => clock.at };

/** A response as the read path puts one: the envelope, its retention as max-age, its counted length inside. */
function entry(body: string, retentionS = 600): Response {
  const bytes = new TextEncoder().encode(body);
  const meta = { storedAt: T0, initialAge: 0, lifetime: 60, whileRevalidate: 0, ifError: 0, mustRevalidate: false };
  const headers = toStoredHeaders(new Headers({ etag: '"v1"', 'content-type': 'text/plain' }), meta, retentionS, {
    length: bytes.byteLength,
    fill: 7,
  });
  return new Response(bytes, { headers });
}

const get = (url: string): Request => new Request(url);

async function text(response: Response | undefined): Promise<string | undefined> {
  return response === undefined ? undefined : new TextDecoder().decode(await response.arrayBuffer());
}

/** A body that sends `first` and then breaks; `read` says whether its reader took everything it was sent. */
function breaking(first: string): { body: ReadableStream<Uint8Array>; pulled: () => boolean } {
  let pulled = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(first));
    },
    pull(controller) {
      pulled = true;
      controller.error(new Error('the origin went away'));
    },
  });
  return { body, pulled: () => pulled };
}

describe('R2TierCache', () => {
  it('is a miss while R2 fails its gets, said in the logs a line a minute at most', async () => {
    const bucket = new FakeR2();
    const cache = new R2TierCache(bucket, clock.now);
    clock.at = T0;
    await cache.put(get(URL_A), entry('0123456789', 600));
    bucket.failing = true;
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      expect(await cache.match(get(URL_A))).toBeUndefined();
      clock.at = T0 + 59_000;
      expect(await cache.match(get(URL_A))).toBeUndefined();
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/^tiercache r2: a get failed \(.*10001\)/);
      clock.at = T0 + 61_000;
      await cache.match(get(URL_A));
      expect(warn).toHaveBeenCalledTimes(2);
    } finally {
      warn.mockRestore();
    }
    // R2 back: the entry it kept is there.
    bucket.failing = false;
    expect(await text(await cache.match(get(URL_A)))).toBe('0123456789');
  });

  it("keeps an entry for its put's max-age, then finds nothing and removes it", async () => {
    const bucket = new FakeR2();
    const cache = new R2TierCache(bucket, clock.now);
    clock.at = T0;
    await cache.put(get(URL_A), entry('0123456789', 600));
    clock.at = T0 + 599_000;
    expect(await text(await cache.match(get(URL_A)))).toBe('0123456789');
    clock.at = T0 + 600_000;
    expect(await cache.match(get(URL_A))).toBeUndefined();
    expect(bucket.objects.size).toBe(0);
  });

  it('keeps each entry as one object under its prefix, its headers and counted length in its metadata', async () => {
    const bucket = new FakeR2();
    clock.at = T0;
    await new R2TierCache(bucket, clock.now).put(get(URL_A), entry('0123456789'));
    const key = r2Key(URL_A) as string;
    expect(key).toBe(`${R2_PREFIX}slice.tiercache.internal/a/%22v1%22/10/4/0`);
    const kept = bucket.objects.get(key);
    expect(kept?.bytes).toEqual(new TextEncoder().encode('0123456789'));
    expect(kept?.customMetadata).toMatchObject({ status: '200', length: '10', expires: String(T0 + 600_000) });
    const found = await new R2TierCache(bucket, clock.now).match(get(URL_A));
    expect(found?.headers.get('etag')).toBe('"v1"');
    expect(found?.headers.get('content-length')).toBe('10');
  });

  it('discards an object whose size is not the one counted in, and removes it: the next tier is asked', async () => {
    const bucket = new FakeR2();
    const cache = new R2TierCache(bucket, clock.now);
    clock.at = T0;
    await cache.put(get(URL_A), entry('0123456789'));
    bucket.corrupt(r2Key(URL_A) as string, new TextEncoder().encode('01234'));
    expect(await cache.match(get(URL_A))).toBeUndefined();
    expect(bucket.objects.size).toBe(0);
  });

  it('never hands on a read that breaks part-way as a shorter body: its reader sees the failure', async () => {
    const bucket = new FakeR2();
    const cache = new R2TierCache(bucket, clock.now);
    clock.at = T0;
    await cache.put(get(URL_A), entry('0123456789'));
    bucket.cutReadsAfter = 4;
    const found = await cache.match(get(URL_A));
    expect(found?.headers.get('content-length')).toBe('10');
    await expect(found?.arrayBuffer()).rejects.toThrow();
  });

  it('keeps nothing of a put whose body breaks, rejecting; the object before it stays', async () => {
    const bucket = new FakeR2();
    const cache = new R2TierCache(bucket, clock.now);
    clock.at = T0;
    await cache.put(get(URL_A), entry('0123456789'));
    const broken = breaking('abc');
    const headers = entry('0123456789').headers;
    await expect(cache.put(get(URL_A), new Response(broken.body, { headers }))).rejects.toThrow();
    expect(await text(await cache.match(get(URL_A)))).toBe('0123456789');
  });

  it('rejects a body shorter than it claims, keeping nothing', async () => {
    const bucket = new FakeR2();
    const cache = new R2TierCache(bucket, clock.now);
    const headers = entry('0123456789').headers;
    await expect(cache.put(get(URL_A), new Response('01234', { headers }))).rejects.toThrow(/5 of 10/);
    expect(bucket.objects.size).toBe(0);
  });

  it("reads to its end every body it does not keep (no-store, no max-age, a key past R2's limit)", async () => {
    const bucket = new FakeR2();
    const cache = new R2TierCache(bucket, clock.now);
    const long = `https://r2.tiercache.internal/${'x'.repeat(1100)}`;
    for (const [url, headers] of [
      [URL_A, { 'cache-control': 'no-store' }],
      [URL_A, { 'content-type': 'text/plain' }],
      [long, { 'cache-control': 'max-age=60' }],
    ] as const) {
      let ended = false;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('some bytes'));
        },
        pull(controller) {
          ended = true;
          controller.close();
        },
      });
      await cache.put(get(url), new Response(body, { headers }));
      expect(ended).toBe(true);
      expect(await cache.match(get(url))).toBeUndefined();
    }
    expect(bucket.operations.put).toBe(0);
  });

  it('counts a body whose length nothing says before its put, and keeps it with that length', async () => {
    const bucket = new FakeR2();
    const cache = new R2TierCache(bucket, clock.now);
    clock.at = T0;
    await cache.put(get(URL_A), new Response('unannounced', { headers: { 'cache-control': 'max-age=60' } }));
    const found = await cache.match(get(URL_A));
    expect(found?.headers.get('content-length')).toBe('11');
    expect(await text(found)).toBe('unannounced');
  });
});
