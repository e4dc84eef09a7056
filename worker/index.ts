// The edge worker: runs in every location, answers from its own cache, and on a miss asks the shield over the
// service binding. This file only wires; README.md says what the edge does with a request, in order.

import { Hono } from 'hono';
import { CACHED_METHODS, originTraits } from '../shared/config/origin-traits.ts';
import { errorResponse, HttpError, MethodNotAllowed, NotFound, SignatureRefused } from '../shared/http/errors.ts';
import { tierLocation } from '../shared/http/health-report.ts';
import { observedFetch } from '../shared/observe/observed.ts';
import { normalizePath } from '../shared/request/canonical-path.ts';
import type { RequestFacts } from '../shared/request/request-facts.ts';
import { requestUrl } from '../shared/request/request-target.ts';
import {
  EVENTS_PATH,
  HEALTH_PATH,
  isReserved,
  PURGE_PATH,
  STATS_JSON_PATH,
  STATS_PATH,
  WARM_PATH,
} from '../shared/request/reserved-paths.ts';
import { withTierReport } from '../shared/tier/tier-headers.ts';
import { admission, admittedRequest } from './admission.ts';
import { forwardedPath, invalidatedKey } from './edge-address.ts';
import { answerObject, edgeTier } from './edge-tier.ts';
import { type EdgeBindings, type EdgeEnv, type EdgeRequest, edgeBindings } from './env.ts';
import { bucketEvents } from './events.ts';
import { answerHealth } from './health.ts';
import { answerFromMemory } from './memory-hit.ts';
import { purge } from './purge.ts';
import { shieldHop } from './shield-client.ts';
import { withPlaylistTokens } from './signed-playlists.ts';
import { withSiteResponses } from './site-responses.ts';
import { answerStats } from './stats-endpoint.ts';
import { warm } from './warm.ts';

const app = new Hono<{ Bindings: EdgeRequest; Variables: RequestFacts }>();

app.use('*', async (c, next) => {
  c.set('started', Date.now());
  c.set('now', c.env.clock.now());
  c.set('url', requestUrl(c.req.url));
  await next();
});

// The tiers' own paths, routed on the canonical spelling of the path and of the target it would
// be forwarded on (`/x/%2e%2e/purge` and `/%5f_tiercache/purge` are the purge endpoint); any
// other spelling that an origin could read into the prefix (`/x/..%2F__tiercache/purge`) is a
// 404 here, and none reaches the shield as an object. The rest of /__tiercache/ is a 404 too, never forwarded.
app.use('*', async (c, next) => {
  const path = normalizePath(c.var.url.pathname);
  if (!isReserved(path, forwardedPath(c.var.url, c.env.config))) return next();
  // The tiers' own endpoints are not requests for objects: no record is made of them.
  c.env.meter.internal = true;
  if (path === PURGE_PATH) {
    if (c.req.method === 'POST') return purge(c.req.raw, c.env, (work) => c.executionCtx.waitUntil(work));
    throw new MethodNotAllowed(c.req.method, ['POST']);
  }
  if (path === EVENTS_PATH) {
    if (c.req.method === 'POST') return bucketEvents(c.req.raw, c.env, (work) => c.executionCtx.waitUntil(work));
    throw new MethodNotAllowed(c.req.method, ['POST']);
  }
  if (path === WARM_PATH) {
    if (c.req.method === 'POST') return warm(c.req.raw, c.env);
    throw new MethodNotAllowed(c.req.method, ['POST']);
  }
  const read = internalRead(path);
  if (read === undefined) throw new NotFound('no such endpoint');
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') throw new MethodNotAllowed(c.req.method, ['GET', 'HEAD']);
  return read === 'health'
    ? answerHealth(c.env, c.req.method, tierLocation(c.req.raw))
    : answerStats(c.req.raw, c.env, read);
});

app.onError((error, c) => refusal(error, c.req.method, c.var.started));

app.on(['GET', 'HEAD'], '*', (c) => answerObject(c.req.raw, c.env, c.var));

app.options('*', (c) =>
  withTierReport(
    new Response(null, { status: 204, headers: { allow: CACHED_METHODS.join(', ') } }),
    'edge',
    {},
    Date.now() - c.var.started,
  ),
);

// Other methods (shared/tier/pass-through.ts): to a site through the shield, which owns the origin connection; the
// URLs its answers name are the client's.
app.all('*', (c) => {
  const { config } = c.env;
  return edgeTier(c.env).passThrough(c.req.raw, c.var, {
    traits: originTraits(config),
    next: shieldHop(c.env.shield, config),
    answeredFor: ({ request }) => new URL(request.url),
    keyOf: (url) => invalidatedKey(url, config),
  });
});

/** An error as the client gets it, with this tier's report (a ConfigError names the setting). */
function refusal(error: unknown, method: string, started: number): Response {
  if (!(error instanceof HttpError)) console.error('edge: unexpected error', error);
  return withTierReport(
    errorResponse(error, method),
    'edge',
    { detail: (error instanceof HttpError ? error.detail : undefined) ?? 'refused' },
    Date.now() - started,
  );
}

/** The endpoints read with GET or HEAD. */
function internalRead(path: string): 'html' | 'json' | 'health' | undefined {
  if (path === STATS_PATH) return 'html';
  if (path === STATS_JSON_PATH) return 'json';
  return path === HEALTH_PATH ? 'health' : undefined;
}

/**
 * The memory layer, then the app, for a request admission let through (with its token taken off). The documents read
 * for another request's answer (a 404 page, a single-page app's fallback) are requests of their own, built from the
 * admitted path without its query: never `edge.admitted`'s, and admitted by the client's own token before they are
 * read (site-responses.ts, admitsDocument).
 */
function served(request: Request, edge: EdgeRequest, ctx: ExecutionContext): Response | Promise<Response> {
  const admitted = edge.admitted?.request === request ? edge.admitted.url : undefined;
  const hot = answerFromMemory(request, edge, admitted ?? request.url);
  if (hot !== undefined) return hot;
  return app.fetch(admitted === undefined ? request : admittedRequest(request, admitted), edge, ctx);
}

/**
 * What every GET, HEAD and OPTIONS answer passes through last: the rules' redirects, fallbacks and header edits, the
 * static-site conveniences (404 page, CORS).
 */
const site = withSiteResponses(served);

/**
 * Admission first of all (a protected path's signature, docs/private-content.md): a refused request meets no rule,
 * no cache, no memory layer; an admitted one goes on without its token.
 */
function edgeFetch(request: Request, edge: EdgeRequest, ctx: ExecutionContext): Response | Promise<Response> {
  if (edge.admission === undefined) return site(request, edge, ctx);
  const started = Date.now();
  const verdict = admission(request, edge, edge.admission);
  if (verdict === request) return site(request, edge, ctx);
  const next = (url: string | SignatureRefused): Response | Promise<Response> => {
    if (url instanceof SignatureRefused) return refusal(url, request.method, started);
    // A playlist a URL token admitted carries the token to what it names (signed-playlists.ts).
    return withPlaylistTokens(request, url, edge, ctx, site);
  };
  return verdict instanceof Promise ? verdict.then(next) : next(verdict as string | SignatureRefused);
}

export default {
  fetch(request, env, ctx) {
    let bindings: EdgeBindings;
    try {
      bindings = edgeBindings(env);
    } catch (error) {
      return refusal(error, request.method, Date.now());
    }
    return observedFetch(request, ctx, bindings, (bound) => edgeFetch(request, bound, ctx));
  },
} satisfies ExportedHandler<EdgeEnv>;
