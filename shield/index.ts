// The shield worker: the regional tier next to the origin. Reached only over the edge's
// service binding (it checks the edge's credential), it answers from its own cache and on a
// miss fetches from the origin, signed for S3. Its own endpoints (slices, purge) live under
// /__tiercache/, matched on the canonical path; nothing under it is ever an object. This file
// only wires.

import { Hono } from 'hono';
import { SHIELD_CACHE_NAME } from '../shared/http/cache-status.ts';
import { type Config, configFrom } from '../shared/config/config.ts';
import { Forbidden, HttpError, MethodNotAllowed, NotFound, errorResponse } from '../shared/http/errors.ts';
import { bucketFor, misdirected } from '../shared/target/host-buckets.ts';
import { CREDENTIAL_HEADER, HOST_HEADER, PURGED_AT_HEADER, PURGE_PATH, REVALIDATE_HEADER, SHIELD_ORIGIN, credentialMatches, isInternal } from '../shared/target/internal.ts';
import { healingUpstream, originHealing } from '../shared/tier/healing-upstream.ts';
import { TIER_MANAGED, forwardedRequestHeaders } from '../shared/http/headers.ts';
import { invalidatedUrls } from '../shared/http/invalidation.ts';
import { headObject } from '../shared/tier/object-head.ts';
import { type ObjectRead, readPolicy } from '../shared/tier/ports.ts';
import { clockOffset } from '../shared/tier/test-clock.ts';
import { purgedBy } from '../shared/purge/purge.ts';
import { purgeRecords } from '../shared/purge/purge-store.ts';
import { type RequestTarget, normalizePath, requestTarget, requestUrl } from '../shared/target/request-target.ts';
import { parseSliceRequestPath } from '../shared/slices/slice-protocol.ts';
import { type TierCache, remove } from '../shared/tier/tier-cache.ts';
import { withTierReport } from '../shared/tier/tier-headers.ts';
import type { ShieldEnv } from './env.ts';
import { originUrlFor } from './origin/origin.ts';
import { passThroughToHttp } from './origin/http.ts';
import { originUpstream } from './origin/ranged.ts';
import { acceptPurge } from './purge.ts';
import { answerSlices } from './slice-answer.ts';

/** Larger than any object's slice count: "every slice". */
const MAX_SLICE_INDEX = 999_999_999;

const app = new Hono<{ Bindings: ShieldEnv; Variables: { started: number; clockOffset: number; url: URL } }>();

app.onError((error, c) => {
  if (!(error instanceof HttpError)) console.error('shield: unexpected error', error);
  return withTierReport(errorResponse(error, c.req.method), 'shield', { detail: (error instanceof HttpError ? error.detail : undefined) ?? 'refused' }, Date.now() - c.var.started);
});

app.use('*', async (c, next) => {
  c.set('started', Date.now());
  if (!credentialMatches(c.req.header(CREDENTIAL_HEADER) ?? null, configFrom(c.env).shieldToken)) {
    throw new Forbidden('the shield answers only the edge tier');
  }
  c.set('url', requestUrl(c.req.url));
  c.set('clockOffset', await clockOffset(c.env.TEST_CLOCK, c.var.started));
  await next();
});

// Its own endpoints, on the canonical path: purge (POST), slice requests (GET/HEAD, below);
// anything else under the prefix is no object.
app.use('*', async (c, next) => {
  const path = normalizePath(c.var.url.pathname);
  if (!isInternal(path)) return next();
  if (path === PURGE_PATH) {
    if (c.req.method !== 'POST') throw new MethodNotAllowed(c.req.method, ['POST']);
    const config = configFrom(c.env);
    return acceptPurge(c.req.raw, config, (target) => shieldKey(config, target));
  }
  if ((c.req.method === 'GET' || c.req.method === 'HEAD') && parseSliceRequestPath(c.var.url.pathname) !== undefined) return next();
  throw new NotFound('no such endpoint');
});

