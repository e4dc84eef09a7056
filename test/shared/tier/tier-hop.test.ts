// A tier behind another in one isolate (shared/tier/tier-hop.ts), its cache a FakeTierCache and its next hop a
// FakeUpstream: what it read once it answers again from its own cache, saying so in its Cache-Status member; another
// version is refused; what came short from behind is never kept. The contract clauses are next-hop-contract.test.ts's.

import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../shared/config/config.ts';
import { ORIGIN_AT_HEADER } from '../../../shared/hop/hop-fields.ts';
import { memberParams } from '../../../shared/http/cache-status.ts';
import { VersionChanged } from '../../../shared/http/errors.ts';
import { RequestMeter } from '../../../shared/observe/request-meter.ts';
import { requestTarget } from '../../../shared/request/request-target.ts';
import { type AppliedRules, NOTHING_APPLIED } from '../../../shared/rules/rules.ts';
import type { SliceSpan } from '../../../shared/slices/slice-plan.ts';
import { originHealing } from '../../../shared/tier/healing-upstream.ts';
import { HopLog } from '../../../shared/tier/hop-log.ts';
import type { NextHop } from '../../../shared/tier/next-hop.ts';
import type { Upstream, UpstreamAnswer } from '../../../shared/tier/ports.ts';
import { tierHop } from '../../../shared/tier/tier-hop.ts';
import { streamOf } from '../../streams.ts';
import { EPOCH, FakeHopCalls, FakeTierCache, FakeUpstream, patterned } from './fakes.ts';

const SLICE = 4096;
const MEMBER = 'tiercache-shield';
let objects = 0;

/** A Map tier (named the shield: this repository's tiers are two) over a FakeUpstream serving a sliced object. */
function tierOverFake(rules?: AppliedRules): {
  hop: Upstream;
  /** The tier's clock (ms epoch), which a test moves. */
  clock: { at: number; now(): number };
  fake: FakeUpstream;
  cache: FakeTierCache;
  /** While set, every span's body comes one byte short from behind, however often it is asked again. */
  short: { on: boolean };
  settle: () => Promise<void>;
} {
  const clock = {
    at: EPOCH,
    now() {
      return this.at;
    },
  };
  const bytes = patterned(2.5 * SLICE);
  const fake = new FakeUpstream(
    { body: bytes, sliceSize: SLICE, headers: { etag: '"v1"', 'cache-control': 'max-age=3600' } },
    () => clock.now(),
  );
  const calls = new FakeHopCalls();
  const short = { on: false };
  const behind: Upstream = {
    async slices(asked, pinned, ask) {
      const answer = await fake.slices(asked, pinned, ask);
      if (!short.on || answer.kind !== 'span') return answer;
      const bytes = new Uint8Array(await new Response(answer.body).arrayBuffer());
      return { ...answer, body: streamOf(bytes.subarray(0, bytes.length - 1)) };
    },
    head: (signal) => fake.head(signal),
  };
  const next: NextHop = {
    bypass: (call) => calls.bypass(call),
    passThrough: (call) => calls.passThrough(call),
    member: undefined,
    object: () => behind,
    healing: originHealing(30_000),
    fromOrigin: () => true,
    purge: async () => undefined,
    health: async () => undefined,
  };
  const held: Promise<unknown>[] = [];
  const meter = new RequestMeter(EPOCH, (promise) => void held.push(promise));
  const cache = new FakeTierCache({ now: () => clock.now() });
  const config = parseConfig({ ORIGIN_KIND: 'http', ORIGIN_URL: 'https://origin.test' });
  const tier = tierHop({ name: 'shield', cache, config, clock, meter }, next);
  const target = requestTarget(new URL(`https://cdn.test/tier-hop-${++objects}.bin`), 'http');
  const hop = tier.object({ target, host: 'cdn.test', client: undefined, watermarks: {}, hops: new HopLog(), rules });
  const settle = async () => {
    while ((await Promise.allSettled(held.splice(0))).length > 0);
  };
  return { hop, clock, fake, cache, short, settle };
}

async function spanOf(
  answer: UpstreamAnswer,
): Promise<{ bytes: Uint8Array; answer: UpstreamAnswer & { kind: 'span' } }> {
  if (answer.kind !== 'span') throw new Error(`answered ${answer.kind}`);
  return { bytes: new Uint8Array(await new Response(answer.body).arrayBuffer()), answer };
}

const span = (first: number, last = first): SliceSpan => ({ first, last });

