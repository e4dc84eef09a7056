// passThrough (shared/tier/pass-through.ts) over fake ports: a method other than GET, HEAD and OPTIONS, at either
// tier: 405 for an origin that takes none, else forwarded through the next hop, counted, reported, and what a
// successful unsafe one changes removed from this tier's cache (RFC 9111 §4.4).

import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../shared/config/config.ts';
import { originTraits } from '../../../shared/config/origin-traits.ts';
import { MethodNotAllowed } from '../../../shared/http/errors.ts';
import { RequestMeter } from '../../../shared/observe/request-meter.ts';
import { type PassingTier, passThrough } from '../../../shared/tier/pass-through.ts';
import type { TierCache } from '../../../shared/tier/tier-cache.ts';
import type { TierName } from '../../../shared/tiers/tiers.ts';
import { FakeHopCalls, FakeTierCache } from './fakes.ts';

const SITE = parseConfig({ ORIGIN_KIND: 'http', ORIGIN_URL: 'https://origin.test' });
const S3 = parseConfig({
  ORIGIN_URL: 'https://s3.test',
  S3_BUCKET: 'assets',
  S3_ACCESS_KEY_ID: 'key',
  S3_SECRET_ACCESS_KEY: 'secret',
});

type TestTier = PassingTier & { hop: FakeHopCalls; meter: RequestMeter; store: FakeTierCache };

/** A tier over a site (or `config`'s origin) that keys an entry by its URL, its answers relative to the client's. */
function tierOf(config = SITE, name: TierName = 'edge', cache?: TierCache): TestTier {
  const store = new FakeTierCache();
  return {
    name,
    traits: originTraits(config),
    hop: new FakeHopCalls(),
    meter: new RequestMeter(Date.now(), () => undefined),
    store,
    cache: async () => cache ?? store,
    answeredFor: ({ request }) => new URL(request.url),
    keyOf: (url) => url.href,
  };
}

/** Stores an entry at `url` in the tier's cache. */
async function stored(tier: TestTier, ...urls: string[]): Promise<void> {
  for (const url of urls)
    await tier.store.put(new Request(url), new Response('kept', { headers: { 'cache-control': 'max-age=600' } }));
}

function post(url = 'https://site.test/form', method = 'POST', body: string | null = 'a=1'): [Request, URL] {
  return [new Request(url, { method, body, headers: { 'content-type': 'text/plain' } }), new URL(url)];
}

/** The request, passed through `tier`, with everything it left running settled. */
async function passed(tier: TestTier, [request, url] = post()): Promise<Response> {
  const answer = await passThrough(request, url, tier, Date.now());
  await tier.meter.settled();
  return answer;
}

describe('passThrough: to an origin that takes no other methods (S3)', () => {
  it('is a 405 naming GET, HEAD and OPTIONS in Allow (RFC 9110 §15.5.6), never forwarded, nothing removed', async () => {
    const tier = tierOf(S3);
    await stored(tier, 'https://site.test/form');
    const refused = passThrough(...post(), tier, Date.now());
    await expect(refused).rejects.toBeInstanceOf(MethodNotAllowed);
    const error = await refused.catch((caught: MethodNotAllowed) => caught);
    expect(error.status).toBe(405);
    expect(error.headers).toMatchObject({ allow: 'GET, HEAD, OPTIONS' });
    expect(tier.hop.calls).toEqual([]);
    expect(tier.store.count('delete')).toBe(0);
  });
});

