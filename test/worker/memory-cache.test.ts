import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexHeaders } from '../../shared/http/vary.ts';
import { manifestHeaders, sliceEntryHeaders, WHOLE_COPY } from '../../shared/slices/object-meta.ts';
import { type EntryMeta, toStoredHeaders } from '../../shared/store/stored-entry.ts';
import type { TierCache } from '../../shared/tier/tier-cache.ts';
import { MemoryCache, memoryFronted } from '../../worker/memory-cache.ts';
import { platformCache } from './platform-cache.ts';

const META: EntryMeta = {
  storedAt: Date.parse('2026-11-30T12:00:00Z'),
  initialAge: 0,
  lifetime: 3600,
  whileRevalidate: 60,
  ifError: 86400,
  mustRevalidate: false,
};
/** What MemoryCache counts for an entry besides its body. */
const OVERHEAD = 2048;

function stored(extra: Record<string, string> = {}): Headers {
  return toStoredHeaders(new Headers({ 'content-type': 'text/plain', etag: '"v1"', ...extra }), META, 3600);
}

function bytes(length: number, fill = 1): Blob {
  return new Blob([new Uint8Array(length).fill(fill)]);
}

describe('MemoryCache', () => {
  it('keeps a stored response with its envelope unpacked once', () => {
    const memory = new MemoryCache({ budget: 1 << 20, maxObject: 1 << 16 });
    expect(memory.set('https://a/x', 200, stored({ 'content-length': '5' }), bytes(5))).toBe(true);
    const entry = memory.get('https://a/x');
    expect(entry?.whole).toBe(true);
    expect(entry?.meta).toEqual(META);
    expect(entry?.headers.get('etag')).toBe('"v1"');
    expect(entry?.headers.has('x-tiercache-entry')).toBe(false);
    expect(entry?.stored.has('x-tiercache-entry')).toBe(true);
    expect(memory.bytes).toBe(5 + OVERHEAD);
  });

  it('answers only whole 200s straight from memory: not a 404, not a sliced object’s manifest', () => {
    const memory = new MemoryCache({ budget: 1 << 20, maxObject: 1 << 16 });
    memory.set('https://a/missing', 404, stored(), bytes(9));
    const manifest = manifestHeaders({
      size: 64 << 20,
      sliceSize: 8 << 20,
      etag: '"v1"',
      headers: new Headers({ etag: '"v1"', 'content-type': 'video/mp4' }),
    });
    memory.set('https://a/big.mp4', 200, toStoredHeaders(manifest, META, 3600), bytes(0));
    expect(memory.get('https://a/missing')?.whole).toBe(false);
    expect(memory.get('https://a/big.mp4')?.whole).toBe(false);
  });

  it('holds only object entries: never a slice, a whole copy of a sliced object, or a Vary index', () => {
    const memory = new MemoryCache({ budget: 1 << 20, maxObject: 1 << 16 });
    const slice = toStoredHeaders(sliceEntryHeaders(3, 1000), META, 3600);
    const wholeCopy = toStoredHeaders(sliceEntryHeaders(WHOLE_COPY, 1000), META, 3600);
    const index = toStoredHeaders(indexHeaders(['accept-language']), META, 3600);
    expect(memory.set('https://slice.tiercache.internal/x/3', 200, slice, bytes(1000))).toBe(false);
    expect(memory.set('https://slice.tiercache.internal/x/whole', 200, wholeCopy, bytes(1000))).toBe(false);
    expect(memory.set('https://a/negotiated.html', 200, index, bytes(0))).toBe(false);
    expect(memory.size).toBe(0);
    expect(memory.bytes).toBe(0);
    // An object's own entries are held: a whole response, a manifest, a variant of one that varies.
    expect(memory.set('https://a/x', 200, stored(), bytes(10))).toBe(true);
    expect(
      memory.set(
        'https://a/big.mp4',
        200,
        toStoredHeaders(
          manifestHeaders({ size: 64 << 20, sliceSize: 8 << 20, etag: '"v1"', headers: new Headers({ etag: '"v1"' }) }),
          META,
          3600,
        ),
        bytes(0),
      ),
    ).toBe(true);
    expect(
      memory.set(
        'https://vary.tiercache.internal/a/accept-language=fr',
        200,
        stored({ vary: 'Accept-Language' }),
        bytes(10),
      ),
    ).toBe(true);
  });

  it('refuses bodies over the object limit, and responses that are not a tier’s envelope', () => {
    const memory = new MemoryCache({ budget: 1 << 20, maxObject: 100 });
    expect(memory.admits(100)).toBe(true);
    expect(memory.admits(101)).toBe(false);
    expect(memory.set('https://a/big', 200, stored(), bytes(101))).toBe(false);
    expect(memory.set('https://a/raw', 200, new Headers({ 'content-type': 'text/plain' }), bytes(10))).toBe(false);
    expect(memory.size).toBe(0);
    expect(memory.bytes).toBe(0);
  });

  it('replaces an entry under the same key, counting it once', () => {
    const memory = new MemoryCache({ budget: 1 << 20, maxObject: 1 << 16 });
    memory.set('https://a/x', 200, stored(), bytes(10));
    memory.set('https://a/x', 200, stored({ etag: '"v2"' }), bytes(20));
    expect(memory.size).toBe(1);
    expect(memory.bytes).toBe(20 + OVERHEAD);
    expect(memory.get('https://a/x')?.headers.get('etag')).toBe('"v2"');
  });

  it('evicts the oldest entry not used since the sweep last passed it (CLOCK)', () => {
    const size = 1000;
    const memory = new MemoryCache({ budget: 3 * (size + OVERHEAD), maxObject: size });
    for (const name of ['a', 'b', 'c']) memory.set(`https://h/${name}`, 200, stored(), bytes(size));
    memory.get('https://h/a');
    memory.set('https://h/d', 200, stored(), bytes(size));
    expect(memory.get('https://h/b')).toBeUndefined();
    for (const name of ['a', 'c', 'd']) expect(memory.get(`https://h/${name}`), name).toBeDefined();
    expect(memory.bytes).toBe(3 * (size + OVERHEAD));
  });

  it('never holds more than its budget, and counts exactly what it holds, whatever the operations', () => {
    const key = fc.integer({ min: 0, max: 7 }).map((n) => `https://h/${n}`);
    const operation = fc.oneof(
      fc.record({ op: fc.constant('set' as const), key, length: fc.integer({ min: 0, max: 6000 }) }),
      fc.record({ op: fc.constant('get' as const), key }),
      fc.record({ op: fc.constant('delete' as const), key }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: OVERHEAD, max: 20_000 }),
        fc.integer({ min: 0, max: 5000 }),
        fc.array(operation, { maxLength: 60 }),
        (budget, maxObject, operations) => {
          const memory = new MemoryCache({ budget, maxObject });
          const lengths = new Map<string, number>();
          for (const operation of operations) {
            if (operation.op === 'set') {
              const kept = memory.set(operation.key, 200, stored(), bytes(operation.length));
              expect(kept).toBe(operation.length <= maxObject && operation.length + OVERHEAD <= budget);
            } else if (operation.op === 'get') memory.get(operation.key);
            else memory.delete(operation.key);
            expect(memory.bytes).toBeLessThanOrEqual(budget);
            lengths.clear();
            for (let n = 0; n < 8; n++) {
              const entry = memory.get(`https://h/${n}`);
              if (entry !== undefined) lengths.set(`https://h/${n}`, entry.body.size);
            }
            expect(memory.size).toBe(lengths.size);
            expect(memory.bytes).toBe([...lengths.values()].reduce((sum, length) => sum + length + OVERHEAD, 0));
          }
        },
      ),
    );
  });
});

