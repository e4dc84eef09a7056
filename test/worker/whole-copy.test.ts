import { describe, expect, it } from 'vitest';
import { type ObjectMeta, sliceEntryHeaders } from '../../shared/slices/object-meta.ts';
import { sliceBytes, sliceKey, wholeCopyKey } from '../../shared/slices/slice-plan.ts';
import { type EntryMeta, toStoredHeaders } from '../../shared/store/stored-entry.ts';
import { isFilling } from '../../shared/tier/collapse.ts';
import type { ObjectRead, Upstream } from '../../shared/tier/ports.ts';
import type { SlicedObject } from '../../shared/tier/resolved.ts';
import { store } from '../../shared/tier/tier-cache.ts';
import { copyWhole, storedWholeCopy } from '../../worker/whole-copy.ts';
import { FILL_LIMITS } from '../shared/tier/fakes.ts';
import { type PlatformCache, platformCache } from './platform-cache.ts';

const SLICE = 1024;
const ENTRY: EntryMeta = {
  storedAt: Date.parse('2026-11-30T12:00:00Z'),
  initialAge: 0,
  lifetime: 3600,
  whileRevalidate: 60,
  ifError: 86400,
  mustRevalidate: false,
};
const NO_UPSTREAM: Upstream = {
  slices: () => Promise.reject(new Error('a whole copy is made from this tier alone')),
  head: () => Promise.reject(new Error('a whole copy is made from this tier alone')),
};

let objects = 0;

/** An object of `size` bytes in 1 KiB slices at its own key, and a read of it at this tier. */
function setUp(size: number): {
  cache: PlatformCache;
  read: ObjectRead;
  sliced: SlicedObject;
  bytes: Uint8Array<ArrayBuffer>;
  pending: Promise<unknown>[];
} {
  const bytes = Uint8Array.from({ length: size }, (_, i) => (i * 7 + size) % 251);
  const meta: ObjectMeta = {
    size,
    sliceSize: SLICE,
    etag: `"v${size}"`,
    headers: new Headers({ 'content-type': 'video/mp4' }),
  };
  const cache = platformCache();
  const pending: Promise<unknown>[] = [];
  const read: ObjectRead = {
    cache,
    collapseWait: 1000,
    fills: FILL_LIMITS,
    key: `https://edge.test/object-${++objects}`,
    defaultTtl: 3600,
    negativeTtl: 60,
    staleDefaults: { whileRevalidate: 60, ifError: 86400 },
    now: () => ENTRY.storedAt,
    waitUntil: (promise) => void pending.push(promise),
    upstream: NO_UPSTREAM,
  };
  const sliced: SlicedObject = {
    kind: 'sliced',
    meta,
    age: 0,
    report: { hit: true },
    originAt: ENTRY.storedAt,
    upstreamHeaders: undefined,
    entry: ENTRY,
    prefetched: new Map(),
    inRange: true,
  };
  return { cache, read, sliced, bytes, pending };
}

async function storeSlices(
  cache: PlatformCache,
  read: ObjectRead,
  meta: ObjectMeta,
  bytes: Uint8Array<ArrayBuffer>,
  skip?: number,
): Promise<void> {
  for (let index = 0; index * SLICE < meta.size; index++) {
    if (index === skip) continue;
    const range = sliceBytes(index, SLICE, meta.size);
    const body = new Blob([bytes.slice(range.start, range.end + 1)]).stream();
    await store(cache, sliceKey(read.key, meta, SLICE, index), {
      status: 200,
      headers: sliceEntryHeaders(index, range.end - range.start + 1),
      body,
      meta: ENTRY,
      retention: 3600,
      length: range.end - range.start + 1,
    });
  }
}

async function readAll(body: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(body).arrayBuffer());
}

describe('the whole copy of a sliced object', () => {
  it('is made from the slices stored here, once, and read back byte for byte', async () => {
    const { cache, read, sliced, bytes, pending } = setUp(3 * SLICE + 100);
    await storeSlices(cache, read, sliced.meta, bytes);
    const budget = { remaining: 100 };
    expect(await storedWholeCopy(read, sliced, budget)).toBeUndefined();

    copyWhole(read, sliced, budget);
    // A second full read while the first copy is under way does not start another.
    copyWhole(read, sliced, budget);
    expect(budget.remaining).toBe(100 - 1 - (4 + 1));
    await Promise.all(pending);
    expect(isFilling(wholeCopyKey(read.key, sliced.meta, SLICE))).toBe(false);

    const copy = await storedWholeCopy(read, sliced, budget);
    expect(copy).toBeDefined();
    expect(await readAll(copy as ReadableStream<Uint8Array>)).toEqual(bytes);
  });

  it('stores nothing when a slice is missing', async () => {
    const { cache, read, sliced, bytes, pending } = setUp(3 * SLICE + 100);
    await storeSlices(cache, read, sliced.meta, bytes, 2);
    copyWhole(read, sliced, { remaining: 100 });
    await Promise.all(pending);
    expect(cache.entries.has(wholeCopyKey(read.key, sliced.meta, SLICE))).toBe(false);
    expect(isFilling(wholeCopyKey(read.key, sliced.meta, SLICE))).toBe(false);
  });

  it('stores nothing when a slice holds the wrong bytes count, and never answers an entry that is not the copy', async () => {
    const { cache, read, sliced, bytes, pending } = setUp(2 * SLICE);
    await storeSlices(cache, read, sliced.meta, bytes);
    const short = new Blob([bytes.slice(0, SLICE - 1)]).stream();
    // As if stored by a careless writer: the store itself would refuse a short body.
    await cache.put(
      new Request(sliceKey(read.key, sliced.meta, SLICE, 1)),
      new Response(short, { headers: toStoredHeaders(sliceEntryHeaders(1, SLICE), ENTRY, 3600) }),
    );
    copyWhole(read, sliced, { remaining: 100 });
    await Promise.all(pending);
    const key = wholeCopyKey(read.key, sliced.meta, SLICE);
    expect(cache.entries.has(key)).toBe(false);

    // Something else at the copy's key (a slice's marker): not taken for the copy.
    await store(cache, key, {
      status: 200,
      headers: sliceEntryHeaders(0, 2 * SLICE),
      body: new Blob([bytes]).stream(),
      meta: ENTRY,
      retention: 3600,
      length: 2 * SLICE,
    });
    expect(await storedWholeCopy(read, sliced, { remaining: 1 })).toBeUndefined();
  });

  it('starts only with budget for a lookup per slice and the put', async () => {
    const { cache, read, sliced, bytes, pending } = setUp(4 * SLICE);
    await storeSlices(cache, read, sliced.meta, bytes);
    // Four lookups and a put: 5.
    const budget = { remaining: 4 };
    copyWhole(read, sliced, budget);
    expect(budget.remaining).toBe(4);
    expect(pending).toEqual([]);
    expect(await storedWholeCopy(read, sliced, { remaining: 0 })).toBeUndefined();
    expect(cache.lookups).toBe(0);
  });
});
