import { beforeEach, describe, expect, it } from 'vitest';
import { MAX_RECORDS, type PurgeRecord, purgedBy, RECORD_LIFETIME_MS } from '../../../shared/purge/purge-rules.ts';
import {
  forgetPurgeCopy,
  type PurgeKv,
  purgeList,
  REFRESH_MS,
  recordPurges,
  takeKvOperations,
} from '../../../shared/purge/purge-store.ts';

const T0 = 1_800_000_000_000;

/** Workers KV as the purge list uses it: keys listed in order, at most `limit`, expired ones gone. */
class MemoryKv implements PurgeKv {
  readonly entries = new Map<string, { metadata: unknown; expires: number }>();
  now = T0;
  async put(key: string, _value: string, options: { expirationTtl: number; metadata: unknown }): Promise<void> {
    this.entries.set(key, { metadata: options.metadata, expires: this.now + options.expirationTtl * 1000 });
  }
  async list({
    prefix,
    limit,
  }: {
    prefix: string;
    limit: number;
  }): Promise<{ keys: { name: string; metadata?: unknown }[]; list_complete: boolean }> {
    const names = [...this.entries]
      .filter(([name, entry]) => name.startsWith(prefix) && entry.expires > this.now)
      .map(([name]) => name)
      .sort();
    return {
      keys: names.slice(0, limit).map((name) => ({ name, metadata: this.entries.get(name)?.metadata })),
      list_complete: names.length <= limit,
    };
  }
}

const entry = (originAt: number) => ({ meta: { storedAt: originAt, originAt }, headers: new Headers() });
/** `count` URL purges of `/n/<i>`, made one ms apart from `first` on. */
const purges = (count: number, first: number): PurgeRecord[] =>
  Array.from({ length: count }, (_, i) => ({ kind: 'url', value: `/n/${i}`, at: first + i }));

let kv: MemoryKv;
beforeEach(() => {
  kv = new MemoryKv();
  forgetPurgeCopy();
  takeKvOperations();
});

describe('the KV requests an isolate makes on the purge list (what the stats page prices)', () => {
  it('counts one list request per re-read, at most one per REFRESH_MS however many requests ask, and one write per record', async () => {
    await Promise.all([purgeList(kv, T0), purgeList(kv, T0), purgeList(kv, T0 + REFRESH_MS - 1)]);
    await purgeList(kv, T0 + REFRESH_MS);
    await recordPurges(kv, purges(3, T0), T0 + REFRESH_MS);
    expect(takeKvOperations()).toEqual({ kvLists: 2, kvWrites: 3 });
  });

  it('counts from zero again once taken', async () => {
    await purgeList(kv, T0);
    takeKvOperations();
    expect(takeKvOperations()).toEqual({ kvLists: 0, kvWrites: 0 });
  });
});

describe('the purge list read from KV by an isolate that made none of the purges', () => {
  it(`vouches for nothing at or before the oldest record it read when more than ${MAX_RECORDS} are stored`, async () => {
    await recordPurges(kv, [{ kind: 'prefix', value: '/docs/', at: T0 }], T0);
    await recordPurges(kv, purges(MAX_RECORDS, T0 + 1), T0 + MAX_RECORDS);
    forgetPurgeCopy();
    const list = await purgeList(kv, T0 + MAX_RECORDS + 1);
    expect(list.records).toHaveLength(MAX_RECORDS);
    expect(list.records.some((record) => record.kind === 'prefix')).toBe(false);
    // The prefix's record is not read, but what it purged stays purged.
    expect(purgedBy(list, '/docs/a.html')(entry(T0 - 1))).toBe(true);
    expect(purgedBy(list, '/docs/a.html')(entry(T0))).toBe(true);
    // Newer than the oldest record read: judged by the records.
    expect(purgedBy(list, '/docs/a.html')(entry(T0 + 2))).toBe(false);
  });

  it('vouches for nothing at or before a record whose metadata cannot be read', async () => {
    await recordPurges(kv, purges(3, T0), T0 + 3);
    const [broken] = [...kv.entries.keys()].sort().slice(-1);
    kv.entries.set(broken ?? '', { metadata: { kind: 'url' }, expires: Infinity });
    forgetPurgeCopy();
    const list = await purgeList(kv, T0 + 3);
    expect(list.records).toHaveLength(2);
    expect(purgedBy(list, '/elsewhere')(entry(T0))).toBe(true);
    expect(purgedBy(list, '/elsewhere')(entry(T0 + 1))).toBe(false);
  });

  it('vouches for nothing older than a record lifetime, once the records expired from KV', async () => {
    await recordPurges(kv, [{ kind: 'prefix', value: '/docs/', at: T0 }], T0);
    kv.now = T0 + RECORD_LIFETIME_MS + 1000;
    forgetPurgeCopy();
    const list = await purgeList(kv, kv.now);
    expect(list.records).toEqual([]);
    expect(purgedBy(list, '/docs/a.html')(entry(T0))).toBe(true);
    expect(purgedBy(list, '/docs/a.html')(entry(kv.now - RECORD_LIFETIME_MS + 1))).toBe(false);
  });
});

