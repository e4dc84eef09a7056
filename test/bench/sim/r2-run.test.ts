// The R2 tier's run of the topology runner (`npm run sim --r2-tier`): the small Cache API the harness gives the tiers
// (bench/sim/r2/bounded-caches.ts), the counted bucket (r2-tally.ts) and the month the report prices
// (report/r2-summary.ts).

import { describe, expect, it } from 'vitest';
import { BoundedCache, type CacheLike } from '../../../bench/sim/r2/bounded-caches.ts';
import { countedBucket, tally } from '../../../bench/sim/r2/r2-tally.ts';
import { r2Summary } from '../../../bench/sim/report/r2-summary.ts';
import { R2_PREFIX } from '../../../shield/r2/r2-cache.ts';
import { FakeR2 } from '../../shield/r2/fake-r2.ts';

/** A cache in a Map: what the bounded one is put in front of. */
class MapCache implements CacheLike {
  readonly entries = new Map<string, Response>();
  async match(request: Request) {
    return this.entries.get(request.url)?.clone();
  }
  async put(request: Request, response: Response) {
    this.entries.set(request.url, response);
  }
  async delete(request: Request) {
    return this.entries.delete(request.url);
  }
}

const entry = (bytes: number): Response =>
  new Response(null, {
    headers: { 'x-tiercache-entry': `stored=1, age=0, life=60, swr=0, sie=0, mr=0, len=${bytes}` },
  });
const at = (path: string): Request => new Request(`https://edge.test${path}`);

describe('BoundedCache: a Cache API that evicts', () => {
  it('deletes the entries used longest ago once past its budget (bodies and 1 KiB of headers each)', async () => {
    const inner = new MapCache();
    const cache = new BoundedCache(inner, () => 3 * 2048);
    for (const path of ['/a', '/b', '/c']) await cache.put(at(path), entry(1024));
    // A use makes /a the newest: /b goes first.
    expect(await cache.match(at('/a'))).toBeDefined();
    await cache.put(at('/d'), entry(1024));
    expect([...inner.entries.keys()].map((url) => new URL(url).pathname).sort()).toEqual(['/a', '/c', '/d']);
    expect(cache.evicted).toBe(1);
  });

  it('keeps an entry larger than its budget alone until the next put', async () => {
    const inner = new MapCache();
    const cache = new BoundedCache(inner, () => 4096);
    await cache.put(at('/small'), entry(100));
    await cache.put(at('/large'), entry(10_000));
    expect([...inner.entries.keys()].map((url) => new URL(url).pathname)).toEqual(['/large']);
  });
});

describe("the R2 tier's tally", () => {
  it('counts each call by its class, and what the bucket holds at the end without counting its own listing', async () => {
    const bucket = new FakeR2();
    const counted = countedBucket(bucket);
    expect(countedBucket(bucket)).toBe(counted);
    await counted.put(`${R2_PREFIX}a`, new Uint8Array(10), { customMetadata: {} });
    await counted.put(`${R2_PREFIX}b`, new Uint8Array(5), { customMetadata: {} });
    // One read to its end, one whose body is let go unread, one of nothing.
    const read = (await counted.get(`${R2_PREFIX}a`)) as { body: ReadableStream };
    await new Response(read.body).arrayBuffer();
    await ((await counted.get(`${R2_PREFIX}a`)) as { body: ReadableStream }).body.cancel();
    await counted.get(`${R2_PREFIX}none`);
    await counted.head(`${R2_PREFIX}b`);
    await counted.delete(`${R2_PREFIX}b`);
    await counted.list({ prefix: '', limit: 10 });
    expect(await tally(bucket)).toEqual({
      gets: 3,
      readBytes: 10,
      heads: 1,
      puts: 2,
      lists: 1,
      deletes: 1,
      objects: 1,
      bytes: 10,
    });
  });
});

describe("the R2 tier's run, priced", () => {
  it('scales the run to a month: egress and operations by the span, what the bucket kept for the whole month', () => {
    const minute = 60_000;
    const summary = r2Summary(
      1e9,
      { gets: 100, readBytes: 0, heads: 0, puts: 10, lists: 1, deletes: 0, objects: 10, bytes: 2e9 },
      minute,
    );
    expect(summary.monthFactor).toBe(43_200);
    expect(summary.month.egressUSD).toBeCloseTo(43_200 * 1e9 * 7e-12, 9);
    expect(summary.month.storageUSD).toBeCloseTo(2 * 0.015, 9);
    expect(summary.month.operationsUSD).toBeCloseTo(11 * 43_200 * 4.5e-6 + 100 * 43_200 * 0.36e-6, 9);
    expect(summary.month.totalUSD).toBeCloseTo(
      summary.month.egressUSD + summary.month.storageUSD + summary.month.operationsUSD,
      9,
    );
    expect(r2Summary(1e9, undefined, minute).month.operationsUSD).toBe(0);
  });
});
