// The purge list's head through KV as it behaves between locations (shared/purge/head-store.ts, purge-store.ts): a
// write is seen at once where it was made and up to KV's propagation later elsewhere, each key on its own (a head may
// be seen before the batch it announces, or a later head before an earlier batch), the newest write of a key wins; a
// location's isolates share their head reads. Every purge made the bound ago is in force everywhere, whatever the
// schedule; KV is read about once per location per re-read; a head write KV refuses is covered.

import fc from 'fast-check';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { HeadShare } from '../../../shared/purge/head-store.ts';
import { KV_PROPAGATION_MS, RECORDS_REACH_MS } from '../../../shared/purge/purge-bounds.ts';
import { HEAD_KEY, KV_WRITE_INTERVAL_MS, SHARE_MS, type SharedHead } from '../../../shared/purge/purge-head.ts';
import type { PurgeKv } from '../../../shared/purge/purge-kv.ts';
import { type PurgeRecord, purgedBy, REFRESH_MS } from '../../../shared/purge/purge-rules.ts';
import { PurgeStore } from '../../../shared/purge/purge-store.ts';

const T0 = 1_800_000_000_000;

interface Write {
  value: string | undefined;
  metadata: unknown;
  writtenAt: number;
  /** When each location sees it (the writer's at once). */
  seenAt: number[];
}

/** One KV namespace seen from several locations, each key's writes propagating on their own delays. */
class LocationsKv {
  now = T0;
  readonly writes = new Map<string, Write[]>();
  readonly asked = { get: 0, list: 0, put: 0 };
  /** Head writes are refused within KV_WRITE_INTERVAL_MS of the last one taken, as KV refuses them (429). */
  refuses = true;
  readonly locations: number;
  /** The delay (ms, at most KV_PROPAGATION_MS) before `location` sees the n-th write. */
  readonly delay: (n: number, location: number) => number;
  constructor(locations: number, delay: (n: number, location: number) => number) {
    this.locations = locations;
    this.delay = delay;
  }

  at(location: number): PurgeKv {
    return {
      put: async (key, value, options) => this.write(location, key, value, options.metadata),
      delete: async (key) => this.write(location, key, undefined, undefined),
      get: async (key) => {
        this.asked.get += 1;
        return this.seen(location, key)?.value ?? null;
      },
      list: async ({ prefix }) => {
        this.asked.list += 1;
        const keys = [...this.writes.keys()]
          .filter((name) => name.startsWith(prefix))
          .sort()
          .flatMap((name) => {
            const seen = this.seen(location, name);
            return seen?.value === undefined ? [] : [{ name, metadata: seen.metadata }];
          });
        return { keys, list_complete: true };
      },
    };
  }

  private write(location: number, key: string, value: string | undefined, metadata: unknown): void {
    const last = this.writes.get(key)?.at(-1);
    if (this.refuses && key === HEAD_KEY && last !== undefined && this.now - last.writtenAt < KV_WRITE_INTERVAL_MS)
      throw new Error('KV PUT failed: 429 Too Many Requests');
    this.asked.put += 1;
    const n = this.asked.put;
    const seenAt = Array.from({ length: this.locations }, (_, at) =>
      at === location ? this.now : this.now + Math.min(KV_PROPAGATION_MS, Math.max(0, this.delay(n, at))),
    );
    this.writes.set(key, [...(this.writes.get(key) ?? []), { value, metadata, writtenAt: this.now, seenAt }]);
  }

  /** The newest write of `key` that `location` sees now (the last writer wins). */
  private seen(location: number, key: string): Write | undefined {
    return (this.writes.get(key) ?? [])
      .filter((write) => (write.seenAt[location] ?? Infinity) <= this.now)
      .reduce<Write | undefined>((a, b) => (a === undefined || b.writtenAt >= a.writtenAt ? b : a), undefined);
  }
}

/** A location's Cache API as its isolates share the head through it (head-store.ts HeadShare). */
class MemoryShare implements HeadShare {
  held: SharedHead | undefined;
  async match(): Promise<SharedHead | undefined> {
    return this.held;
  }
  async put(shared: SharedHead): Promise<void> {
    this.held = shared;
  }
}

/** `count` isolates, each its purge store of its own, sharing the head through `share`. */
function isolates(count: number, share: HeadShare | undefined): PurgeStore[] {
  return Array.from({ length: count }, () => isolate(share));
}

/** A purge store of its own (another isolate's), sharing the head through `share`. */
function isolate(share: HeadShare | undefined): PurgeStore {
  return new PurgeStore(share);
}

