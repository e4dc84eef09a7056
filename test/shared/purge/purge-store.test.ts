import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { MAX_METADATA_BYTES } from '../../../shared/purge/purge-batch.ts';
import { KV_PROPAGATION_MS, RECORDS_REACH_MS } from '../../../shared/purge/purge-bounds.ts';
import { HEAD_SETTLE_MS, SAFETY_LIST_MS } from '../../../shared/purge/purge-head.ts';
import type { PurgeKv } from '../../../shared/purge/purge-kv.ts';
import { MAX_RECORDS, type PurgeRecord, purgedBy, RECORD_LIFETIME_MS } from '../../../shared/purge/purge-rules.ts';
import { SNAPSHOT_AFTER } from '../../../shared/purge/purge-snapshot.ts';
import { PurgeStore, REFRESH_MS } from '../../../shared/purge/purge-store.ts';

const T0 = 1_800_000_000_000;

/** Workers KV as the purge list uses it: keys listed in name order, in pages, expired ones gone; what was asked counted. */
class MemoryKv implements PurgeKv {
  readonly entries = new Map<string, { value: string; metadata: unknown; expires: number }>();
  now = T0;
  readonly asked = { list: 0, get: 0, put: 0, delete: 0 };
  async put(key: string, value: string, options: { expirationTtl: number; metadata: unknown }): Promise<void> {
    this.asked.put += 1;
    expect(JSON.stringify(options.metadata ?? null).length, 'metadata within KV limit').toBeLessThanOrEqual(
      MAX_METADATA_BYTES,
    );
    this.entries.set(key, { value, metadata: options.metadata, expires: this.now + options.expirationTtl * 1000 });
  }
  async get(key: string): Promise<string | null> {
    this.asked.get += 1;
    const entry = this.entries.get(key);
    return entry === undefined || entry.expires <= this.now ? null : entry.value;
  }
  async delete(key: string): Promise<void> {
    this.asked.delete += 1;
    this.entries.delete(key);
  }
  async list({ prefix, limit, cursor }: { prefix: string; limit: number; cursor?: string }) {
    this.asked.list += 1;
    const names = [...this.entries]
      .filter(([name, entry]) => name.startsWith(prefix) && entry.expires > this.now)
      .map(([name]) => name)
      .sort();
    const from = cursor === undefined ? 0 : Number(cursor);
    const keys = names.slice(from, from + limit).map((name) => ({ name, metadata: this.entries.get(name)?.metadata }));
    const complete = from + limit >= names.length;
    return complete ? { keys, list_complete: true } : { keys, list_complete: false, cursor: String(from + limit) };
  }
}

/** KV whose reads (list and get) fail: the next `failures` of them (Infinity: all), as a KV outage makes them. */
class FailingKv extends MemoryKv {
  failures = 0;
  override async list(options: { prefix: string; limit: number; cursor?: string }) {
    this.fail();
    return super.list(options);
  }
  override async get(key: string): Promise<string | null> {
    this.fail();
    return super.get(key);
  }
  private fail(): void {
    if (this.failures <= 0) return;
    this.failures -= 1;
    throw new Error('KV GET failed: 503 Service Unavailable');
  }
}

const entry = (originAt: number, tags = '') => ({
  meta: { storedAt: originAt, originAt },
  headers: new Headers(tags === '' ? {} : { 'cache-tag': tags }),
});
/** `count` URL purges of `/n/<i>`, made one ms apart from `first` on. */
const purges = (count: number, first: number, name = 'n'): PurgeRecord[] =>
  Array.from({ length: count }, (_, i) => ({ kind: 'url', value: `/${name}/${i}`, at: first + i }));

/** A purge store of its own: another isolate's copy of the list. */
function anotherIsolate(): PurgeStore {
  return new PurgeStore();
}

let kv: FailingKv;
/** This isolate's copy. */
let store: PurgeStore;
beforeEach(() => {
  kv = new FailingKv();
  store = anotherIsolate();
});

