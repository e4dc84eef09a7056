// The R2 tier assembled (shield/r2/r2-tier.ts) over a bucket in a Map and a scripted origin, asked as the shield
// asks it (its asks healing within its policy, shared/tier/next-hop.ts hopUpstream): what the cost policy keeps and
// when, the write budget, a read that breaks part-way healed from the origin, its record, and the walk that removes
// what expired (r2-sweep.ts).

import { describe, expect, it } from 'vitest';
import { parseConfig, type RawConfig } from '../../../shared/config/config.ts';
import type { ObservedTier } from '../../../shared/observe/observed.ts';
import { R2Tally } from '../../../shared/observe/r2-tally.ts';
import { RequestMeter } from '../../../shared/observe/request-meter.ts';
import type { PurgeList, PurgeRecord } from '../../../shared/purge/purge-rules.ts';
import { requestTarget } from '../../../shared/request/request-target.ts';
import { lastHost } from '../../../shared/stats/record.ts';
import { originHealing } from '../../../shared/tier/healing-upstream.ts';
import { HopLog } from '../../../shared/tier/hop-log.ts';
import { hopUpstream, type NextHop } from '../../../shared/tier/next-hop.ts';
import type { Upstream } from '../../../shared/tier/ports.ts';
import { R2_PREFIX } from '../../../shield/r2/r2-cache.ts';
import { newSweep, SWEEP_EVERY_MS, SWEEP_PAGE, sweep } from '../../../shield/r2/r2-sweep.ts';
import { r2Isolate, r2Request } from '../../../shield/r2/r2-tier.ts';
import { EPOCH, FakeHopCalls, FakeUpstream, patterned } from '../../shared/tier/fakes.ts';
import { FakeR2 } from './fake-r2.ts';

/** A slice large enough that one fetch of it saved pays for its put at the published prices. */
const SLICE = 1024 * 1024;
const HOUR_MS = 3_600_000;
/** The object every test reads: two slices. */
const OBJECT = patterned(2 * SLICE);
const FIRST_SLICE = OBJECT.subarray(0, SLICE);

/** An origin serving `body` (OBJECT in slices, unless told whole), as the R2 tier's next hop. */
function originOf(now: () => number, body: Uint8Array = OBJECT): { next: NextHop; fake: FakeUpstream } {
  const headers = { etag: '"v1"', 'cache-control': 'max-age=86400' };
  const fake = new FakeUpstream(body === OBJECT ? { body, sliceSize: SLICE, headers } : { body, headers }, now);
  const calls = new FakeHopCalls();
  const next: NextHop = {
    bypass: (call) => calls.bypass(call),
    passThrough: (call) => calls.passThrough(call),
    member: undefined,
    object: () => fake,
    healing: originHealing(30_000),
    fromOrigin: () => true,
    purge: async () => undefined,
    health: async () => undefined,
  };
  return { next, fake };
}