const entry = (originAt: number) => ({ meta: { storedAt: originAt, originAt }, headers: new Headers() });

/** A small PRNG: the delays of a run, from its seed. */
function delays(seed: number): (n: number, location: number) => number {
  return (n, location) => {
    let x = (seed ^ (n * 0x9e3779b1) ^ (location * 0x85ebca6b)) >>> 0;
    x = Math.imul(x ^ (x >>> 16), 0x45d9f3b) >>> 0;
    x = Math.imul(x ^ (x >>> 16), 0x45d9f3b) >>> 0;
    return ((x ^ (x >>> 16)) >>> 0) % (KV_PROPAGATION_MS + 1);
  };
}

beforeEach(() => {
  vi.useRealTimers();
});

describe('the head between locations', () => {
  it('has every purge made RECORDS_REACH_MS ago in force at every isolate of every location, whatever order KV shows the keys in', async () => {
    type Step = { advance: number; purger: number | undefined; target: number };
    const step = fc.record({
      advance: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1500 }), fc.integer({ min: 0, max: REFRESH_MS })),
      // Purges now and then: each head change is met alone, as well as in bursts.
      purger: fc.oneof(
        { arbitrary: fc.constant(undefined), weight: 10 },
        { arbitrary: fc.integer({ min: 0, max: 3 }), weight: 1 },
      ),
      target: fc.integer({ min: 0, max: 20 }),
    });
    // Steps of no time at all are common: purges from several isolates within a second (a burst).
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 300 }), fc.nat(), async (given: Step[], seed) => {
        // Then quiet long enough for the bound of every purge to pass.
        const quiet = Array.from({ length: Math.ceil(RECORDS_REACH_MS / REFRESH_MS) + 1 }, () => ({
          advance: REFRESH_MS,
          purger: undefined,
          target: 1,
        }));
        const steps = [...given, ...quiet];
        const kv = new LocationsKv(2, delays(seed));
        // Isolates 0 and 1 in location 0 sharing their head reads, 2 and 3 in location 1.
        const shares = [new MemoryShare(), new MemoryShare()];
        const all = [...isolates(2, shares[0]), ...isolates(2, shares[1])];
        const made: PurgeRecord[] = [];
        for (const { advance, purger, target } of steps) {
          kv.now += advance;
          if (purger !== undefined) {
            const records: PurgeRecord[] = [{ kind: 'url', value: `/t/${target}`, at: kv.now }];
            await all[purger]?.recordPurges(kv.at(purger < 2 ? 0 : 1), records, kv.now);
            made.push(...records);
          }
          for (const [i, store] of all.entries()) {
            const list = await store.purgeList(kv.at(i < 2 ? 0 : 1), kv.now);
            for (const record of made.filter((r) => r.at <= kv.now - RECORDS_REACH_MS)) {
              expect(purgedBy(list, record.value)(entry(record.at)), `isolate ${i}: ${record.value}`).toBe(true);
            }
          }
        }
      }),
      { numRuns: 30 },
    );
  }, 60_000);

  it('has a purge in force within the bound when its head write was refused for one made 0.9 s before, and KV shows its batch last', async () => {
    // Writes in order: the first purge's batch and head, seen at once elsewhere; the second's batch, a minute late.
    const kv = new LocationsKv(2, (n) => (n === 3 ? KV_PROPAGATION_MS : 0));
    const [first, second] = isolates(2, undefined);
    const [reader] = isolates(1, undefined);
    const reread = async (): Promise<void> => {
      await reader?.purgeList(kv.at(1), kv.now);
    };
    await reread();
    for (let t = REFRESH_MS; t <= 10_000; t += REFRESH_MS) {
      kv.now = T0 + t;
      await reread();
    }
    await first?.recordPurges(kv.at(0), [{ kind: 'url', value: '/a', at: kv.now }], kv.now);
    const made = kv.now + 900;
    kv.now = made;
    await second?.recordPurges(kv.at(0), [{ kind: 'url', value: '/b', at: made }], made);
    expect(kv.writes.get(HEAD_KEY)).toHaveLength(1);
    // The reader re-reads every REFRESH_MS, as asked; by the bound the second purge is in force there.
    let list = await reader?.purgeList(kv.at(1), kv.now);
    for (let t = 15_000; t <= made - T0 + RECORDS_REACH_MS; t += REFRESH_MS) {
      kv.now = T0 + t;
      list = await reader?.purgeList(kv.at(1), kv.now);
    }
    expect(kv.now).toBeGreaterThan(made + RECORDS_REACH_MS - REFRESH_MS);
    expect(list !== undefined && purgedBy(list, '/b')(entry(made))).toBe(true);
  });

  it('reads KV about once per location per SHARE_MS however many isolates the location runs, and lists only when the head changed', async () => {
    const kv = new LocationsKv(1, () => 0);
    const share = new MemoryShare();
    const location = isolates(16, share);
    const minutes = 5;
    // Every isolate asked every second for five minutes; no purge.
    for (let t = 0; t < minutes * 60_000; t += 1000) {
      kv.now = T0 + t;
      for (const store of location) await store.purgeList(kv.at(0), kv.now);
    }
    // At most one get per SHARE_MS for the location (and one each at the start); a list per isolate at its start and
    // once a SAFETY_LIST_MS minute after.
    expect(kv.asked.get).toBeLessThanOrEqual((minutes * 60_000) / SHARE_MS + location.length);
    expect(kv.asked.get).toBeGreaterThanOrEqual((minutes * 60_000) / (2 * SHARE_MS));
    expect(kv.asked.list).toBeLessThanOrEqual(location.length * (1 + minutes));
  });

  it('reads KV once per isolate per REFRESH_MS where the Cache API keeps nothing (workers.dev): correct, just costlier', async () => {
    const kv = new LocationsKv(1, () => 0);
    const nothingKept: HeadShare = { match: async () => undefined, put: async () => undefined };
    const location = isolates(4, nothingKept);
    const writer = isolate(nothingKept);
    for (let t = 0; t < 60_000; t += 1000) {
      kv.now = T0 + t;
      if (t === 30_000) await writer.recordPurges(kv.at(0), [{ kind: 'url', value: '/late', at: kv.now }], kv.now);
      for (const store of location) await store.purgeList(kv.at(0), kv.now);
    }
    // Each isolate's own head read every REFRESH_MS, and the writer's one (its purge re-reads before a snapshot).
    expect(kv.asked.get).toBe(location.length * (60_000 / REFRESH_MS) + 1);
    kv.now = T0 + 30_000 + RECORDS_REACH_MS;
    for (const store of location) {
      expect(purgedBy(await store.purgeList(kv.at(0), kv.now), '/late')(entry(T0 + 30_000))).toBe(true);
    }
  });
});