describe('the purge list an isolate keeps over time', () => {
  it(`keeps in force a purge it made once ${MAX_RECORDS} newer ones pushed it out`, async () => {
    await recordPurges(kv, [{ kind: 'prefix', value: '/docs/', at: T0 }], T0);
    for (let i = 0; i < MAX_RECORDS; i += 100) await recordPurges(kv, purges(100, T0 + 1 + i), T0 + 1 + i);
    const list = await purgeList(kv, T0 + MAX_RECORDS + REFRESH_MS);
    expect(purgedBy(list, '/docs/a.html')(entry(T0))).toBe(true);
  });

  it('keeps in force a purge whose record outlived its lifetime, read after read', async () => {
    await recordPurges(kv, [{ kind: 'prefix', value: '/docs/', at: T0 }], T0);
    let now = T0;
    for (const step of [REFRESH_MS, RECORD_LIFETIME_MS / 2, RECORD_LIFETIME_MS / 2, REFRESH_MS]) {
      now += step;
      kv.now = now;
      expect(purgedBy(await purgeList(kv, now), '/docs/a.html')(entry(T0)), `at ${now - T0} ms`).toBe(true);
    }
    expect((await purgeList(kv, now)).records).toEqual([]);
  });

  it('never lowers its floor when a later read lists fewer records', async () => {
    await recordPurges(kv, purges(MAX_RECORDS + 1, T0), T0 + MAX_RECORDS);
    const first = await purgeList(kv, T0 + MAX_RECORDS + REFRESH_MS);
    kv.entries.clear();
    const second = await purgeList(kv, T0 + MAX_RECORDS + 2 * REFRESH_MS);
    expect(second.vouchedSince).toBeGreaterThanOrEqual(first.vouchedSince);
    expect(purgedBy(second, '/elsewhere')(entry(T0))).toBe(true);
  });
});

describe('a soft record in KV', () => {
  it('is written with soft: true in its metadata and read back soft by another isolate; an old record stays hard', async () => {
    const soft: PurgeRecord = { kind: 'tag', value: 'blog', at: T0, soft: true };
    await recordPurges(kv, [soft, { kind: 'url', value: '/hard', at: T0 }], T0);
    expect([...kv.entries.values()].map((stored) => stored.metadata)).toEqual(
      expect.arrayContaining([soft, { kind: 'url', value: '/hard', at: T0 }]),
    );
    forgetPurgeCopy();
    const list = await purgeList(kv, T0 + 1);
    expect(list.records).toEqual(expect.arrayContaining([soft, { kind: 'url', value: '/hard', at: T0 }]));
    // The soft one removes nothing; the hard one does.
    expect(purgedBy(list, '/blog.html')({ ...entry(T0 - 1), headers: new Headers({ 'cache-tag': 'blog' }) })).toBe(
      false,
    );
    expect(purgedBy(list, '/hard')(entry(T0 - 1))).toBe(true);
  });
});
