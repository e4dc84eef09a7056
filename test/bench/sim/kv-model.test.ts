// The modelled KV namespace (bench/sim/kv-model.ts): what a location sees of a write and when, KV's list order and
// pages, its limits, and the operations counted per isolate.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareUtf8, type KvCaller, KvModel } from '../../../bench/sim/kv-model.ts';

const DELAY = 60_000;
const AMS_1: KvCaller = { location: 'ams', isolate: 'edge-1' };
const AMS_2: KvCaller = { location: 'ams', isolate: 'edge-2' };
const SIN: KvCaller = { location: 'sin', isolate: 'edge-1' };

describe('the modelled KV namespace', () => {
  it('shows a write at once at the location that made it, to each of its isolates', () => {
    const kv = new KvModel(DELAY);
    kv.put(AMS_1, 'k', 'v1', { metadata: { n: 1 } }, 1000);
    expect(kv.get(AMS_1, 'k', 1000)).toEqual({ value: 'v1', metadata: { n: 1 } });
    expect(kv.get(AMS_2, 'k', 1000)?.value).toBe('v1');
  });

  it('shows a write at another location only once the propagation delay has passed', () => {
    const kv = new KvModel(DELAY);
    kv.put(AMS_1, 'k', 'v1', {}, 1000);
    expect(kv.get(SIN, 'k', 1000 + DELAY - 1)).toBeNull();
    expect(kv.get(SIN, 'k', 1000 + DELAY)?.value).toBe('v1');
  });

  it('keeps answering the older value elsewhere while a newer one propagates', () => {
    const kv = new KvModel(DELAY);
    kv.put(AMS_1, 'k', 'v1', {}, 0);
    kv.put(AMS_1, 'k', 'v2', {}, 2 * DELAY);
    expect(kv.get(SIN, 'k', 2 * DELAY + 1)?.value).toBe('v1');
    expect(kv.get(AMS_2, 'k', 2 * DELAY + 1)?.value).toBe('v2');
    expect(kv.get(SIN, 'k', 3 * DELAY)?.value).toBe('v2');
  });

  it('propagates a delete as a write: gone at once where made, later elsewhere', () => {
    const kv = new KvModel(DELAY);
    kv.put(AMS_1, 'k', 'v1', {}, 0);
    kv.delete(SIN, 'k', DELAY);
    expect(kv.get(SIN, 'k', DELAY)).toBeNull();
    expect(kv.get(AMS_1, 'k', DELAY + 1)?.value).toBe('v1');
    expect(kv.get(AMS_1, 'k', 2 * DELAY)).toBeNull();
  });

  it('honours expirationTtl on its own clock, and refuses one under 60 s as KV does', () => {
    const kv = new KvModel(0);
    kv.put(AMS_1, 'k', 'v', { expirationTtl: 60 }, 0);
    expect(kv.get(AMS_1, 'k', 59_999)?.value).toBe('v');
    expect(kv.get(AMS_1, 'k', 60_000)).toBeNull();
    expect(kv.list(AMS_1, {}, 60_000).keys).toEqual([]);
    expect(() => kv.put(AMS_1, 'k', 'v', { expirationTtl: 59 }, 0)).toThrow(/≥ 60 s/);
  });

  it('lists a key with its metadata and expiration, and refuses metadata over 1,024 bytes', () => {
    const kv = new KvModel(0);
    kv.put(AMS_1, 'a', 'v', { expirationTtl: 120, metadata: { tag: 'x' } }, 1000);
    expect(kv.list(AMS_1, { prefix: 'a' }, 1000)).toEqual({
      keys: [{ name: 'a', expiration: 121, metadata: { tag: 'x' } }],
      list_complete: true,
    });
    expect(() => kv.put(AMS_1, 'b', 'v', { metadata: 'x'.repeat(1100) }, 0)).toThrow(/1024 bytes/);
  });

  it('refuses a list limit over 1,000 and a cursor it did not give', () => {
    const kv = new KvModel(0);
    expect(() => kv.list(AMS_1, { limit: 1001 }, 0)).toThrow(/limit/);
    expect(() => kv.list(AMS_1, { cursor: 'made-up' }, 0)).toThrow(/cursor/);
  });

  it('lists every visible key with the prefix once, in UTF-8 byte order, however it is paged', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6, unit: 'binary' }), { maxLength: 40 }),
        fc.integer({ min: 1, max: 7 }),
        fc.constantFrom('', 'a', 'é'),
        (names, limit, prefix) => {
          const kv = new KvModel(0);
          for (const name of names) kv.put(AMS_1, name, 'v', {}, 0);
          const seen: string[] = [];
          let cursor: string | undefined;
          for (let page = 0; page <= names.length + 1; page++) {
            const answer = kv.list(AMS_1, { prefix, limit, ...(cursor === undefined ? {} : { cursor }) }, 0);
            expect(answer.keys.length).toBeLessThanOrEqual(limit);
            seen.push(...answer.keys.map((key) => key.name));
            if (answer.list_complete) break;
            cursor = answer.cursor;
          }
          expect(seen).toEqual(names.filter((name) => name.startsWith(prefix)).sort(compareUtf8));
        },
      ),
    );
  });

  it('orders keys by their UTF-8 bytes, not by UTF-16 code units', () => {
    // U+FF61 is one UTF-16 unit above the surrogates of U+1F600, but its UTF-8 bytes (EF …) sort below F0 ….
    expect(['\u{1F600}', '\uFF61'].sort(compareUtf8)).toEqual(['\uFF61', '\u{1F600}']);
  });

  it('counts each operation once, per calling isolate, a delete apart from a write', () => {
    const kv = new KvModel(DELAY);
    kv.put(AMS_1, 'k', 'v', {}, 0);
    kv.get(AMS_1, 'k', 0);
    kv.get(AMS_2, 'k', 0);
    kv.list(SIN, {}, 0);
    kv.delete(SIN, 'k', 0);
    expect(kv.totals()).toEqual({ reads: 2, writes: 1, deletes: 1, lists: 1 });
    expect(kv.byIsolate()).toEqual([
      { location: 'ams', isolate: 'edge-1', reads: 1, writes: 1, deletes: 0, lists: 0 },
      { location: 'ams', isolate: 'edge-2', reads: 1, writes: 0, deletes: 0, lists: 0 },
      { location: 'sin', isolate: 'edge-1', reads: 0, writes: 0, deletes: 1, lists: 1 },
    ]);
  });
});