/** The R2 tier of one isolate over `bucket`, read as the shield reads it, a request at a time. */
function tierOver(bucket: FakeR2, settings: RawConfig = {}) {
  const clock = { at: EPOCH, now: () => clock.at };
  const config = parseConfig({ ORIGIN_KIND: 'http', ORIGIN_URL: 'https://origin.test', ...settings });
  const tally = new R2Tally();
  const r2 = r2Isolate(bucket, config, tally);
  if (r2 === undefined) throw new Error('the tier is off with a bucket bound');
  const held: Promise<unknown>[] = [];
  const keepAlive = (promise: Promise<unknown>): void => void held.push(promise);
  const told: unknown[] = [];
  const observed: ObservedTier = {
    tier: 'shield',
    sinks: { observability: config.observability, store: undefined, analytics: undefined },
    describe: () => ({ host: 'cdn.test', path: '/clip.bin' }),
    host: lastHost(),
  };
  const settle = async () => {
    while ((await Promise.allSettled(held.splice(0))).length > 0);
  };
  /** One shield request reading `span` of the object through the tier: its bytes, its record's outcome. */
  async function read(
    next: NextHop,
    first: number,
    last: number,
  ): Promise<{ bytes: Uint8Array; member: string | null }> {
    const request = r2Request(r2 as NonNullable<typeof r2>, observed, keepAlive);
    const hop = request.hop({ config, clock, purges: undefined }, next);
    const meter = new RequestMeter(clock.at, keepAlive);
    const target = requestTarget(new URL('https://cdn.test/clip.bin'), 'http');
    const upstream: Upstream = hopUpstream(
      hop,
      { target, host: 'cdn.test', client: undefined, watermarks: {}, hops: new HopLog() },
      meter,
    );
    const answer = await upstream.slices({ first, last }, undefined);
    if (answer.kind !== 'span' && answer.kind !== 'whole') throw new Error(`answered ${answer.kind}`);
    const body = answer.kind === 'span' ? answer.body : answer.response.body;
    const bytes = new Uint8Array(await new Response(body).arrayBuffer());
    request.record(new Request('https://cdn.test/clip.bin'), meter.settled(), () => meter.bytesFromNextHop);
    await settle();
    return { bytes, member: answer.response.headers.get('cache-status') };
  }
  return { clock, read, settle, told, r2, tally };
}

const objects = (bucket: FakeR2): string[] => [...bucket.objects.keys()].sort();

/** `bytes` are the object's first slice (compared as buffers: a deep comparison of a MiB takes seconds). */
function expectFirstSlice(bytes: Uint8Array): void {
  expect(Buffer.from(bytes).equals(Buffer.from(FIRST_SLICE))).toBe(true);
}

describe('the R2 tier under the cost policy', () => {
  it('keeps nothing of a first fetch, keeps a slice fetched again, and serves it then without the origin', async () => {
    const bucket = new FakeR2();
    const { clock, read } = tierOver(bucket);
    const { next, fake } = originOf(() => clock.at);
    expectFirstSlice((await read(next, 0, 0)).bytes);
    expect(bucket.objects.size).toBe(0);
    // Nothing seen of it before: not looked up (under `cost`, R2 keeps only what was fetched twice).
    expect(bucket.operations.get).toBe(0);

    // An hour on, the shield asks for it again (its Cache API forgot it): a re-fetch is what admits it.
    clock.at += HOUR_MS;
    await read(next, 0, 0);
    const kept = objects(bucket);
    expect(kept).toHaveLength(2);
    expect(kept.every((key) => key.startsWith(R2_PREFIX))).toBe(true);
    // Kept for the span its rate was measured over: the hour.
    const expires = kept.map((key) => Number(bucket.objects.get(key)?.customMetadata.expires));
    expect(expires).toEqual([clock.at + HOUR_MS, clock.at + HOUR_MS]);

    const asked = fake.calls.length;
    const third = await read(next, 0, 0);
    expectFirstSlice(third.bytes);
    expect(third.member).toMatch(/tiercache-r2; hit/);
    expect(fake.calls.length).toBe(asked);
  });

  it('makes no get for an object whose hit would save less than the get: it is never kept', async () => {
    const bucket = new FakeR2();
    const { clock, read } = tierOver(bucket);
    // 20 kB: its egress ($0.00000014 at $7 per TB) is less than a get ($0.00000036).
    const { next, fake } = originOf(() => clock.at, patterned(20_000));
    for (let fetch = 0; fetch < 5; fetch++) {
      clock.at += HOUR_MS;
      expect((await read(next, 0, 0)).bytes.byteLength).toBe(20_000);
    }
    expect(fake.calls.length).toBe(5);
    expect(bucket.operations).toMatchObject({ get: 0, put: 0 });
  });

  it('looks up an object of a size worth it once it has been seen fetched', async () => {
    const bucket = new FakeR2();
    const { clock, read } = tierOver(bucket);
    const { next } = originOf(() => clock.at, patterned(200_000));
    await read(next, 0, 0);
    expect(bucket.operations.get).toBe(0);
    clock.at += HOUR_MS;
    await read(next, 0, 0);
    expect(bucket.operations.get).toBe(1);
  });

  it('puts no more than its write budget allows, what it refused fetched and offered again later', async () => {
    const bucket = new FakeR2();
    // One put an hour: a burst of one.
    const { clock, read } = tierOver(bucket, { R2_TIER_ADMIT: 'all', R2_WRITES_PER_HOUR: '1' });
    const { next } = originOf(() => clock.at);
    await read(next, 0, 1);
    expect(bucket.operations.put).toBe(1);
    clock.at += HOUR_MS;
    await read(next, 1, 1);
    expect(bucket.operations.put).toBe(2);
  });
});

