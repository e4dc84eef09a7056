// The R2 tier's bucket counted (shield/r2/counted-bucket.ts): under the tier's store (r2-cache.ts) over a bucket in a
// Map that counts its own calls, the tally says exactly what R2 was asked and did, the storage each put commits to, and
// which calls are told on for a flush of their own.

import { describe, expect, it } from 'vitest';
import { R2Tally } from '../../../shared/observe/r2-tally.ts';
import { toStoredHeaders } from '../../../shared/store/stored-entry.ts';
import { countedBucket } from '../../../shield/r2/counted-bucket.ts';
import { R2_PREFIX, R2TierCache } from '../../../shield/r2/r2-cache.ts';
import { newSweep, sweep } from '../../../shield/r2/r2-sweep.ts';
import { FakeR2 } from './fake-r2.ts';

const T0 = Date.parse('2026-12-04T12:00:00Z');
const URL_A = 'https://slice.tiercache.internal/a/%22v1%22/10/4/0';
const URL_B = 'https://slice.tiercache.internal/b/%22v1%22/10/4/0';

/** A response as the read path puts one: its retention as max-age, its counted length inside. */
function entry(size: number, retentionS: number): Response {
  const meta = { storedAt: T0, initialAge: 0, lifetime: 60, whileRevalidate: 0, ifError: 0, mustRevalidate: false };
  const headers = toStoredHeaders(new Headers({ etag: '"v1"' }), meta, retentionS, { length: size, fill: 7 });
  return new Response(new Uint8Array(size), { headers });
}

function counted(bucket = new FakeR2()) {
  const clock = { at: T0, now: () => clock.at };
  const tally = new R2Tally();
  let told = 0;
  const store = countedBucket(bucket, tally, clock.now, () => void told++);
  return { bucket, store, tally, clock, cache: new R2TierCache(store, clock.now), told: () => told };
}

describe('countedBucket', () => {
  it('counts every get, head, put and list R2 answered, as the bucket saw them, and no delete (they are free)', async () => {
    const { bucket, store, tally, clock, cache } = counted();
    await cache.put(new Request(URL_A), entry(1000, 600));
    await cache.put(new Request(URL_B), entry(10, 60));
    expect(await cache.match(new Request(URL_A))).toBeDefined();
    // A miss is a get all the same.
    expect(await cache.match(new Request(`${URL_A}1`))).toBeUndefined();
    expect(await cache.delete(new Request(URL_B))).toBe(true);
    clock.at += 3_600_000;
    await sweep(store, newSweep(), clock.at);
    const counts = tally.take();
    expect(counts).toEqual({
      r2Gets: bucket.operations.get + bucket.operations.head,
      r2Puts: bucket.operations.put,
      r2PutBytes: 1010,
      r2Lists: bucket.operations.list,
      // Each put's bytes for the retention it was put with.
      r2StoredByteSeconds: 1000 * 600 + 10 * 60,
    });
    expect(counts).toMatchObject({ r2Gets: 3, r2Puts: 2, r2Lists: 1 });
    // The walk deleted A (expired by then): not counted.
    expect(bucket.operations.delete).toBeGreaterThan(0);
  });

  it('counts the storage from when R2 took the put to its expiry, and none for one already past it', async () => {
    const { store, tally, clock } = counted();
    const metadata = (expires: number) => ({ headers: '[]', status: '200', length: '100', expires: String(expires) });
    await store.put(`${R2_PREFIX}a`, new Uint8Array(100), { customMetadata: metadata(clock.at + 30_000) });
    await store.put(`${R2_PREFIX}b`, new Uint8Array(100), { customMetadata: metadata(clock.at - 1) });
    expect(tally.take()).toMatchObject({ r2Puts: 2, r2PutBytes: 200, r2StoredByteSeconds: 100 * 30 });
  });

  it('counts nothing of a put R2 refused', async () => {
    const bucket = new FakeR2();
    bucket.put = async () => Promise.reject(new Error('R2 is unavailable'));
    const { cache, tally } = counted(bucket);
    await expect(cache.put(new Request(URL_A), entry(100, 600))).rejects.toThrow();
    expect(tally.take()).toMatchObject({ r2Puts: 0, r2PutBytes: 0, r2StoredByteSeconds: 0 });
  });

  it("tells of each put, list and head (work that may end after its request's record), not of a lookup's get", async () => {
    const { cache, store, told } = counted();
    await cache.match(new Request(URL_A));
    expect(told()).toBe(0);
    await cache.put(new Request(URL_A), entry(10, 60));
    expect(told()).toBe(1);
    await sweep(store, newSweep(), T0);
    expect(told()).toBe(2);
    await cache.delete(new Request(URL_A));
    expect(told()).toBe(3);
  });
});