describe('the KV requests an isolate makes on the purge list (what the stats page prices)', () => {
  it('counts one head read per re-read, at most one per REFRESH_MS however many requests ask, a list only when the head says so, and two writes per purge request (its batch, the head)', async () => {
    await Promise.all([store.purgeList(kv, T0), store.purgeList(kv, T0), store.purgeList(kv, T0 + REFRESH_MS - 1)]);
    // The head unchanged (none written) since this isolate's first list: a get, no list.
    await store.purgeList(kv, T0 + REFRESH_MS);
    await store.recordPurges(kv, purges(1000, T0), T0 + REFRESH_MS);
    expect(store.takeKvOperations()).toEqual({ kvLists: 1, kvWrites: 2, kvReads: 2 });
    expect(kv.asked).toEqual({ list: 1, get: 2, put: 2, delete: 0 });
  });

  it(`lists while the head changed or settles (${HEAD_SETTLE_MS} ms past its time, plus KV's propagation), then only every ${SAFETY_LIST_MS} ms`, async () => {
    const writer = anotherIsolate();
    await store.purgeList(kv, T0);
    await writer.recordPurges(kv, purges(1, T0 + 1, 'w'), T0 + 1);
    writer.takeKvOperations();
    store.takeKvOperations();
    let lists = 0;
    let now = T0;
    // One re-read every REFRESH_MS for five minutes.
    for (let i = 1; i <= 60; i++) {
      now = T0 + i * REFRESH_MS;
      kv.now = now;
      const before = kv.asked.list;
      await store.purgeList(kv, now);
      lists += kv.asked.list - before;
      if (i === 1) expect(lists, 'the head changed: listed at once').toBe(1);
    }
    // Listed from the change until its list was complete past the head's time and the settle margin, then once a minute.
    const settling = Math.ceil((KV_PROPAGATION_MS + HEAD_SETTLE_MS + 1) / REFRESH_MS);
    expect(lists).toBe(settling + Math.floor((now - (T0 + settling * REFRESH_MS)) / SAFETY_LIST_MS));
    expect(store.takeKvOperations()).toEqual({ kvLists: lists, kvWrites: 0, kvReads: 60 });
  });

  it('counts from zero again once taken', async () => {
    await store.purgeList(kv, T0);
    store.takeKvOperations();
    expect(store.takeKvOperations()).toEqual({ kvLists: 0, kvWrites: 0, kvReads: 0 });
  });

  it('reads a batch too large for its metadata once per isolate, and a small one never', async () => {
    await store.recordPurges(kv, purges(3, T0, 'small'), T0);
    await store.recordPurges(kv, purges(1000, T0, 'large'), T0);
    const reader = anotherIsolate();
    const first = await reader.purgeList(kv, T0 + 1);
    expect(first.records).toHaveLength(1003);
    await reader.purgeList(kv, T0 + 1 + REFRESH_MS);
    await reader.purgeList(kv, T0 + 1 + 2 * REFRESH_MS);
    // Three head reads, and a list each: the head settles (HEAD_SETTLE_MS past KV's propagation); one value read.
    expect(reader.takeKvOperations()).toEqual({ kvLists: 3, kvWrites: 0, kvReads: 3 + 1 });
  });

  it(`lists one page per re-read and reads one snapshot at start, however many purges were made (${SNAPSHOT_AFTER} batches a snapshot)`, async () => {
    // 600 purge requests a second apart, the newest ten minutes' worth at 60 a minute.
    for (let i = 0; i < 600; i++) {
      kv.now = T0 + i * 1000;
      await store.recordPurges(kv, purges(5, kv.now, `p${i}`), kv.now);
    }
    const writes = store.takeKvOperations().kvWrites;
    // A batch and a head write each (a second apart: KV takes one write a second to a key), and the snapshots.
    expect(writes).toBeGreaterThan(1200);
    expect(writes).toBeLessThan(1200 + 600 / SNAPSHOT_AFTER + 600 / SNAPSHOT_AFTER);
    const reader = anotherIsolate();
    const list = await reader.purgeList(kv, kv.now + 1);
    expect(list.records).toHaveLength(3000);
    // Only what outlived a record's lifetime is given up on.
    expect(list.vouchedSince).toBe(kv.now + 1 - RECORD_LIFETIME_MS);
    // The head, one page, the snapshot.
    expect(reader.takeKvOperations()).toEqual({ kvLists: 1, kvWrites: 0, kvReads: 2 });
    // Older snapshots are deleted once every isolate can see a newer one: those of the last few minutes stay.
    const written = kv.asked.put - 1200;
    const snapshots = [...kv.entries.keys()].filter((name) => name.split(':')[2] === 's');
    expect(written).toBeGreaterThanOrEqual(600 / SNAPSHOT_AFTER - 2);
    expect(snapshots.length).toBeGreaterThan(0);
    expect(snapshots.length).toBeLessThanOrEqual(5);
    expect(kv.asked.delete).toBe(written - snapshots.length);
  });
});

