// The next-hop contract (next-hop-contract.ts) against every Upstream the tiers read through: the origin as the shield
// reaches it (S3, as s3rver serves it and verifies our SigV4 signatures; a static site serving files), the shield as
// the edge reaches it (the real shield in workerd, on its own socket, reached from Node by the edge's own client over
// a URL transport, as SHIELD_URL reaches it), the decorators over each as the tiers stack them, and the tests'
// FakeUpstream, which the unit tests trust to behave as the real hops do; with the real hops' calls for what is
// forwarded as it came (origin-hop.ts, shield-client.ts shieldHop). And against deliberately broken fakes, each
// of which must fail the clauses it breaks, and no other.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type S3Origin, startS3Origin } from '../../../local/origin.ts';
import { type Stack, startWorkers } from '../../../local/workers.ts';
import { PLATFORM_CLOCK } from '../../../shared/clock/clock.ts';
import { type Config, parseConfig, type RawConfig } from '../../../shared/config/config.ts';
import { originTraits } from '../../../shared/config/origin-traits.ts';
import { BadGateway } from '../../../shared/http/errors.ts';
import { meteredUpstream, RequestMeter } from '../../../shared/observe/request-meter.ts';
import { type RequestTarget, requestTarget } from '../../../shared/request/request-target.ts';
import type { ObjectMeta } from '../../../shared/slices/object-meta.ts';
import { healingUpstream, originHealing } from '../../../shared/tier/healing-upstream.ts';
import { HopLog, loggedUpstream } from '../../../shared/tier/hop-log.ts';
import { hopUpstream, type NextHop } from '../../../shared/tier/next-hop.ts';
import type { HopCalls, Upstream } from '../../../shared/tier/ports.ts';
import { tierHop } from '../../../shared/tier/tier-hop.ts';
import { originHop } from '../../../shield/origin/origin-hop.ts';
import { originOf } from '../../../shield/origin/origin-of.ts';
import { shieldHop } from '../../../worker/shield-client.ts';
import { urlTransport } from '../../../worker/shield-transport.ts';
import { type FileSite, startFileSite } from '../../integration/file-site.ts';
import { FakeHopCalls, type FakeObject, FakeTierCache, FakeUpstream } from './fakes.ts';
import { type MakeNextHop, NEXT_HOP_CLAUSES, type NextHopUnderTest, nextHopViolations } from './next-hop-contract.ts';

declare global {
  // workerd's own field (the hops ask for bodies as sent, never decoded), in the hops' code run here in Node, whose
  // fetch ignores it: its bodies are decoded only when encoded, which no object of the contract is.
  interface RequestInit {
    encodeResponseBody?: 'automatic' | 'manual';
  }
}

/** The smallest slice the configuration takes: objects of a few MiB are sliced. */
const SLICE_SIZE = '1MiB';
const SHIELD_TOKEN = 'contract-shield-token';
/** The client's host, which the edge names to the shield (HOST_HEADER): with one bucket, any host reads S3_BUCKET. */
const HOST = 'contract.tiercache.test';

let s3: S3Origin;
let site: FileSite;
let stack: Stack;
let s3Config: Config;
let siteConfig: Config;

beforeAll(async () => {
  [s3, site] = await Promise.all([startS3Origin(), startFileSite()]);
  const raw: RawConfig = {
    ORIGIN_KIND: 's3',
    ORIGIN_URL: s3.url,
    S3_BUCKET: s3.bucket,
    S3_ACCESS_KEY_ID: s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    SHIELD_TOKEN,
    SLICE_SIZE,
  };
  s3Config = parseConfig(raw);
  siteConfig = parseConfig({ ORIGIN_KIND: 'http', ORIGIN_URL: site.url, SLICE_SIZE });
  stack = await startWorkers({ config: raw });
});
afterAll(async () => {
  await stack?.dispose();
  await Promise.all([s3?.close(), site?.close()]);
});

/** An origin's next hop (originHop) for each object: bare, or `stacked` as every tier stacks its reads' asks. */
function origin(
  config: () => Config,
  put: (name: string, bytes: Uint8Array) => Promise<void>,
  stacked = false,
): MakeNextHop {
  return () => {
    const settings = config();
    const url = (name: string) => new URL(`https://${HOST}/${name}`);
    const next = originHop(originOf(settings), Date.now);
    return {
      sliceSize: settings.slicing.sliceSize,
      put,
      hop: (name) => read(next, requestTarget(url(name), settings.originKind), stacked),
      forwarding: { calls: next, traits: originTraits(settings), url },
    } satisfies NextHopUnderTest;
  };
}

const s3Origin = (stacked?: boolean): MakeNextHop =>
  origin(
    () => s3Config,
    (name, bytes) => s3.putObject(name, bytes),
    stacked,
  );
const siteOrigin = (stacked?: boolean): MakeNextHop =>
  origin(
    () => siteConfig,
    (name, bytes) => site.write(name, bytes),
    stacked,
  );

