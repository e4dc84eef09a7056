// The TierCache contract (tier-cache-contract.ts) against every store the tiers read through: the Cache API as workerd
// runs it locally (Miniflare's, reached from Node), the edge's memory layer and zone tagging in front of a store, and
// the tests' FakeTierCache, which the unit tests trust to behave as the platform does. And against three deliberately
// broken caches, each of which must fail the clause it breaks.

import { Miniflare, Request as MiniflareRequest, Response as MiniflareResponse } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TierCache } from '../../../shared/tier/tier-cache.ts';
import { zoneTagged } from '../../../worker/edge-cache.ts';
import { MemoryCache, memoryFronted } from '../../../worker/memory-cache.ts';
import { FakeTierCache } from './fakes.ts';
import { type MakeTierCache, TIER_CACHE_CLAUSES, tierCacheViolations } from './tier-cache-contract.ts';

type MiniflareCache = Awaited<ReturnType<Miniflare['getCaches']>>['default'];

/** Miniflare's cache, reached from Node, as a TierCache: Node's Requests and Responses carried across as they are. */
function localCacheApi(cache: MiniflareCache): TierCache {
  const across = (request: Request) => new MiniflareRequest(request.url, { method: request.method });
  return {
    async match(request) {
      const found = await cache.match(across(request));
      if (found === undefined) return undefined;
      const body = found.body === null ? null : new Uint8Array(await found.arrayBuffer());
      return new Response(body, { status: found.status, headers: [...found.headers] });
    },
    async put(request, response) {
      const body = response.body === null ? null : new Uint8Array(await response.arrayBuffer());
      await cache.put(
        across(request),
        new MiniflareResponse(body, { status: response.status, headers: [...response.headers] }),
      );
    },
    delete: (request) => cache.delete(across(request)),
  };
}

let miniflare: Miniflare | undefined;
let namespaces = 0;

beforeAll(async () => {
  miniflare = new Miniflare({ modules: true, script: 'export default { fetch: () => new Response(null) }' });
  await miniflare.ready;
});
afterAll(async () => {
  await miniflare?.dispose();
});

const memory = () => new MemoryCache({ budget: 1024 * 1024, maxObject: 64 * 1024 });

const IMPLEMENTATIONS: readonly [string, MakeTierCache][] = [
  [
    "workerd's Cache API (Miniflare)",
    async () => {
      const caches = await (miniflare as Miniflare).getCaches();
      // A namespace of its own per clause: every clause starts from an empty cache.
      return localCacheApi(await caches.open(`contract-${namespaces++}`));
    },
  ],
  ['FakeTierCache', () => new FakeTierCache()],
  ['the memory layer in front of a store (memoryFronted)', () => memoryFronted(new FakeTierCache(), memory())],
  ['zone tagging in front of a store (zoneTagged)', () => zoneTagged(new FakeTierCache())],
  [
    'the edge as deployed: memory, then zone tagging, then a store',
    () => memoryFronted(zoneTagged(new FakeTierCache()), memory()),
  ],
];

describe.each(IMPLEMENTATIONS)('%s', (_name, make) => {
  it(`keeps every clause of the TierCache contract (${TIER_CACHE_CLAUSES.length})`, async () => {
    expect(await tierCacheViolations(make)).toEqual([]);
  });
});

/** A FakeTierCache with one method replaced. */
function brokenFake(change: (fake: FakeTierCache) => Partial<TierCache>): TierCache {
  const fake = new FakeTierCache();
  const replaced = change(fake);
  return {
    match: replaced.match ?? ((request) => fake.match(request)),
    put: replaced.put ?? ((request, response) => fake.put(request, response)),
    delete: replaced.delete ?? ((request) => fake.delete(request)),
  };
}

describe('a broken cache fails the clause it breaks', () => {
  it.each([
    [
      'a delete that keeps the entry',
      () => brokenFake(() => ({ delete: async () => true })),
      'delete says whether it found the key',
    ],
    [
      'a match that loses the last byte',
      () =>
        brokenFake((fake) => ({
          async match(request) {
            const found = await fake.match(request);
            if (found === undefined) return undefined;
            const body = new Uint8Array(await found.arrayBuffer());
            return new Response(body.subarray(0, Math.max(0, body.length - 1)), found);
          },
        })),
      'what is put is found',
    ],
    [
      'keys without their query',
      () =>
        brokenFake((fake) => {
          const bare = (request: Request) => new Request(request.url.replace(/\?.*$/, ''));
          return {
            match: (request) => fake.match(bare(request)),
            put: (request, response) => fake.put(bare(request), response),
            delete: (request) => fake.delete(bare(request)),
          };
        }),
      'keys are whole URLs',
    ],
  ] as const)('%s', async (_name, make, clause) => {
    const violations = await tierCacheViolations(make);
    expect(
      violations.some((violation) => violation.startsWith(clause)),
      violations.join('\n'),
    ).toBe(true);
  });
});