describe('the R2 tier as every tier is', () => {
  it('heals a read that breaks part-way, as the shield heals any tier behind it: every byte, once', async () => {
    const bucket = new FakeR2();
    const { clock, read } = tierOver(bucket, { R2_TIER_ADMIT: 'all' });
    const { next } = originOf(() => clock.at);
    await read(next, 0, 0);
    expect(bucket.objects.size).toBe(2);
    bucket.cutReadsAfter = 1000;
    // The shield asks again from the byte the cut reached; the tier reads its copy again (a cut read is a fault of the
    // read, not of what is kept: an object whose size is not the one counted in is discarded, r2-cache.test.ts).
    expectFirstSlice((await read(next, 0, 0)).bytes);
  });

  it('answers from the origin while R2 fails every call, as a cache that cannot be read is a miss', async () => {
    const bucket = new FakeR2();
    const { clock, read } = tierOver(bucket, { R2_TIER_ADMIT: 'all' });
    const { next, fake } = originOf(() => clock.at);
    await read(next, 0, 0);
    expect(bucket.objects.size).toBe(2);
    bucket.failing = true;
    const asked = fake.calls.length;
    const answer = await read(next, 0, 0);
    expectFirstSlice(answer.bytes);
    // Its manifest could not be read: the object unknown here (RFC 9211 §2.2 uri-miss).
    expect(answer.member).toMatch(/tiercache-r2; fwd=uri-miss/);
    expect(fake.calls.length).toBeGreaterThan(asked);
    // R2 back: what it kept before is there again.
    bucket.failing = false;
    expect((await read(next, 0, 0)).member).toMatch(/tiercache-r2; hit/);
  });

  it("makes its record of a request it answered: the tier, its member's outcome, what it sent", async () => {
    const bucket = new FakeR2();
    const { clock, read } = tierOver(bucket, { R2_TIER_ADMIT: 'all', LOG_SAMPLE: '1' });
    const { next } = originOf(() => clock.at);
    const logged: string[] = [];
    const log = console.log;
    console.log = (line: string) => void logged.push(line);
    try {
      await read(next, 0, 0);
      await read(next, 0, 0);
    } finally {
      console.log = log;
    }
    const records = logged.map((line) => JSON.parse(line) as { tiercache: string; outcome: string; bytesSent: number });
    expect(records.map((record) => [record.tiercache, record.outcome])).toEqual([
      ['r2', 'miss'],
      ['r2', 'hit'],
    ]);
    expect(records[1]?.bytesSent).toBe(SLICE);
  });
});