describe('memoryFronted', () => {
  const key = 'https://edge.example/a.txt';

  async function withStored(cache: TierCache, body: string, extra: Record<string, string> = {}): Promise<void> {
    await cache.put(new Request(key), new Response(body, { headers: stored(extra) }));
  }

  it('copies a small stored response on its first hit and answers later lookups from memory', async () => {
    const platform = platformCache();
    const memory = new MemoryCache({ budget: 1 << 20, maxObject: 1 << 10 });
    const cache = memoryFronted(platform, memory);
    await withStored(platform, 'hello');
    for (let i = 0; i < 3; i++) {
      const found = await cache.match(new Request(key));
      expect(await found?.text()).toBe('hello');
      expect(found?.headers.get('etag')).toBe('"v1"');
    }
    expect(platform.lookups).toBe(1);
    // Gone from the platform cache (evicted there), still answered: memory holds a valid copy.
    platform.entries.clear();
    expect(await (await cache.match(new Request(key)))?.text()).toBe('hello');
  });

  it('leaves responses over the object limit in the platform cache only', async () => {
    const platform = platformCache();
    const memory = new MemoryCache({ budget: 1 << 20, maxObject: 4 });
    const cache = memoryFronted(platform, memory);
    await withStored(platform, 'hello');
    expect(await (await cache.match(new Request(key)))?.text()).toBe('hello');
    expect(await (await cache.match(new Request(key)))?.text()).toBe('hello');
    expect(platform.lookups).toBe(2);
    expect(memory.size).toBe(0);
  });

  it('drops the copy when the entry is stored again, so a new version is read from the platform cache', async () => {
    const platform = platformCache();
    const memory = new MemoryCache({ budget: 1 << 20, maxObject: 1 << 10 });
    const cache = memoryFronted(platform, memory);
    await withStored(platform, 'v1');
    await cache.match(new Request(key));
    await withStored(cache, 'v2', { etag: '"v2"' });
    expect(memory.size).toBe(0);
    const found = await cache.match(new Request(key));
    expect(await found?.text()).toBe('v2');
    expect(found?.headers.get('etag')).toBe('"v2"');
  });

  it('drops the copy on delete, and says whether either layer had the entry', async () => {
    const platform = platformCache();
    const memory = new MemoryCache({ budget: 1 << 20, maxObject: 1 << 10 });
    const cache = memoryFronted(platform, memory);
    await withStored(platform, 'hello');
    await cache.match(new Request(key));
    platform.entries.clear();
    expect(await cache.delete(new Request(key))).toBe(true);
    expect(await cache.match(new Request(key))).toBeUndefined();
    expect(await cache.delete(new Request(key))).toBe(false);
  });

  it('answers slices and Vary indexes from the platform cache every time, never copying them into memory', async () => {
    const platform = platformCache();
    const memory = new MemoryCache({ budget: 1 << 20, maxObject: 1 << 16 });
    const cache = memoryFronted(platform, memory);
    const sliceKey = 'https://slice.tiercache.internal/a/%22v1%22/3000/1000/0';
    const indexKey = 'https://edge.example/negotiated.html';
    await platform.put(
      new Request(sliceKey),
      new Response(new Uint8Array(1000).fill(7), { headers: toStoredHeaders(sliceEntryHeaders(0, 1000), META, 3600) }),
    );
    await platform.put(
      new Request(indexKey),
      new Response(null, { headers: toStoredHeaders(indexHeaders(['accept-language']), META, 3600) }),
    );
    for (let i = 0; i < 2; i++) {
      const slice = await cache.match(new Request(sliceKey));
      expect(slice?.headers.get('x-tiercache-slice')).toBe('0');
      expect(new Uint8Array(await slice!.arrayBuffer())).toEqual(new Uint8Array(1000).fill(7));
      expect((await cache.match(new Request(indexKey)))?.headers.get('x-tiercache-vary')).toBe('accept-language');
    }
    expect(memory.size).toBe(0);
    expect(platform.lookups).toBe(4);
  });

  it('answers a miss as a miss', async () => {
    const cache = memoryFronted(platformCache(), new MemoryCache({ budget: 1 << 20, maxObject: 1 << 10 }));
    expect(await cache.match(new Request(key))).toBeUndefined();
  });
});
