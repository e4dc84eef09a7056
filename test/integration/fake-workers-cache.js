// Test fixture standing in for Cloudflare's Workers Cache, which has no local emulation: the
// real shield's default entrypoint (shield/workers-cache-layer.ts) runs it, whose way to the
// slices entrypoint (`ctx.exports.ShieldSlices`) is this fake cache in front of the real slices
// entrypoint, handed a fake `ctx.cache`. It does what the platform's documentation says Workers
// Cache does (developers.cloudflare.com/workers/cache/): keys by the caller's `cf.cacheKey`,
// keeps a 200 its Cloudflare-CDN-Cache-Control allows for that `max-age` (`no-store`: never),
// consumes that field and Cache-Tag (tags matched without regard to case), says what it did in
// Cf-Cache-Status, and purges by tag or everything. Both entrypoints run the shield's real app,
// each run noted, so a test can count how often the app answered a request. A test reads what
// it did and makes its purges fail through the shield's own socket, at these paths.
//
// JavaScript, not TypeScript: it imports the shield, which needs the Workers types, and
// test/tsconfig.json checks test files against Node's. esbuild bundles it as any entry.
import { shieldApp } from '../../shield/shield-app.ts';
import { workersCacheLayer } from '../../shield/workers-cache-layer.ts';

export { StatsStore } from '../../shield/index.ts';

const LOG_PATH = '/__test/workers-cache';
const FAIL_PATH = '/__test/workers-cache/fail-purges';

/** cache key → { status, headers, body, tags, expires } */
const store = new Map();
const log = { lookups: [], stored: [], purges: [], invalidations: [], revalidations: [], appRuns: [] };
let failPurges = false;

/** The shield's app, noting each run in `log.appRuns` as `<entrypoint> <METHOD> <path>`. */
const noted = (entrypoint) => (request, shield, ctx) => {
  log.appRuns.push(`${entrypoint} ${request.method} ${new URL(request.url).pathname}`);
  return shieldApp(request, shield, ctx);
};

const fakePurgeApi = {
  async purge(options) {
    log.purges.push(options);
    if (failPurges) return { success: false, errors: [{ code: 1134, message: 'purge rate limited (fake)' }] };
    const tags = new Set((options.tags ?? []).map((tag) => tag.toLowerCase()));
    for (const [key, entry] of store)
      if (options.purgeEverything || entry.tags.some((tag) => tags.has(tag))) store.delete(key);
    return { success: true, errors: [] };
  },
  // invalidate(): the same options, matching entries kept but stale, revalidated with the entrypoint by a conditional
  // request from their stored validators (developers.cloudflare.com/changelog/post/2026-09-29-workers-cache-invalidate/).
  async invalidate(options) {
    log.invalidations.push(options);
    if (failPurges) return { success: false, errors: [{ code: 1134, message: 'purge rate limited (fake)' }] };
    const tags = new Set((options.tags ?? []).map((tag) => tag.toLowerCase()));
    for (const entry of store.values())
      if (options.purgeEverything || entry.tags.some((tag) => tags.has(tag))) entry.expires = 0;
    return { success: true, errors: [] };
  },
};

function fakeWorkersCache(env, ctx) {
  const slicesCtx = {
    waitUntil: (promise) => ctx.waitUntil(promise),
    passThroughOnException: () => undefined,
    exports: ctx.exports,
    props: {},
    cache: fakePurgeApi,
  };
  const slices = (request) => workersCacheLayer.slices(request, env, slicesCtx, noted('slices'));
  return {
    async fetch(input, init = {}) {
      const request = new Request(input, init);
      const key = init.cf?.cacheKey;
      // Only GET and HEAD are cached; a purge POST always runs the entrypoint.
      if (request.method !== 'GET' || key === undefined) return slices(request);
      log.lookups.push(key);
      const held = store.get(key);
      if (held !== undefined && held.expires > Date.now()) {
        return new Response(held.body, { status: held.status, headers: [...held.headers, ['cf-cache-status', 'HIT']] });
      }
      const etag = held?.headers.find(([name]) => name === 'etag')?.[1];
      if (held !== undefined && etag !== undefined) request.headers.set('if-none-match', etag);
      const answer = await slices(request);
      if (held !== undefined && etag !== undefined) log.revalidations.push({ key, status: answer.status });
      if (held !== undefined && answer.status === 304) {
        const field = answer.headers.get('cloudflare-cdn-cache-control') ?? '';
        held.expires = Date.now() + Number(/(?:^|,)\s*max-age=(\d+)/.exec(field)?.[1] ?? 0) * 1000;
        return new Response(held.body, {
          status: held.status,
          headers: [...held.headers, ['cf-cache-status', 'REVALIDATED']],
        });
      }
      const field = answer.headers.get('cloudflare-cdn-cache-control') ?? '';
      const maxAge = Number(/(?:^|,)\s*max-age=(\d+)/.exec(field)?.[1] ?? 0);
      const headers = new Headers(answer.headers);
      const tags = (headers.get('cache-tag') ?? '')
        .split(',')
        .map((tag) => tag.trim().toLowerCase())
        .filter(Boolean);
      // Cloudflare consumes both before the caller sees the answer.
      headers.delete('cloudflare-cdn-cache-control');
      headers.delete('cache-tag');
      if (answer.status !== 200 || /no-store/.test(field) || maxAge <= 0) {
        headers.set('cf-cache-status', 'BYPASS');
        return new Response(answer.body, { status: answer.status, headers });
      }
      const body = new Uint8Array(await answer.arrayBuffer());
      store.set(key, { status: answer.status, headers: [...headers], body, tags, expires: Date.now() + maxAge * 1000 });
      log.stored.push({ key, tags, field });
      headers.set('cf-cache-status', 'MISS');
      return new Response(body, { status: answer.status, headers });
    },
  };
}

export default {
  async fetch(request, env, ctx) {
    const { pathname } = new URL(request.url);
    if (pathname === LOG_PATH) return Response.json({ ...log, held: [...store.keys()] });
    if (pathname === FAIL_PATH) {
      failPurges = true;
      return new Response('purges fail from now on\n');
    }
    const exports = { ...ctx.exports, ShieldSlices: fakeWorkersCache(env, ctx) };
    return workersCacheLayer.gateway(
      request,
      env,
      { waitUntil: (promise) => ctx.waitUntil(promise), passThroughOnException: () => undefined, exports, props: {} },
      noted('gateway'),
    );
  },
};