describe('an isolate re-reading as it is asked', () => {
  it('never reads a snapshot: listing what is new costs it less', async () => {
    const reader = anotherIsolate();
    for (let i = 0; i < 300; i++) {
      kv.now = T0 + i * 1000;
      await store.recordPurges(kv, purges(5, kv.now, `p${i}`), kv.now);
      if (i % 5 === 0) await reader.purgeList(kv, kv.now);
    }
    expect([...kv.entries.keys()].some((name) => name.split(':')[2] === 's')).toBe(true);
    const list = await reader.purgeList(kv, kv.now + REFRESH_MS);
    expect(list.records).toHaveLength(1500);
    const made = reader.takeKvOperations();
    // One head read and one list a re-read (the head changed at each): 60 re-reads during the purges, one after.
    expect(made.kvReads).toBe(61);
    expect(made.kvLists).toBe(61);
  });
});

describe('the purge list read from KV by an isolate that made none of the purges', () => {
  it(`vouches for nothing at or before the oldest record it dropped when more than ${MAX_RECORDS} are stored`, async () => {
    await store.recordPurges(kv, [{ kind: 'prefix', value: '/docs/', at: T0 }], T0);
    for (let i = 0; i < MAX_RECORDS; i += 1000)
      await store.recordPurges(kv, purges(1000, T0 + 1 + i, `b${i}`), T0 + 1 + i);
    store = anotherIsolate();
    const list = await store.purgeList(kv, T0 + MAX_RECORDS + 1);
    expect(list.records).toHaveLength(MAX_RECORDS);
    expect(list.records.some((record) => record.kind === 'prefix')).toBe(false);
    // The prefix's record is not kept, but what it purged stays purged.
    expect(purgedBy(list, '/docs/a.html')(entry(T0 - 1))).toBe(true);
    expect(purgedBy(list, '/docs/a.html')(entry(T0))).toBe(true);
    // Newer than the record dropped: judged by the records.
    expect(purgedBy(list, '/docs/a.html')(entry(T0 + 2))).toBe(false);
  });

  it('vouches for nothing at or before a batch whose metadata cannot be read', async () => {
    await store.recordPurges(kv, purges(2, T0, 'a'), T0 + 2);
    await store.recordPurges(kv, purges(1, T0 + 5, 'b'), T0 + 5);
    const [broken] = [...kv.entries.keys()].sort().slice(-1);
    const stored = kv.entries.get(broken ?? '');
    kv.entries.set(broken ?? '', { value: '', metadata: { b: [['url']] }, expires: stored?.expires ?? Infinity });
    store = anotherIsolate();
    const list = await store.purgeList(kv, T0 + 6);
    expect(list.records.map((record) => record.value)).toEqual(['/b/0']);
    expect(purgedBy(list, '/elsewhere')(entry(T0 + 2))).toBe(true);
    expect(purgedBy(list, '/elsewhere')(entry(T0 + 3))).toBe(false);
  });

  it('vouches for nothing at or before a large batch whose value is gone', async () => {
    await store.recordPurges(kv, purges(1000, T0, 'large'), T0 + 1000);
    for (const stored of kv.entries.values()) stored.value = '';
    store = anotherIsolate();
    const list = await store.purgeList(kv, T0 + 1001);
    expect(list.records).toEqual([]);
    expect(purgedBy(list, '/elsewhere')(entry(T0 + 1000))).toBe(true);
    expect(purgedBy(list, '/elsewhere')(entry(T0 + 1001))).toBe(false);
  });

  it('reads keys a release before batches wrote, one record in the metadata each', async () => {
    const record: PurgeRecord = { kind: 'url', value: '/old', at: T0 };
    const name = `purge:${String(9_999_999_999_999 - T0).padStart(13, '0')}:0:some-uuid`;
    kv.entries.set(name, { value: '', metadata: record, expires: Infinity });
    const list = await store.purgeList(kv, T0 + 1);
    expect(list.records).toEqual([record]);
    expect(list.vouchedSince).toBe(T0 + 1 - RECORD_LIFETIME_MS);
  });

  it('vouches for nothing older than a record lifetime, once the records expired from KV', async () => {
    await store.recordPurges(kv, [{ kind: 'prefix', value: '/docs/', at: T0 }], T0);
    kv.now = T0 + RECORD_LIFETIME_MS + 1000;
    store = anotherIsolate();
    const list = await store.purgeList(kv, kv.now);
    expect(list.records).toEqual([]);
    expect(purgedBy(list, '/docs/a.html')(entry(T0))).toBe(true);
    expect(purgedBy(list, '/docs/a.html')(entry(kv.now - RECORD_LIFETIME_MS + 1))).toBe(false);
  });

  it('reads the batches themselves when the newest snapshot it lists is gone', async () => {
    for (let i = 0; i < 2 * SNAPSHOT_AFTER; i++) {
      kv.now = T0 + i * 2000;
      await store.recordPurges(kv, purges(1, kv.now, `p${i}`), kv.now);
    }
    for (const name of [...kv.entries.keys()]) if (name.split(':')[2] === 's') kv.entries.get(name)!.value = '';
    const reader = anotherIsolate();
    const list = await reader.purgeList(kv, kv.now + 1);
    expect(list.records).toHaveLength(2 * SNAPSHOT_AFTER);
    expect(list.vouchedSince).toBe(kv.now + 1 - RECORD_LIFETIME_MS);
  });
});

