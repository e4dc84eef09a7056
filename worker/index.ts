// The edge worker: runs in every location, answers from its own cache, and on a miss asks the
// shield over the service binding. This file only wires: GET is serve-object.ts (over
// shared/tier/object-read.ts), HEAD shared/tier/object-head.ts,
// the next hop is shield-client.ts, unsafe methods for HTTP origins are pass-through.ts;
// site-responses.ts finishes GET/HEAD/OPTIONS answers (the 404 page, CORS).
// POST /__tiercache/purge is purge.ts; the rest of /__tiercache/ is 404 and never forwarded,
// however it is spelled (routing is on the canonical path, the one a request is forwarded on).
// Before any of it, memory-hit.ts answers plain GETs of fresh small objects the isolate holds
// in memory (edge-cache.ts).

import { Hono } from 'hono';
import { hasDirective, parseCacheControl } from '../shared/http/cache-control.ts';
import { evaluatePreconditions, notModifiedHeaders } from '../shared/http/conditional.ts';
import { configFrom } from '../shared/config/config.ts';
import { healingUpstream, shieldHealing } from '../shared/tier/healing-upstream.ts';
import { TIER_MANAGED, forwardedRequestHeaders, withForwarding } from '../shared/http/headers.ts';
import { Forbidden, HttpError, MethodNotAllowed, NotFound, errorResponse } from '../shared/http/errors.ts';
import { FRONT_HEADER, PURGE_PATH, credentialMatches, isInternal } from '../shared/target/internal.ts';
import { headObject } from '../shared/tier/object-head.ts';
import { type ObjectRead, readPolicy } from '../shared/tier/ports.ts';
import { clockOffset } from '../shared/tier/test-clock.ts';
import { purgeWatch } from '../shared/purge/purge.ts';
import { purgeRecords } from '../shared/purge/purge-store.ts';
import { normalizePath, requestTarget, requestUrl } from '../shared/target/request-target.ts';
import { withTierReport } from '../shared/tier/tier-headers.ts';
import { edgeAddress, edgeKey } from './edge-address.ts';
import { edgeCache } from './edge-cache.ts';
import type { EdgeEnv } from './env.ts';
import { answerFromMemory } from './memory-hit.ts';
import { passThrough } from './pass-through.ts';
import { purge } from './purge.ts';
import { serveObject } from './serve-object.ts';
import { shieldUpstream } from './shield-client.ts';
import { withSiteResponses } from './site-responses.ts';

const ALLOWED = ['GET', 'HEAD', 'OPTIONS'];

const app = new Hono<{ Bindings: EdgeEnv; Variables: { started: number; clockOffset: number; url: URL } }>();

app.use('*', async (c, next) => {
  c.set('started', Date.now());
  c.set('url', requestUrl(c.req.url));
  c.set('clockOffset', await clockOffset(c.env.TEST_CLOCK, c.var.started));
  await next();
});

// The tiers' own paths, routed on the canonical spelling of the path and of the target it would
// be forwarded on (`/x/%2e%2e/purge` and `/%5f_tiercache/purge` are the purge endpoint, and no
// spelling reaches the shield as an object).
app.use('*', async (c, next) => {
  const path = normalizePath(c.var.url.pathname);
  if (!isInternal(path, forwardedPath(c.var.url, configFrom(c.env)))) return next();
  if (path === PURGE_PATH) {
    if (c.req.method === 'POST') return purge(c.req.raw, c.env, configFrom(c.env), edgeKey);
    throw new MethodNotAllowed(c.req.method, ['POST']);
  }
  throw new NotFound('no such endpoint');
});

app.onError((error, c) => {
  if (!(error instanceof HttpError)) console.error('edge: unexpected error', error);
  return withTierReport(errorResponse(error, c.req.method), 'edge', { detail: (error instanceof HttpError ? error.detail : undefined) ?? 'refused' }, Date.now() - c.var.started);
});

