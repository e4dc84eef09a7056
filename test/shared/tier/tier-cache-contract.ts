// What the tiers rely on of a TierCache (shared/tier/tier-cache.ts), whatever stores it: the Cache API, the edge's
// memory layer and zone tagging in front of it, the tests' FakeTierCache, any store to come. Run as a list of the
// clauses an implementation breaks (empty: it keeps them all), so that a deliberately broken one can be shown to fail
// it (tier-cache-contract.test.ts), as undici runs its cacheStoreTests against every CacheStore.

import type { TierCache } from '../../../shared/tier/tier-cache.ts';
import { clauseViolations, expectEqual } from '../../contract.ts';

/** A fresh, empty cache of the implementation under test. */
export type MakeTierCache = () => TierCache | Promise<TierCache>;

interface Clause {
  name: string;
  /** Resolves when the clause holds; throws (or rejects) with what was seen when it does not. */
  check(cache: TierCache): Promise<void>;
}

const BASE = 'https://contract.tiercache.internal';
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

function stored(body: string | null, headers: Record<string, string> = {}): Response {
  return new Response(body, {
    status: 200,
    headers: { 'content-type': 'application/octet-stream', 'cache-control': 'max-age=3600', ...headers },
  });
}

const get = (path: string): Request => new Request(`${BASE}${path}`);

async function text(response: Response | undefined): Promise<string | undefined> {
  return response === undefined ? undefined : new TextDecoder().decode(await response.arrayBuffer());
}

const CLAUSES: readonly Clause[] = [
  {
    name: 'a key never put is not found',
    async check(cache) {
      expectEqual(await cache.match(get('/never')), undefined, 'match');
    },
  },
  {
    name: 'what is put is found, and found again: its status, the headers put and exactly its bytes',
    async check(cache) {
      await cache.put(get('/a'), stored('the bytes of a', { 'x-tiercache-entry': 'a; v=1', etag: '"1"' }));
      // Found twice alike: a layer that keeps a copy (the edge's memory) answers the second from it.
      for (const time of ['first', 'second']) {
        const found = await cache.match(get('/a'));
        if (found === undefined) throw new Error(`${time} match: nothing found`);
        expectEqual(found.status, 200, `${time} status`);
        expectEqual(found.headers.get('x-tiercache-entry'), 'a; v=1', `${time} x-tiercache-entry`);
        expectEqual(found.headers.get('etag'), '"1"', `${time} etag`);
        // A Content-Length, where the store gives one (workerd's does when it knew the put's length), is the bytes'.
        const length = found.headers.get('content-length');
        if (length !== null) expectEqual(length, String(bytes('the bytes of a').byteLength), `${time} content-length`);
        expectEqual(await text(found), 'the bytes of a', `${time} body`);
      }
    },
  },
  {
    name: 'a second put of a key replaces the first',
    async check(cache) {
      await cache.put(get('/b'), stored('first'));
      await cache.put(get('/b'), stored('second, longer'));
      expectEqual(await text(await cache.match(get('/b'))), 'second, longer', 'body');
    },
  },
  {
    name: 'delete says whether it found the key, and what it deleted is not found again',
    async check(cache) {
      await cache.put(get('/c'), stored('c'));
      expectEqual(await cache.delete(get('/c')), true, 'delete of a stored key');
      expectEqual(await cache.match(get('/c')), undefined, 'match after delete');
      expectEqual(await cache.delete(get('/c')), false, 'delete of an absent key');
    },
  },
  {
    name: 'keys are whole URLs: a query or another path is another key',
    async check(cache) {
      await cache.put(get('/d?v=1'), stored('d1'));
      expectEqual(await cache.match(get('/d')), undefined, 'match without the query');
      expectEqual(await cache.match(get('/d?v=2')), undefined, 'match with another query');
      expectEqual(await cache.match(get('/D?v=1')), undefined, 'match of another path');
      expectEqual(await text(await cache.match(get('/d?v=1'))), 'd1', 'match of the key put');
    },
  },
  {
    name: 'an entry of no bytes is found, with none',
    async check(cache) {
      await cache.put(get('/empty'), stored(null, { 'content-length': '0' }));
      const found = await cache.match(get('/empty'));
      if (found === undefined) throw new Error('match: nothing found');
      expectEqual(await text(found), '', 'body');
    },
  },
  {
    name: 'a 206 is refused, not kept (the tiers store slices as 200s of their own)',
    async check(cache) {
      const partial = new Response('par', { status: 206, headers: { 'content-range': 'bytes 0-2/10' } });
      const refused = await cache.put(get('/partial'), partial).then(
        () => false,
        () => true,
      );
      expectEqual(refused, true, 'put of a 206 refused');
      expectEqual(await cache.match(get('/partial')), undefined, 'match');
    },
  },
  {
    name: 'a response marked no-store is not kept',
    async check(cache) {
      await cache.put(get('/no-store'), stored('secret', { 'cache-control': 'no-store' })).catch(() => undefined);
      expectEqual(await cache.match(get('/no-store')), undefined, 'match');
    },
  },
];

/** The clauses `make`'s caches break, each with what was seen; empty when it keeps them all. Each runs on a fresh cache. */
export async function tierCacheViolations(make: MakeTierCache): Promise<string[]> {
  return clauseViolations(CLAUSES, async (clause) => clause.check(await make()));
}

/** The names of the clauses, for reports. */
export const TIER_CACHE_CLAUSES = CLAUSES.map((clause) => clause.name);