describe('writing the head', () => {
  it('writes it once per purge request, and not again within a second from the same isolate (KV takes one write a second to a key)', async () => {
    const kv = new LocationsKv(1, () => 0);
    const writer = isolate(undefined);
    for (let i = 0; i < 10; i++) {
      kv.now = T0 + i * 300;
      await writer.recordPurges(kv.at(0), [{ kind: 'url', value: `/b/${i}`, at: kv.now }], kv.now);
    }
    const heads = kv.writes.get(HEAD_KEY) ?? [];
    expect(heads.map((write) => write.writtenAt - T0)).toEqual([0, 1200, 2400]);
    expect(writer.takeKvOperations().kvWrites).toBe(10 + heads.length);
  });

  it('answers a purge whose head write KV refused as too frequent: the write it lost to is listed past it', async () => {
    const kv = new LocationsKv(1, () => 0);
    const [first, second] = isolates(2, undefined);
    await first?.recordPurges(kv.at(0), [{ kind: 'url', value: '/q', at: T0 }], T0);
    kv.now = T0 + 400;
    await expect(
      second?.recordPurges(kv.at(0), [{ kind: 'url', value: '/r', at: kv.now }], kv.now),
    ).resolves.toBeUndefined();
    expect((kv.writes.get(HEAD_KEY) ?? []).map((write) => write.writtenAt)).toEqual([T0]);
  });

  it('fails the purge (to be asked again) when the head cannot be written twice for another reason', async () => {
    vi.useFakeTimers();
    const writer = isolate(undefined);
    const base = new LocationsKv(1, () => 0).at(0);
    const kv: PurgeKv = {
      ...base,
      put: async (key, value, options) => {
        if (key === HEAD_KEY) throw new Error('KV PUT failed: 500 Internal Server Error');
        return base.put(key, value, options);
      },
    };
    const recorded = writer.recordPurges(kv, [{ kind: 'url', value: '/x', at: T0 }], T0);
    const failed = expect(recorded).rejects.toThrow(/500/);
    await vi.advanceTimersByTimeAsync(1000);
    await failed;
  });
});