app.on(['GET', 'HEAD'], '*', async (c) => {
  const config = configFrom(c.env);
  const { url } = c.var;
  const { target, key, purgePath } = edgeAddress(url, config);
  const purges = purgeWatch(await purgeRecords(c.env.PURGES, Date.now()), purgePath);
  // What a site receives of the client's request (and what its Vary selects by); S3 gets none of it.
  const client = config.originKind === 'http' ? forwardedFor(c.req.raw, url) : undefined;
  const read: ObjectRead = {
    cache: await edgeCache(config),
    key,
    selecting: client,
    ...readPolicy(config, c.var.clockOffset),
    waitUntil: (promise) => c.executionCtx.waitUntil(promise),
    upstream: healingUpstream(shieldUpstream(c.env.SHIELD, config, target, url.hostname, purges.watermark, client), shieldHealing(config.originIdleTimeoutMs)),
    purged: purges.purged,
    signal: c.req.raw.signal,
    onlyIfCached: hasDirective(parseCacheControl(c.req.header('cache-control')), 'only-if-cached'),
  };
  if (c.req.method === 'HEAD') return conditionalHead(c.req.raw.headers, await headObject(read, 'edge', c.var.started));
  return serveObject(c.req.raw, read, config, c.var.started);
});

app.options('*', (c) => withTierReport(new Response(null, { status: 204, headers: { allow: ALLOWED.join(', ') } }), 'edge', {}, Date.now() - c.var.started));

app.all('*', async (c) => {
  const config = configFrom(c.env);
  if (config.originKind !== 'http') throw new MethodNotAllowed(c.req.method, ALLOWED);
  const { url } = c.var;
  const target = requestTarget(url, config.originKind);
  const keyOf = (invalidated: URL): string | undefined => tryKey(() => edgeKey(invalidated, requestTarget(invalidated, config.originKind)));
  const response = await passThrough(c.req.raw, forwardedFor(c.req.raw, url, []), target, keyOf, {
    config,
    shield: c.env.SHIELD,
    cache: await edgeCache(config),
    waitUntil: (promise) => c.executionCtx.waitUntil(promise),
  });
  return withTierReport(response, 'edge', { fwd: 'method' }, Date.now() - c.var.started);
});

/**
 * The client's end-to-end request headers as the origin should get them (the tiers set Range
 * and the conditions themselves on GET and HEAD), with the edge's forwarding fields added.
 */
function forwardedFor(request: Request, url: URL, managed: readonly string[] = TIER_MANAGED): Headers {
  return withForwarding(forwardedRequestHeaders(request.headers, managed), {
    host: url.host,
    proto: url.protocol.replace(/:$/, ''),
    ip: request.headers.get('cf-connecting-ip') ?? undefined,
  });
}

/** HEAD with If-None-Match and friends: the same 304 or 412 a GET would get (RFC 9110 §13.2.2). */
function conditionalHead(request: Headers, response: Response): Response {
  if (response.status !== 200) return response;
  const precondition = evaluatePreconditions(request, response.headers);
  if (precondition === 'proceed') return response;
  const headers = precondition === 'not-modified' ? notModifiedHeaders(response.headers) : new Headers();
  for (const name of ['age', 'cache-status', 'server-timing']) {
    const value = response.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  return new Response(null, { status: precondition === 'not-modified' ? 304 : 412, headers });
}

/** The path a request for `url` would be forwarded to the shield on; '' for one that names no object. */
function forwardedPath(url: URL, config: ReturnType<typeof configFrom>): string {
  return tryKey(() => requestTarget(url, config.originKind, { indexDocument: config.site.indexDocument }).path) ?? '';
}

/** A cache key, or undefined for a URL that cannot name an object (it was never stored). */
function tryKey(key: () => string): string | undefined {
  try {
    return key();
  } catch {
    return undefined;
  }
}

/** The hot path first; everything it does not answer goes through the app. */
function edgeFetch(request: Request, env: EdgeEnv, ctx: ExecutionContext): Response | Promise<Response> {
  // Behind the local stack's front (never bound when deployed): only what came through it.
  if (env.LOCAL_FRONT_TOKEN !== undefined && !credentialMatches(request.headers.get(FRONT_HEADER), env.LOCAL_FRONT_TOKEN)) {
    return new Forbidden('this socket answers only the local front: send requests to the port tiercache printed').toResponse(request.method);
  }
  const hot = answerFromMemory(request, env);
  if (hot instanceof Response) return hot;
  if (hot === undefined) return app.fetch(request, env, ctx);
  return hot.then((answer) => answer ?? app.fetch(request, env, ctx));
}

/** Every GET, HEAD and OPTIONS answer passes last through the static-site conveniences (404 page, CORS). */
export default { fetch: withSiteResponses(edgeFetch) } satisfies ExportedHandler<EdgeEnv>;