app.on(['GET', 'HEAD'], '*', async (c) => {
  const config = forHost(configFrom(c.env), c.req.header(HOST_HEADER) ?? '');
  const { url } = c.var;
  const sliced = parseSliceRequestPath(url.pathname);
  // Joined to the shield's origin, not resolved against it: an object path `//host/x` stays a path.
  const target = requestTarget(sliced ? new URL(`${SHIELD_ORIGIN}${sliced.objectPath}${url.search}`) : url, config.originKind, { keyQuery: config.cacheKeyQuery });
  // The client's end-to-end headers, as the edge forwarded them: for a site, never for S3.
  const client = config.originKind === 'http' ? forwardedRequestHeaders(c.req.raw.headers, TIER_MANAGED) : undefined;
  const read: ObjectRead = {
    cache: await caches.open(SHIELD_CACHE_NAME),
    key: shieldKey(config, target),
    selecting: client,
    ...readPolicy(config, c.var.clockOffset),
    waitUntil: (promise) => c.executionCtx.waitUntil(promise),
    upstream: healingUpstream(originUpstream(config, target, Date.now, client), originHealing(config.originIdleTimeoutMs)),
    noStale: c.req.header(REVALIDATE_HEADER) === '1',
    purged: purgedBy(await purgeRecords(c.env.PURGES, Date.now()), `${target.path}${target.query}`, purgedAt(c.req.header(PURGED_AT_HEADER))),
    // The edge's request: it aborts when the edge gives up (its client went away).
    signal: c.req.raw.signal,
  };
  if (c.req.method === 'HEAD') return headObject(read, 'shield', c.var.started);
  // A plain GET (not from the edge's slice protocol) asks for the whole object.
  const request = sliced?.request ?? { span: { first: 0, last: MAX_SLICE_INDEX }, sliceSize: config.slicing.sliceSize, etag: undefined };
  return answerSlices(request, { config, read, budget: { remaining: config.slicing.subrequests }, started: c.var.started, conditions: c.req.raw.headers });
});

app.all('*', async (c) => {
  const config = configFrom(c.env);
  if (config.originKind !== 'http') throw new MethodNotAllowed(c.req.method, ['GET', 'HEAD', 'OPTIONS']);
  const target = requestTarget(c.var.url, config.originKind);
  const response = await passThroughToHttp(config, target, c.req.raw);
  // RFC 9111 §4.4: a non-error answer to an unsafe method invalidates the stored URL, and the
  // Location / Content-Location URLs it names on the origin's own host.
  const cache: TierCache = await caches.open(SHIELD_CACHE_NAME);
  for (const url of invalidatedUrls(originUrlFor(config, target), response.status, response.headers, c.req.method)) {
    const invalidated = requestTarget(url, config.originKind);
    c.executionCtx.waitUntil(remove(cache, shieldKey(config, { ...invalidated, path: originRelative(config, invalidated.path) })).catch(() => false));
  }
  return withTierReport(response, 'shield', { fwd: 'method' }, Date.now() - c.var.started);
});

/** The configuration with the bucket the edge's client host reads (HOST_BUCKETS), or 421. */
function forHost(config: Config, host: string): Config {
  if (config.s3 === undefined) return config;
  const bucket = bucketFor(config.s3, host);
  if (bucket === undefined) throw misdirected(host);
  return bucket === config.s3.bucket ? config : { ...config, s3: { ...config.s3, bucket } };
}

/** A path on the origin as the shield's keys see it: without the origin URL's base path. */
function originRelative(config: Config, path: string): string {
  const base = config.originUrl.pathname.replace(/\/+$/, '');
  return base && path.startsWith(`${base}/`) ? path.slice(base.length) : path;
}

/** The shield keys entries by the origin resource, so a change of bucket or origin never reuses them. */
function shieldKey(config: Config, target: RequestTarget): string {
  const bucket = config.s3 === undefined ? '' : `/${config.s3.bucket}`;
  return `${config.originUrl.origin}${config.originUrl.pathname.replace(/\/+$/, '')}${bucket}${target.path}${target.query}`;
}

/** The edge's purge watermark (PURGED_AT_HEADER), when it sent a valid one. */
function purgedAt(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,15}$/.test(value)) return undefined;
  return Number(value);
}

export default app;
