// The shield worker: the regional tier next to the origin. Reached only over the edge's
// service binding (it checks the edge's credential), it answers from its own cache and on a
// miss fetches from the origin, signed for S3. This file only wires.

import { Hono } from 'hono';
import { SHIELD_CACHE_NAME } from '../shared/cache-status.ts';
import { type Config, configFrom } from '../shared/config.ts';
import { Forbidden, HttpError, MethodNotAllowed, errorResponse } from '../shared/http-error.ts';
import { CREDENTIAL_HEADER, credentialMatches } from '../shared/internal.ts';
import { type ReadMethod, readMethod, readThrough } from '../shared/read-through.ts';
import { type RequestTarget, requestTarget } from '../shared/request-target.ts';
import { appendServerTiming, serverTimingMetric } from '../shared/server-timing.ts';
import { type TierCache, remove } from '../shared/tier-cache.ts';
import { withTierReport } from '../shared/tier-headers.ts';
import type { ShieldEnv } from './env.ts';
import { fetchHttpObject, passThroughToHttp } from './origin/http.ts';
import { fetchS3Object } from './origin/s3.ts';

const app = new Hono<{ Bindings: ShieldEnv; Variables: { started: number } }>();

app.onError((error, c) => {
  if (!(error instanceof HttpError)) console.error('shield: unexpected error', error);
  return withTierReport(errorResponse(error, c.req.method), 'shield', { detail: 'refused' }, Date.now() - c.var.started);
});

app.use('*', async (c, next) => {
  c.set('started', Date.now());
  if (!credentialMatches(c.req.header(CREDENTIAL_HEADER) ?? null, configFrom(c.env).shieldToken)) {
    throw new Forbidden('the shield answers only the edge tier');
  }
  await next();
});

app.on(['GET', 'HEAD'], '*', async (c) => {
  const config = configFrom(c.env);
  const target = requestTarget(new URL(c.req.url), config.originKind);
  return readThrough({
    tier: 'shield',
    cache: await caches.open(SHIELD_CACHE_NAME),
    key: shieldKey(config, target),
    method: readMethod(c.req.method),
    defaultTtl: config.defaultTtl,
    now: Date.now,
    waitUntil: (promise) => c.executionCtx.waitUntil(promise),
    forward: (method) => timed(() => fetchFromOrigin(config, target, method)),
  });
});

app.all('*', async (c) => {
  const config = configFrom(c.env);
  if (config.originKind !== 'http') throw new MethodNotAllowed(c.req.method, ['GET', 'HEAD', 'OPTIONS']);
  const target = requestTarget(new URL(c.req.url), config.originKind);
  const response = await timed(() => passThroughToHttp(config, target, c.req.raw));
  // RFC 9111 §4.4: a non-error answer to an unsafe method invalidates the stored URL.
  const cache: TierCache = await caches.open(SHIELD_CACHE_NAME);
  if (response.status < 400) c.executionCtx.waitUntil(remove(cache, shieldKey(config, target)).catch(() => false));
  return withTierReport(response, 'shield', { fwd: 'method' }, Date.now() - c.var.started);
});

function fetchFromOrigin(config: Config, target: RequestTarget, method: ReadMethod): Promise<Response> {
  if (config.s3 !== undefined && target.key !== undefined) return fetchS3Object(config, config.s3, target.key, method, Date.now());
  return fetchHttpObject(config, target, method);
}

/** The shield keys entries by the origin resource, so a change of bucket or origin never reuses them. */
function shieldKey(config: Config, target: RequestTarget): string {
  const bucket = config.s3 === undefined ? '' : `/${config.s3.bucket}`;
  return `${config.originUrl.origin}${config.originUrl.pathname.replace(/\/+$/, '')}${bucket}${target.path}${target.query}`;
}

/** Adds the origin's time to Server-Timing: the time until its response headers arrived. */
async function timed(fetchOrigin: () => Promise<Response>): Promise<Response> {
  const started = Date.now();
  const response = await fetchOrigin();
  const headers = new Headers(response.headers);
  headers.set('server-timing', appendServerTiming(headers.get('server-timing'), serverTimingMetric('origin', Date.now() - started)));
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

export default app;