/** The shield in workerd as the edge's client reaches it at SHIELD_URL (shieldHop), bare or `stacked`, over S3. */
function shield(stacked = false): MakeNextHop {
  return () => {
    const next = shieldHop(urlTransport(new URL(stack.shieldUrl)), s3Config);
    return {
      sliceSize: s3Config.slicing.sliceSize,
      put: (name, bytes) => s3.putObject(name, bytes),
      hop: (name) => read(next, requestTarget(new URL(`https://${HOST}/${name}`), 's3'), stacked),
      forwarding: {
        calls: next,
        traits: originTraits(s3Config),
        url: (name) => new URL(`https://${HOST}/${name}`),
      },
    };
  };
}

/** One read's asks of `next`: bare, or as every tier stacks them (hopUpstream: logged, metered, healing). */
function read(next: NextHop, target: RequestTarget, stacked: boolean): Upstream {
  const ask = { target, host: HOST, client: undefined, watermarks: {}, hops: new HopLog(next.member) };
  return stacked ? hopUpstream(next, ask, meter()) : next.object(ask);
}

const meter = (): RequestMeter => new RequestMeter(Date.now(), () => undefined);

const IMPLEMENTATIONS: readonly [string, MakeNextHop][] = [
  ['FakeUpstream', () => fakeOrigin()],
  ['healingUpstream over FakeUpstream', () => fakeOrigin((fake) => healingUpstream(fake, originHealing(30_000)))],
  ['meteredUpstream over FakeUpstream', () => fakeOrigin((fake) => meteredUpstream(fake, meter(), () => true))],
  ['loggedUpstream over FakeUpstream', () => fakeOrigin((fake) => loggedUpstream(fake, new HopLog()))],
  ['originHop: S3 (s3rver, verifying SigV4)', s3Origin()],
  ['originHop: a static site', siteOrigin()],
  ['originHop over S3, as every tier stacks it (hopUpstream: logged, metered, healing)', s3Origin(true)],
  ['originHop over a site, as every tier stacks it (hopUpstream)', siteOrigin(true)],
  ['shieldHop: the shield in workerd, over S3', shield()],
  ['shieldHop, as every tier stacks it (hopUpstream), over the shield', shield(true)],
  ['tierHop: a Map tier (FakeTierCache) over FakeUpstream', () => mapTierOverFakes()],
  ['tierHop over originHop: S3 (s3rver)', mapTierOverS3()],
  ['tierHop over originHop: S3, as every tier stacks it (hopUpstream)', mapTierOverS3(true)],
];

describe.each(IMPLEMENTATIONS)('%s', (_name, make) => {
  it(`keeps every clause of the next-hop contract (${NEXT_HOP_CLAUSES.length})`, async () => {
    expect(await nextHopViolations(make)).toEqual([]);
  });
});

/** FakeUpstream's slice size: small, as the unit tests' objects are (SLICE_SIZE's floor is the real hops' only). */
const FAKE_SLICE = 4096;

/**
 * An origin of FakeUpstreams, one for each object, answering through what `over` makes of each: an object over a slice is sliced
 * (as SLICE_THRESHOLD's default has it), each version has an ETag of its own, one never put is a 404 page.
 */
function fakeOrigin(over: (fake: FakeUpstream) => Upstream = (fake) => fake): NextHopUnderTest {
  const objects = new Map<string, FakeUpstream>();
  let versions = 0;
  const fakeOf = (name: string): FakeUpstream => {
    const known = objects.get(name);
    if (known !== undefined) return known;
    const missing: FakeObject = {
      body: new TextEncoder().encode('not found'),
      status: 404,
      headers: { 'content-type': 'text/plain' },
    };
    const fake = new FakeUpstream(missing);
    objects.set(name, fake);
    return fake;
  };
  return {
    sliceSize: FAKE_SLICE,
    async put(name, bytes) {
      fakeOf(name).object = {
        body: bytes,
        headers: {
          'content-type': 'application/octet-stream',
          etag: `"v${++versions}"`,
          'last-modified': 'Mon, 02 Mar 2026 09:00:00 GMT',
        },
        ...(bytes.length > FAKE_SLICE ? { sliceSize: FAKE_SLICE } : {}),
      };
    },
    hop: (name) => over(fakeOf(name)),
  };
}

/**
 * A tier behind another in one isolate (tierHop), its cache a FakeTierCache: named the shield, whose member it reports,
 * as this repository's tiers are only the edge and the shield (a third is proven in third-tier.test.ts). Its policy
 * keeps an object without freshness of its own an hour, so that what it read once is a hit.
 */
function mapTier(next: NextHop): NextHop {
  const config = parseConfig({ ORIGIN_KIND: 'http', ORIGIN_URL: 'https://origin.test', DEFAULT_TTL: '3600' });
  const cache = new FakeTierCache();
  return tierHop({ name: 'shield', cache, config, clock: PLATFORM_CLOCK, meter: meter() }, next);
}