describe('the purge list an isolate keeps over time', () => {
  it(`keeps in force a purge it made once ${MAX_RECORDS} newer ones pushed it out`, async () => {
    await store.recordPurges(kv, [{ kind: 'prefix', value: '/docs/', at: T0 }], T0);
    for (let i = 0; i < MAX_RECORDS; i += 1000)
      await store.recordPurges(kv, purges(1000, T0 + 1 + i, `b${i}`), T0 + 1 + i);
    const list = await store.purgeList(kv, T0 + MAX_RECORDS + REFRESH_MS);
    expect(purgedBy(list, '/docs/a.html')(entry(T0))).toBe(true);
  });

  it('keeps one record per target, the newest: a newer purge covers what an older one did', async () => {
    for (let i = 0; i < 100; i++) await store.recordPurges(kv, [{ kind: 'url', value: '/same', at: T0 + i }], T0 + i);
    const reader = anotherIsolate();
    const list = await reader.purgeList(kv, T0 + 100);
    expect(list.records).toEqual([{ kind: 'url', value: '/same', at: T0 + 99 }]);
    expect(purgedBy(list, '/same')(entry(T0 + 99))).toBe(true);
  });

  it('keeps in force a purge whose record outlived its lifetime, read after read', async () => {
    await store.recordPurges(kv, [{ kind: 'prefix', value: '/docs/', at: T0 }], T0);
    let now = T0;
    for (const step of [REFRESH_MS, RECORD_LIFETIME_MS / 2, RECORD_LIFETIME_MS / 2, REFRESH_MS]) {
      now += step;
      kv.now = now;
      expect(purgedBy(await store.purgeList(kv, now), '/docs/a.html')(entry(T0)), `at ${now - T0} ms`).toBe(true);
    }
    expect((await store.purgeList(kv, now)).records).toEqual([]);
  });

  it('never lowers its floor when a later read lists fewer records', async () => {
    await store.recordPurges(kv, purges(MAX_RECORDS + 1, T0), T0 + MAX_RECORDS);
    const first = await store.purgeList(kv, T0 + MAX_RECORDS + REFRESH_MS);
    kv.entries.clear();
    const second = await store.purgeList(kv, T0 + MAX_RECORDS + 2 * REFRESH_MS);
    expect(second.vouchedSince).toBeGreaterThanOrEqual(first.vouchedSince);
    expect(purgedBy(second, '/elsewhere')(entry(T0))).toBe(true);
  });

  it('finds a batch that became visible late (written elsewhere, within KV propagation) on a later re-read', async () => {
    const reader = anotherIsolate();
    await reader.purgeList(kv, T0 + 10_000);
    // Written by another location at T0 + 9 s, listed here only at T0 + 40 s.
    const writer = anotherIsolate();
    await writer.recordPurges(kv, [{ kind: 'url', value: '/late', at: T0 + 9_000 }], T0 + 9_000);
    const list = await reader.purgeList(kv, T0 + 40_000);
    expect(purgedBy(list, '/late')(entry(T0 + 9_000))).toBe(true);
  });
});