describe("the R2 tier's operations, counted for the stats", () => {
  it('counts in its tally every get, put and list it made of its bucket, and the storage its puts commit to', async () => {
    const bucket = new FakeR2();
    const { clock, read, tally } = tierOver(bucket, { R2_TIER_ADMIT: 'all' });
    const { next } = originOf(() => clock.at);
    await read(next, 0, 0);
    await read(next, 0, 0);
    const counts = tally.take();
    expect(counts).toMatchObject({
      r2Gets: bucket.operations.get + bucket.operations.head,
      r2Puts: bucket.operations.put,
      r2Lists: bucket.operations.list,
    });
    // The first read missed (a get per entry looked up) and put the slice and its manifest; its walk listed once.
    expect(counts.r2Puts).toBe(2);
    expect(counts.r2Lists).toBe(1);
    const kept = [...bucket.objects.values()].map(({ bytes, customMetadata }) => ({
      bytes: bytes.byteLength,
      retentionS: (Number(customMetadata.expires) - EPOCH) / 1000,
    }));
    expect(counts.r2PutBytes).toBe(kept.reduce((sum, entry) => sum + entry.bytes, 0));
    expect(counts.r2StoredByteSeconds).toBe(kept.reduce((sum, entry) => sum + entry.bytes * entry.retentionS, 0));
  });
});

describe('the walk that removes what stopped paying', () => {
  it("deletes what a hard purge reached, the object's slices with it, and leaves a soft purge's to be revalidated", async () => {
    const bucket = new FakeR2();
    const { clock, read } = tierOver(bucket, { R2_TIER_ADMIT: 'all' });
    const { next } = originOf(() => clock.at);
    await read(next, 0, 1);
    const kept = objects(bucket);
    // The manifest and both slices, each kept for the retention `all` gives.
    expect(kept).toHaveLength(3);
    const list =
      (records: PurgeRecord[]): (() => Promise<PurgeList>) =>
      async () => ({ records, vouchedSince: 0 });
    const at = clock.at + 1;
    // Another object's purge, and a soft purge of this one: nothing deleted.
    expect(await sweep(bucket, newSweep(), at, list([{ kind: 'url', value: '/other.bin', at }]))).toEqual([]);
    expect(await sweep(bucket, newSweep(), at, list([{ kind: 'url', value: '/clip.bin', at, soft: true }]))).toEqual(
      [],
    );
    // A purge made before the bytes came from the origin reaches nothing either.
    const before = clock.at - 1;
    expect(await sweep(bucket, newSweep(), at, list([{ kind: 'everything', value: '', at: before }]))).toEqual([]);
    // Nor does a list that vouches for nothing (an isolate whose reads of it fail): no record purged these.
    const unread = async (): Promise<PurgeList> => ({ records: [], vouchedSince: at + 60_000 });
    expect(await sweep(bucket, newSweep(), at, unread)).toEqual([]);
    expect((await sweep(bucket, newSweep(), at, list([{ kind: 'prefix', value: '/cl', at }]))).sort()).toEqual(kept);
    expect(bucket.objects.size).toBe(0);
  });

  it('deletes the expired entries of one page a minute, the cursor moving on and starting over', async () => {
    const bucket = new FakeR2();
    const now = EPOCH;
    for (let index = 0; index < SWEEP_PAGE + 10; index++) {
      const expires = index % 2 === 0 ? now - 1 : now + HOUR_MS;
      await bucket.put(`${R2_PREFIX}entry-${String(index).padStart(5, '0')}`, new Uint8Array(1), {
        customMetadata: { headers: '[]', status: '200', length: '1', expires: String(expires) },
      });
    }
    await bucket.put('someone-else/object', new Uint8Array(1), { customMetadata: {} });
    const state = newSweep();
    expect(await sweep(bucket, state, now)).toHaveLength(SWEEP_PAGE / 2);
    // Not due yet: nothing listed.
    expect(await sweep(bucket, state, now + SWEEP_EVERY_MS - 1)).toEqual([]);
    expect(bucket.operations.list).toBe(1);
    expect(await sweep(bucket, state, now + SWEEP_EVERY_MS)).toHaveLength(5);
    expect(state.cursor).toBeUndefined();
    expect(bucket.objects.size).toBe(SWEEP_PAGE / 2 + 5 + 1);
    expect(bucket.objects.has('someone-else/object')).toBe(true);
  });
});