/** The tests' FakeUpstreams (fakeOrigin) behind a Map tier, each object's asks the FakeUpstream of its name. */
function mapTierOverFakes(): NextHopUnderTest {
  const origin = fakeOrigin();
  const url = (name: string) => new URL(`https://${HOST}/${name}`);
  const calls = new FakeHopCalls();
  const fakes: NextHop = {
    bypass: (call) => calls.bypass(call),
    passThrough: (call) => calls.passThrough(call),
    member: undefined,
    object: ({ target }) => origin.hop(target.path.slice(1)),
    healing: originHealing(30_000),
    fromOrigin: () => true,
    purge: async () => undefined,
    health: async () => undefined,
  };
  const next = mapTier(fakes);
  return { ...origin, hop: (name) => read(next, requestTarget(url(name), 'http'), false) };
}

/** S3's next hop (originHop) behind a Map tier, bare or `stacked`, with the origin's calls for what is forwarded. */
function mapTierOverS3(stacked = false): MakeNextHop {
  return async () => {
    const under = await s3Origin()();
    const next = mapTier(originHop(originOf(s3Config), Date.now));
    const url = (name: string) => new URL(`https://${HOST}/${name}`);
    // What is forwarded as it came goes through the tier to S3's calls.
    const forwarding = { ...under.forwarding!, calls: next };
    return { ...under, forwarding, hop: (name) => read(next, requestTarget(url(name), 's3'), stacked) };
  };
}

/** The S3 origin's next hop, its calls for what is forwarded as it came made over by `change`. */
function brokenCalls(change: (calls: HopCalls) => HopCalls): MakeNextHop {
  return async () => {
    const under = await s3Origin()();
    const forwarding = under.forwarding!;
    return { ...under, forwarding: { ...forwarding, calls: change(forwarding.calls) } };
  };
}

describe('a broken next hop fails the clauses it breaks, and no other', () => {
  it.each([
    [
      'its bypassed answer one byte short',
      brokenCalls((calls) => ({
        ...calls,
        async bypass(call) {
          const answer = await calls.bypass(call);
          const bytes = new Uint8Array(await answer.arrayBuffer());
          return new Response(bytes.subarray(0, bytes.length - 1), answer);
        },
      })),
      ['a bypassed GET of an object'],
    ],
    [
      'it forwards another method where the origin takes none',
      brokenCalls((calls) => ({ ...calls, passThrough: async () => new Response('done') })),
      ['another method reaches'],
    ],
    [
      'pinned to a version gone, it answers the new version',
      () =>
        fakeOrigin((fake) => {
          const current = (pinned: ObjectMeta | undefined) =>
            pinned && { ...pinned, etag: fake.object.headers.etag ?? '' };
          return {
            slices: (span, pinned, ask) => fake.slices(span, current(pinned), ask),
            head: (signal) => fake.head(signal),
          };
        }),
      ['pinned to a version that is no longer'],
    ],
    [
      'its last slice one byte short',
      () =>
        fakeOrigin((fake) => ({
          async slices(span, pinned, ask) {
            const answer = await fake.slices(span, pinned, ask);
            if (answer.kind !== 'span' || (answer.span.last + 1) * answer.meta.sliceSize < answer.meta.size)
              return answer;
            return { ...answer, body: answer.body.pipeThrough(withoutLastByte()) };
          },
          head: (signal) => fake.head(signal),
        })),
      ['pinned, a span answers exactly its bytes', 'from an offset'],
    ],
    [
      // As FakeUpstream itself did, until this contract found that every real hop heeds it.
      'it ignores the signal',
      () =>
        fakeOrigin((fake) => ({
          slices: (span, pinned, ask) => fake.slices(span, pinned, { ...ask, signal: undefined }),
          head: () => fake.head(),
        })),
      ['an aborted signal stops the fetch'],
    ],
    [
      'it ignores validators',
      () =>
        fakeOrigin((fake) => {
          fake.revalidates = false;
          return fake;
        }),
      ['validators that still match'],
    ],
    [
      'a missing object is its own 502',
      () =>
        fakeOrigin((fake) => ({
          async slices(span, pinned, ask) {
            const answer = await fake.slices(span, pinned, ask);
            if (answer.kind !== 'whole' || answer.response.status !== 404) return answer;
            await answer.response.body?.cancel();
            throw new BadGateway('origin failed');
          },
          head: (signal) => fake.head(signal),
        })),
      ['a missing object is a 404'],
    ],
  ] as const)('%s', async (_name, make, clauses) => {
    const violations = await nextHopViolations(make);
    // Exactly these, in the contract's order: each violation named by the start of its clause.
    expect(
      violations.map((violation) => clauses.find((clause) => violation.startsWith(clause)) ?? violation),
      violations.join('\n'),
    ).toEqual(clauses);
  });
});

/** A stream's bytes but its last: each chunk held back until the next comes, the last one cut short at the end. */
function withoutLastByte(): TransformStream<Uint8Array, Uint8Array> {
  let held: Uint8Array | undefined;
  return new TransformStream({
    transform(chunk, controller) {
      if (held !== undefined) controller.enqueue(held);
      held = chunk;
    },
    flush(controller) {
      if (held !== undefined && held.length > 1) controller.enqueue(held.subarray(0, held.length - 1));
    },
  });
}