describe('tierHop', () => {
  it('reads a span from behind once, then answers it from its own cache, its member saying which', async () => {
    const { hop, fake, settle } = tierOverFake();
    const first = await spanOf(await hop.slices(span(0, 1), undefined));
    expect(first.bytes).toEqual(patterned(2.5 * SLICE).subarray(0, 2 * SLICE));
    const missed = memberParams(first.answer.response.headers.get('cache-status'), MEMBER);
    expect(missed?.hit).toBeUndefined();
    expect(missed?.fwd).toBe('uri-miss');
    await settle();
    const asked = fake.calls.length;
    expect(asked).toBeGreaterThan(0);

    const again = await spanOf(await hop.slices(span(0, 1), first.answer.meta));
    expect(again.bytes).toEqual(first.bytes);
    expect(memberParams(again.answer.response.headers.get('cache-status'), MEMBER)?.hit).toBe(true);
    expect(fake.calls.length).toBe(asked);
    // From an offset, the rest of the span, still from the cache.
    const rest = await spanOf(await hop.slices(span(1, 2), first.answer.meta, { from: 100 }));
    expect(rest.bytes).toEqual(patterned(2.5 * SLICE).subarray(SLICE + 100));
  });

  it('refuses a version other than the one pinned, with nothing of either sent', async () => {
    const { hop } = tierOverFake();
    const { answer } = await spanOf(await hop.slices(span(0), undefined));
    await expect(hop.slices(span(1), { ...answer.meta, etag: '"v0"' })).rejects.toBeInstanceOf(VersionChanged);
  });

  it('never keeps a slice that came short from behind: the next read asks for it again', async () => {
    const { hop, fake, cache, short, settle } = tierOverFake();
    short.on = true;
    const first = await hop.slices(span(0), undefined);
    if (first.kind !== 'span') throw new Error(`answered ${first.kind}`);
    await expect(new Response(first.body).arrayBuffer()).rejects.toThrow();
    await settle();
    // Kept: the manifest alone (discovery's headers were whole), never the slice.
    const puts = cache.keys().length;
    expect(puts).toBe(1);
    short.on = false;
    const asked = fake.sliceCalls.length;
    const again = await spanOf(await hop.slices(span(0), first.meta));
    expect(again.bytes).toEqual(patterned(2.5 * SLICE).subarray(0, SLICE));
    expect(fake.sliceCalls.length).toBe(asked + 1);
    await settle();
    expect(cache.keys().length).toBeGreaterThan(puts);
  });

  it("says when the bytes it answers came from the origin, its own copy's time once it holds them", async () => {
    const { hop, clock, settle } = tierOverFake();
    const first = await spanOf(await hop.slices(span(0), undefined));
    expect(first.answer.response.headers.get(ORIGIN_AT_HEADER)).toBe(String(EPOCH));
    await settle();
    // Ten minutes on, answered from what it stored then: the tier in front stores it with that time, not its own.
    clock.at = EPOCH + 600_000;
    const again = await spanOf(await hop.slices(span(1), first.answer.meta));
    expect(memberParams(again.answer.response.headers.get('cache-status'), MEMBER)?.hit).toBeUndefined();
    const third = await spanOf(await hop.slices(span(0), first.answer.meta));
    expect(memberParams(third.answer.response.headers.get('cache-status'), MEMBER)?.hit).toBe(true);
    expect(third.answer.response.headers.get(ORIGIN_AT_HEADER)).toBe(String(EPOCH));
  });

  it("reads by the rules the tier in front matched: their freshness over the answer's own", async () => {
    // The object says max-age=3600; a rule overriding it with 60 s makes the copy stale after a minute here too.
    const rules: AppliedRules = { ...NOTHING_APPLIED, freshness: { ttl: 60, override: true, rule: 'short' } };
    const { hop, clock, fake, settle } = tierOverFake(rules);
    const first = await spanOf(await hop.slices(span(0), undefined));
    await settle();
    clock.at = EPOCH + 120_000;
    const asked = fake.calls.length;
    const again = await spanOf(await hop.slices(span(0), undefined));
    expect(again.bytes).toEqual(first.bytes);
    expect(memberParams(again.answer.response.headers.get('cache-status'), MEMBER)?.hit).toBeUndefined();
    expect(fake.calls.length).toBeGreaterThan(asked);
  });

  it("asks its next hop with the front's validators when it holds nothing to revalidate with: a 304 passed on, no body", async () => {
    const { hop, fake, cache } = tierOverFake();
    const answer = await hop.slices(span(0), undefined, { validators: { etag: '"v1"', lastModified: null } });
    expect(answer.kind).toBe('not-modified');
    expect(answer.response.status).toBe(304);
    const params = memberParams(answer.response.headers.get('cache-status'), MEMBER);
    expect([params?.fwd, params?.fwdStatus]).toEqual(['uri-miss', 304]);
    expect(fake.sliceCalls.map((call) => call.validators)).toEqual([{ etag: '"v1"', lastModified: null }]);
    // Nothing of it kept here: the front's copy was current, and this tier holds what it held before, nothing.
    expect(cache.keys()).toEqual([]);
    // Another version at the next hop: the whole answer, read and kept as any miss.
    const changed = await spanOf(
      await hop.slices(span(0), undefined, { validators: { etag: '"v0"', lastModified: null } }),
    );
    expect(changed.bytes).toEqual(patterned(2.5 * SLICE).subarray(0, SLICE));
  });

  it('streams a slice its store will not admit straight through, never into a put: its reader sets the pace', async () => {
    const { hop, cache } = tierOverFake();
    const offered: string[] = [];
    cache.admits = (key) => {
      offered.push(key);
      return false;
    };
    const first = await spanOf(await hop.slices(span(0, 1), undefined));
    expect(first.bytes).toEqual(patterned(2.5 * SLICE).subarray(0, 2 * SLICE));
    expect(offered.length).toBeGreaterThan(0);
    // The manifest alone (no body to stream), never a slice.
    expect(cache.keys().filter((key) => offered.includes(key))).toEqual([]);
  });
});