describe('passThrough: to an origin that takes them (a site)', () => {
  it('forwards the request as it came through the next hop, its target as the origin names it', async () => {
    const tier = tierOf();
    const [request, url] = post('https://site.test/a/../form?x=1');
    await passed(tier, [request, url]);
    expect(tier.hop.calls).toHaveLength(1);
    const [call] = tier.hop.calls;
    expect(call?.via).toBe('passThrough');
    expect(call?.request).toBe(request);
    expect(call?.url).toBe(url);
    expect([call?.target.path, call?.target.query]).toEqual(['/form', '?x=1']);
  });

  it.each(['edge', 'shield'] as const)(
    "sends the next hop's answer back, reported in the %s's member as fwd=method",
    async (name) => {
      const tier = tierOf(SITE, name);
      tier.hop.answer = () => new Response('made', { status: 201, headers: { 'content-length': '4' } });
      const answer = await passed(tier);
      expect(answer.status).toBe(201);
      expect(await answer.text()).toBe('made');
      expect(answer.headers.get('cache-status')).toBe(`tiercache-${name}; fwd=method`);
    },
  );

  it('counts its answer as fetched from the origin', async () => {
    const tier = tierOf();
    await (await passed(tier)).arrayBuffer();
    expect([tier.meter.bytesFromNextHop, tier.meter.bytesFromOrigin]).toEqual([9, 9]);
  });

  it('RFC 9111 §4.4: a successful unsafe method removes what this tier stored for its target', async () => {
    const tier = tierOf();
    await stored(tier, 'https://site.test/form', 'https://site.test/other');
    await passed(tier);
    expect(tier.store.keys()).toEqual(['https://site.test/other']);
  });

  it('RFC 9111 §4.4: and for the Location and Content-Location it names on the same host, not on another', async () => {
    const tier = tierOf();
    const urls = ['https://site.test/form', 'https://site.test/posts/7', 'https://site.test/posts/7.json'];
    await stored(tier, ...urls, 'https://elsewhere.test/posts/7');
    tier.hop.answer = () =>
      new Response(null, {
        status: 303,
        headers: { location: '/posts/7', 'content-location': 'https://site.test/posts/7.json' },
      });
    await passed(tier);
    expect(tier.store.keys()).toEqual(['https://elsewhere.test/posts/7']);
    tier.hop.answer = () =>
      new Response(null, { status: 201, headers: { location: 'https://elsewhere.test/posts/7' } });
    await passed(tier);
    expect(tier.store.keys()).toEqual(['https://elsewhere.test/posts/7']);
  });

  it("resolves what the answer names against the URL the tier says it answers for (the shield's: the origin's)", async () => {
    const tier = { ...tierOf(SITE, 'shield'), answeredFor: () => new URL('https://origin.test/base/form') };
    await stored(tier, 'https://origin.test/base/form', 'https://origin.test/base/next', 'https://site.test/form');
    tier.hop.answer = () => new Response(null, { status: 303, headers: { location: 'next' } });
    await passed(tier);
    expect(tier.store.keys()).toEqual(['https://site.test/form']);
  });

  it.each([
    ['an error answer', 'POST', 500],
    ['a 4xx', 'DELETE', 409],
    ['a safe method (RFC 9110 §9.2.1)', 'PROPFIND', 207],
  ])('%s removes nothing', async (_name, method, status) => {
    const tier = tierOf();
    await stored(tier, 'https://site.test/form');
    tier.hop.answer = () => new Response(null, { status });
    const answer = await passed(tier, post('https://site.test/form', method, null));
    expect(answer.status).toBe(status);
    expect(tier.store.keys()).toEqual(['https://site.test/form']);
    expect(tier.store.count('delete')).toBe(0);
  });

  it('lets go of a URL this tier cannot key (it was never stored)', async () => {
    const tier = { ...tierOf(), keyOf: () => undefined };
    await stored(tier, 'https://site.test/form');
    expect((await passed(tier)).status).toBe(200);
    expect(tier.store.count('delete')).toBe(0);
  });

  it('lets go of a removal that fails: the answer goes out all the same', async () => {
    const failing: TierCache = {
      match: async () => undefined,
      put: async () => undefined,
      delete: () => Promise.reject(new Error('the platform refused the delete')),
    };
    const tier = tierOf(SITE, 'edge', failing);
    const answer = await passed(tier);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe('forwarded');
  });
});