describe('every purge recorded by any isolate is in force at every isolate after its next re-read', () => {
  it('holds over random schedules of purges and re-reads by three isolates, snapshots and all', async () => {
    type Step = { isolate: number; advance: number; purge: boolean; targets: number[] };
    const step = fc.record({
      isolate: fc.integer({ min: 0, max: 2 }),
      advance: fc.integer({ min: 0, max: 20_000 }),
      purge: fc.boolean(),
      targets: fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 5 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 160 }), async (steps: Step[]) => {
        kv = new FailingKv();
        const isolates = [anotherIsolate(), anotherIsolate(), anotherIsolate()];
        const made: PurgeRecord[] = [];
        let now = T0;
        for (const { isolate, advance, purge, targets } of steps) {
          now += advance;
          kv.now = now;
          const store = isolates[isolate];
          if (store === undefined) continue;
          if (purge) {
            const records = targets.map((t): PurgeRecord => ({ kind: 'url', value: `/t/${t}`, at: now }));
            await store.recordPurges(kv, records, now);
            made.push(...records);
          }
          // A re-read, due: every purge made so far is in force here.
          now += REFRESH_MS;
          kv.now = now;
          const list = await store.purgeList(kv, now);
          for (const record of made) {
            expect(purgedBy(list, record.value)(entry(record.at)), `${record.value} at ${record.at}`).toBe(true);
          }
          // Nothing is given up on but what outlived a record's lifetime.
          expect(list.vouchedSince).toBe(now - RECORD_LIFETIME_MS);
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe('a read of the purge list that fails', () => {
  /** A purge of each kind, made at T0 by an isolate of its own. */
  async function purgesOfEachKind(): Promise<void> {
    const writer = anotherIsolate();
    await writer.recordPurges(
      kv,
      [
        { kind: 'url', value: '/u', at: T0 },
        { kind: 'prefix', value: '/p/', at: T0 },
        { kind: 'tag', value: 't', at: T0 },
      ],
      T0,
    );
    await writer.recordPurges(kv, [{ kind: 'everything', value: '', at: T0 + 1 }], T0 + 1);
  }

  it('leaves a new isolate vouching for nothing from before its horizon: every purge made the bound ago is in force', async () => {
    await purgesOfEachKind();
    kv.failures = Infinity;
    const reader = anotherIsolate();
    const now = T0 + RECORDS_REACH_MS;
    const list = await reader.purgeList(kv, now);
    expect(purgedBy(list, '/u')(entry(T0))).toBe(true);
    expect(purgedBy(list, '/p/a.html')(entry(T0))).toBe(true);
    expect(purgedBy(list, '/tagged')(entry(T0, 'T, other'))).toBe(true);
    expect(purgedBy(list, '/elsewhere')(entry(T0 + 1))).toBe(true);
    // Within its horizon (a KV propagation back), as a read that succeeded could miss a purge written elsewhere.
    expect(purgedBy(list, '/elsewhere')(entry(now - KV_PROPAGATION_MS + 1))).toBe(false);
  });

  it('leaves a shield told of purges before its first read with them, and with every older purge in force', async () => {
    await purgesOfEachKind();
    kv.failures = Infinity;
    const shield = anotherIsolate();
    const now = T0 + RECORDS_REACH_MS;
    shield.rememberPurges([{ kind: 'url', value: '/told', at: now }], now);
    const list = await shield.purgeList(kv, now);
    expect(purgedBy(list, '/told')(entry(now))).toBe(true);
    expect(purgedBy(list, '/p/a.html')(entry(T0))).toBe(true);
  });

  it('is tried once more at once: a first read that fails once still finds every record', async () => {
    await purgesOfEachKind();
    kv.failures = 1;
    const reader = anotherIsolate();
    const list = await reader.purgeList(kv, T0 + 2);
    expect(list.records.map((record) => record.value).sort()).toEqual(['', '/p/', '/u', 't']);
    expect(list.vouchedSince).toBe(T0 + 2 - RECORD_LIFETIME_MS);
    // The first head read failed; the second, and the list, did not.
    expect(reader.takeKvOperations()).toEqual({ kvLists: 1, kvWrites: 0, kvReads: 2 });
  });

  it('after a good read, still has a purge made since in force within the bound while its re-reads fail', async () => {
    const reader = anotherIsolate();
    await reader.purgeList(kv, T0);
    const writer = anotherIsolate();
    await writer.recordPurges(kv, [{ kind: 'prefix', value: '/late/', at: T0 + 1000 }], T0 + 1000);
    kv.failures = Infinity;
    const now = T0 + 1000 + RECORDS_REACH_MS;
    const list = await reader.purgeList(kv, now);
    expect(purgedBy(list, '/late/a.html')(entry(T0 + 1000))).toBe(true);
  });

  it('counts as purged nothing more once a read succeeds again: the records vouch again', async () => {
    await purgesOfEachKind();
    kv.failures = Infinity;
    const reader = anotherIsolate();
    const failed = T0 + RECORDS_REACH_MS;
    await reader.purgeList(kv, failed);
    kv.failures = 0;
    const list = await reader.purgeList(kv, failed + REFRESH_MS);
    expect(purgedBy(list, '/u')(entry(T0))).toBe(true);
    expect(purgedBy(list, '/elsewhere')(entry(T0 + 2))).toBe(false);
    expect(list.vouchedSince).toBe(failed + REFRESH_MS - RECORD_LIFETIME_MS);
  });

  it('says how the reads went: not read yet, unread while none succeeded, read, then failing (what health answers)', async () => {
    const reader = anotherIsolate();
    expect(reader.purgeListState(kv, T0)).toEqual({ state: 'not read yet' });
    expect(reader.purgeListState(undefined, T0)).toEqual({ state: 'unbound' });
    kv.failures = Infinity;
    await reader.purgeList(kv, T0);
    expect(reader.purgeListState(kv, T0 + 3000)).toEqual({ state: 'unread', failing: 3 });
    kv.failures = 0;
    await reader.purgeList(kv, T0 + REFRESH_MS);
    expect(reader.purgeListState(kv, T0 + REFRESH_MS + 1000)).toEqual({ state: 'read', age: 1 });
    kv.failures = Infinity;
    await reader.purgeList(kv, T0 + 2 * REFRESH_MS);
    await reader.purgeList(kv, T0 + 3 * REFRESH_MS);
    expect(reader.purgeListState(kv, T0 + 3 * REFRESH_MS)).toEqual({ state: 'failing', failing: 5, age: 10 });
  });

  it('never throws: an isolate that cannot read KV still answers a list, and tries again after REFRESH_MS', async () => {
    kv.failures = Infinity;
    const reader = anotherIsolate();
    await expect(reader.purgeList(kv, T0)).resolves.toBeDefined();
    await reader.purgeList(kv, T0 + REFRESH_MS - 1);
    // The head read, tried twice, failing: no list is made on a head that could not be read.
    expect(reader.takeKvOperations()).toEqual({ kvLists: 0, kvWrites: 0, kvReads: 2 });
    await reader.purgeList(kv, T0 + REFRESH_MS);
    expect(reader.takeKvOperations()).toEqual({ kvLists: 0, kvWrites: 0, kvReads: 2 });
  });

  it('holds over random schedules of purges, re-reads and failing reads by three isolates: every purge made the bound ago is in force', async () => {
    type Step = { isolate: number; advance: number; purge: boolean; failures: number; targets: number[] };
    const step = fc.record({
      isolate: fc.integer({ min: 0, max: 2 }),
      advance: fc.integer({ min: 0, max: 40_000 }),
      purge: fc.boolean(),
      // How many of the reads after this step fail: none mostly, a blip, an outage.
      failures: fc.oneof(fc.constant(0), fc.constant(1), fc.integer({ min: 2, max: 6 }), fc.constant(Infinity)),
      targets: fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 5 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 120 }), async (steps: Step[]) => {
        kv = new FailingKv();
        const isolates = [anotherIsolate(), anotherIsolate(), anotherIsolate()];
        const made: PurgeRecord[] = [];
        let now = T0;
        for (const { isolate, advance, purge, failures, targets } of steps) {
          now += advance;
          kv.now = now;
          const store = isolates[isolate];
          if (store === undefined) continue;
          if (purge) {
            const records = targets.map((t): PurgeRecord => ({ kind: 'url', value: `/t/${t}`, at: now }));
            await store.recordPurges(kv, records, now);
            made.push(...records);
          }
          kv.failures = failures;
          const list = await store.purgeList(kv, now);
          for (const record of made.filter((record) => record.at <= now - RECORDS_REACH_MS)) {
            expect(purgedBy(list, record.value)(entry(record.at)), `${record.value} at ${record.at}`).toBe(true);
          }
        }
      }),
      { numRuns: 40 },
    );
  });
});
