// The shield's request handling, for either of its entrypoints (index.ts), each wrapping it in its layer
// (workers-cache-layer.ts): the regional tier next to the origin, reached only over the edge's service binding.
// README.md says what it does with a request, in order.

import { Hono } from 'hono';
import { fromTheEdge } from '../shared/admission/tier-credentials.ts';
import { CREDENTIAL_HEADER } from '../shared/hop/hop-fields.ts';
import { parseSliceRequestPath } from '../shared/hop/slice-protocol.ts';
import { errorResponse, Forbidden, HttpError, MethodNotAllowed, NotFound } from '../shared/http/errors.ts';
import { tierLocation } from '../shared/http/health-report.ts';
import { observedFetch } from '../shared/observe/observed.ts';
import { normalizePath } from '../shared/request/canonical-path.ts';
import type { RequestFacts } from '../shared/request/request-facts.ts';
import { requestUrl } from '../shared/request/request-target.ts';
import { HEALTH_PATH, isReserved, PURGE_PATH, WARM_PATH } from '../shared/request/reserved-paths.ts';
import { withHitStore, withTierReport } from '../shared/tier/tier-headers.ts';
import type { ShieldCache } from '../shared/tiers/shield-caches.ts';
import { type ShieldBindings, type ShieldEnv, type ShieldRequest, shieldBindings } from './env.ts';
import { originHop } from './origin/origin-hop.ts';
import { originOf } from './origin/origin-of.ts';
import { originUrlFor } from './origin/origin-url.ts';
import { r2Request } from './r2/r2-tier.ts';
import { prefetchAfter } from './segment-prefetch.ts';
import { invalidatedShieldKey } from './shield-cache.ts';
import { acceptPurge, answerObject, answerShieldHealth, shieldTier } from './shield-tier.ts';
import { acceptWarm } from './warm-object.ts';

/**
 * The shield's named entrypoint Workers Cache fronts (cli/wrangler-config.ts names it in the deployed configuration;
 * workers-cache-layer.ts reaches it through `ctx.exports`).
 */
export const SLICES_ENTRYPOINT = 'ShieldSlices';

/** Where the shield's read path keeps its copies (shield-cache.ts), as a hit of it names it. */
const READ_PATH_CACHE: ShieldCache = 'cache-api';

const app = new Hono<{ Bindings: ShieldRequest; Variables: RequestFacts }>();

app.onError((error, c) => refusal(error, c.req.method, c.var.started));

app.use('*', async (c, next) => {
  c.set('started', Date.now());
  if (!fromTheEdge(c.req.header(CREDENTIAL_HEADER) ?? null, c.env.config.shieldToken)) {
    throw new Forbidden('the shield answers only the edge tier');
  }
  c.set('now', c.env.clock.now());
  c.set('url', requestUrl(c.req.url));
  await next();
});

// Its own endpoints, on the canonical path: purge and warm (POST), health, those its entrypoint adds (ShieldRequest
// ownEndpoints), slice requests (GET/HEAD, below); anything else under the prefix is no object.
app.use('*', async (c, next) => {
  const path = normalizePath(c.var.url.pathname);
  if (!isReserved(path)) return next();
  const own = c.env.ownEndpoints?.get(path);
  if (path === PURGE_PATH || path === WARM_PATH || path === HEALTH_PATH || own !== undefined) {
    // Not requests for objects: no record is made of them.
    c.env.meter.internal = true;
    if (path === HEALTH_PATH) return answerShieldHealth(c.env, tierLocation(c.req.raw));
    if (c.req.method !== 'POST') throw new MethodNotAllowed(c.req.method, ['POST']);
    if (own !== undefined) return own(c.req.raw);
    return path === WARM_PATH ? acceptWarm(c.req.raw, c.env) : acceptPurge(c.req.raw, c.env);
  }
  if ((c.req.method === 'GET' || c.req.method === 'HEAD') && parseSliceRequestPath(c.var.url.pathname) !== undefined)
    return next();
  throw new NotFound('no such endpoint');
});

// The answer to a client's read of a playlist or a segment is also what prefetches the next segments
// (segment-prefetch.ts).
app.on(['GET', 'HEAD'], '*', async (c) =>
  prefetchAfter(c.req.raw, await answerObject(c.req.raw, c.env, c.var), c.env, c.var, c.executionCtx),
);

// Other methods (shared/tier/pass-through.ts): to a site through the origin, its answers' URLs the origin's own.
app.all('*', (c) => {
  const origin = originOf(c.env.config);
  return shieldTier(c.env).passThrough(c.req.raw, c.var, {
    traits: origin.traits,
    next: originHop(origin, () => c.env.clock.now()),
    answeredFor: ({ target }) => originUrlFor(origin.config, target),
    keyOf: (url) => invalidatedShieldKey(origin, url),
  });
});

/** An error as the edge gets it, with this tier's report (a ConfigError names the setting). */
export function refusal(error: unknown, method: string, started: number): Response {
  if (!(error instanceof HttpError)) console.error('shield: unexpected error', error);
  return withTierReport(
    errorResponse(error, method),
    'shield',
    { detail: (error instanceof HttpError ? error.detail : undefined) ?? 'refused' },
    Date.now() - started,
  );
}

/** The shield's answer to one request, handed its per-request bindings (and its entrypoint's additions to them). */
export type ShieldHandler = (
  request: Request,
  shield: ShieldRequest,
  ctx: ExecutionContext,
) => Response | Promise<Response>;

/** This app, as the handler an entrypoint's layer wraps (workers-cache-layer.ts). */
export const shieldApp: ShieldHandler = (request, shield, ctx) => app.fetch(request, shield, ctx);

/**
 * A request to one of the shield's entrypoints, answered by `handler` (this app, as its entrypoint's layer wraps it):
 * the bindings parsed once per isolate, the request's record made around it.
 */
export function handleShield(
  request: Request,
  env: ShieldEnv,
  ctx: ExecutionContext,
  handler: ShieldHandler,
): Response | Promise<Response> {
  let bindings: ShieldBindings;
  try {
    bindings = shieldBindings(env);
  } catch (error) {
    return refusal(error, request.method, Date.now());
  }
  const answer = observedFetch(request, ctx, bindings, (bound) => {
    // The R2 tier, where it is on: its record made once the shield's work for this request (which asks it) is done.
    const { r2Tier } = bindings;
    const r2 = r2Tier && r2Request(r2Tier, bindings.observed, (promise) => ctx.waitUntil(promise));
    const answered = handler(request, r2 === undefined ? bound : { ...bound, r2 }, ctx);
    r2?.record(
      request,
      Promise.resolve(answered).then(() => bound.meter.settled()),
      () => bound.meter.bytesFromNextHop,
    );
    return answered;
  });
  // A hit of the shield's says which of its caches held it (docs/caching.md "What each tier reports"): its read path
  // keeps its copies in the Cache API (shield-cache.ts); a Workers Cache hit says so itself (workers-cache-gateway.ts).
  return Promise.resolve(answer).then((response) => withHitStore(response, 'shield', READ_PATH_CACHE));
}
