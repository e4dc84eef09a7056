// The shield as a tier (shared/tier/tier.ts): its cache (shield-cache.ts), its clock, the purge records the edge
// tells it, and its next hop, the origin its client's host reads (origin/origin-hop.ts). What is the shield's own:
// the object a request names there (object-target.ts), the edge's slice requests answered slice by slice
// (slice-answer.ts), the purges the edge applied (its header fields), a purge taken from the edge, its health answer.

import type { Config } from '../shared/config/config.ts';
import { VERSION } from '../shared/config/version.ts';
import {
  HOST_HEADER,
  PURGED_AT_HEADER,
  REVALIDATE_HEADER,
  SHIELD_ORIGIN,
  SOFT_PURGED_AT_HEADER,
} from '../shared/hop/hop-fields.ts';
import { parseSliceRequestPath, type SliceRequest } from '../shared/hop/slice-protocol.ts';
import { BadRequest } from '../shared/http/errors.ts';
import { forwardedRequestHeaders, TIER_MANAGED } from '../shared/http/headers.ts';
import { canServe, LOCAL_COLO } from '../shared/http/health-report.ts';
import { COPY_HEADER } from '../shared/observe/read-ahead-copy.ts';
import type { RequestMeter } from '../shared/observe/request-meter.ts';
import { asRecord, type PurgeRecord, purgedBy } from '../shared/purge/purge-rules.ts';
import { isolatePurges } from '../shared/purge/purge-store.ts';
import { softPurgedAt, softPurgedAtHeader } from '../shared/purge/soft-purge.ts';
import type { RequestFacts } from '../shared/request/request-facts.ts';
import type { RequestTarget } from '../shared/request/request-target.ts';
import type { NextHop } from '../shared/tier/next-hop.ts';
import { isolateUrgency } from '../shared/tier/slice-reader/isolate-pool.ts';
import { type ObjectRoute, openTier, type Tier } from '../shared/tier/tier.ts';
import type { ShieldRequest } from './env.ts';
import { urgentAtShield } from './first-byte-urgency.ts';
import { objectTarget } from './object-target.ts';
import { endpointsReport } from './origin/failover-origin.ts';
import { originHop } from './origin/origin-hop.ts';
import { originOf } from './origin/origin-of.ts';
import { isolateBudget } from './origin/transfer-budget.ts';
import { shieldCache, shieldKey } from './shield-cache.ts';
import { answerSlices, type SliceAnswerContext } from './slice-answer.ts';

/** Larger than any object's slice count: "every slice". */
const MAX_SLICE_INDEX = 999_999_999;

/** The shield, for one request. */
export function shieldTier(shield: ShieldRequest): Tier {
  return openTier({
    name: 'shield',
    cache: shieldCache,
    clock: shield.clock,
    purges: shield.purges,
    // This isolate learns the edge's records at once; the others re-read the global list within its bound.
    record: async (records, at) => isolatePurges.rememberPurges(records, at),
    meter: shield.meter,
  });
}

/** GET and HEAD of an object: the edge's slice requests, and plain GETs and HEADs of a whole object. */
export function answerObject(request: Request, shield: ShieldRequest, facts: RequestFacts): Promise<Response> {
  const sliced = parseSliceRequestPath(facts.url.pathname);
  return asObjectRequest(request, sliced, shield.meter, () =>
    shieldTier(shield).answerObject(request, facts, shieldObject(request, shield, facts, sliced)),
  );
}

/**
 * `answer`, run as a request for an object, wherever it is answered (here, or by Workers Cache's front:
 * workers-cache-layer.ts): a slice the edge reads ahead counted as such, and one a client waits on holding the
 * isolate's warms back until its answer's head is ready.
 */
export async function asObjectRequest(
  request: Request,
  sliced: { request: SliceRequest } | undefined,
  meter: RequestMeter,
  answer: () => Promise<Response>,
): Promise<Response> {
  // A slice the edge reads ahead: its warm, or the edge's copy of what the warm stored; one request, counted once.
  if (sliced?.request.warm === true) meter.readAhead = 'warm';
  else if (sliced !== undefined && request.headers.get(COPY_HEADER) === '1') meter.readAhead = 'copy';
  // Until its answer's head is ready, a request a client waits on holds the isolate's warms back (slice-warm.ts).
  const answered = urgentAtShield(meter.readAhead) ? isolateUrgency.begin() : undefined;
  try {
    return await answer();
  } finally {
    answered?.();
  }
}

/** What the shield makes of a GET or HEAD of an object; throws the 421 for a host that reads no bucket. */
function shieldObject(
  request: Request,
  shield: ShieldRequest,
  facts: RequestFacts,
  sliced: ReturnType<typeof parseSliceRequestPath>,
): ObjectRoute {
  const host = request.headers.get(HOST_HEADER) ?? '';
  // The bucket the edge's client host reads (HOST_BUCKETS), or 421.
  const { origin, target, rules } = objectTarget(shield.config, host, request.method, facts.url, sliced);
  const { config } = origin;
  const path = `${target.path}${target.query}`;
  return {
    config,
    target,
    key: shieldKey(origin, target),
    rules,
    // A slice request is the edge's read, never bypassed: the edge sends a bypassed request on as it came.
    bypassable: sliced === undefined,
    // Behind the shield's Cache API, the R2 tier where it is on (r2/r2-tier.ts), then the origin.
    next: behindShield(
      shield,
      config,
      originHop(origin, () => shield.clock.now()),
    ),
    host,
    // The client's end-to-end headers, as the edge forwarded them: for a site, never for S3.
    client: origin.traits.forwardsClientHeaders ? forwardedRequestHeaders(request.headers, TIER_MANAGED) : undefined,
    // What the purge list, and the edge's own word on purges (its header fields), say of the object.
    verdicts: (list) => {
      const hard = purgedAt(request.headers.get(PURGED_AT_HEADER));
      const soft = softPurgedAtHeader(request.headers.get(SOFT_PURGED_AT_HEADER));
      return {
        purged: purgedBy(list, path, hard),
        softPurgedAt: softPurgedAt(list, path, soft),
        // The edge's word, told on to a tier behind this one (the R2 tier applies the same purges); the origin
        // keeps nothing to apply them to.
        watermarks: { purgedAt: () => hard, softPurgedAt: () => soft },
      };
    },
    // The edge revalidating what it holds: never answered from a stale copy here.
    extra: { noStale: request.headers.get(REVALIDATE_HEADER) === '1' },
    get: (read, hops, started) => answerGet(request, shield, sliced?.request, { config, read, hops, started }, target),
    head: (response) => response,
  };
}

/** The shield's next hop for an object read at `config`: the R2 tier in front of `origin` where it is on, else `origin`. */
function behindShield<Health>(shield: ShieldRequest, config: Config, origin: NextHop<Health>): NextHop<Health> {
  return shield.r2 === undefined
    ? origin
    : shield.r2.hop({ config, clock: shield.clock, purges: shield.purges }, origin);
}

/** GET: the slices the edge asked for, or, a plain GET (not from the edge's slice protocol), the whole object. */
function answerGet(
  request: Request,
  shield: ShieldRequest,
  asked: SliceRequest | undefined,
  context: Pick<SliceAnswerContext, 'config' | 'read' | 'hops' | 'started'>,
  target: RequestTarget,
): Promise<Response> {
  const { config } = context;
  const slices = asked ?? {
    span: { first: 0, last: MAX_SLICE_INDEX },
    sliceSize: config.slicing.sliceSize,
    etag: undefined,
  };
  // Whoever hears the answers (the slices entrypoint's layer: workers-cache-layer.ts) is told the object's path too.
  const { answered } = shield;
  const path = `${target.path}${target.query}`;
  return answerSlices(slices, {
    ...context,
    budget: { remaining: config.slicing.subrequests },
    conditions: request.headers,
    warmStored: (bytes) => (shield.meter.bytesSent = bytes),
    answered: answered === undefined ? undefined : (headers, facts) => answered(headers, { ...facts, path }),
  });
}

/** The edge's purge watermark (PURGED_AT_HEADER), when it sent a valid one. */
function purgedAt(value: string | null): number | undefined {
  if (value === null || !/^\d{1,15}$/.test(value)) return undefined;
  return Number(value);
}

/**
 * The edge's purge, told to the shield (docs/purge.md): the records learned, the shield's entries for the URLs named
 * removed, and the layer in front of it purged (`purgeInFront`: the Workers Cache in front of the slices entrypoint).
 * Only when all of it is done is it answered 204; a layer that did not take it is a 503 the edge passes on, so that
 * the purge is asked again. Only the edge reaches this (shield-app.ts checks its credential).
 */
export async function acceptPurge(request: Request, shield: ShieldRequest): Promise<Response> {
  const { config } = shield;
  const records = await readRecords(request);
  // The edge sent canonical paths and kept queries; re-derived here exactly as a request for them would be (its
  // query already what a key keeps: CACHE_KEY_QUERY's, or a rule's).
  const keyed = { keyQuery: config.cacheKeyQuery, ruleQuery: () => 'all' as const };
  const origin = originOf(config);
  const keyOf = (record: PurgeRecord): string =>
    shieldKey(origin, origin.traits.target(new URL(record.value, SHIELD_ORIGIN), keyed));
  const now = (): number => shield.clock.now();
  await shieldTier(shield).purge(records, now(), keyOf, originHop(origin, now), config.slicing.subrequests);
  await shield.purgeInFront?.(records);
  return new Response(null, { status: 204 });
}

async function readRecords(request: Request): Promise<PurgeRecord[]> {
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    throw new BadRequest('expected {"records": [...]} from the edge, got a body that is not JSON');
  }
  const list = typeof body === 'object' && body !== null ? (body as { records?: unknown }).records : undefined;
  if (!Array.isArray(list)) throw new BadRequest('expected {"records": [...]} from the edge');
  return list.map(asRecord).filter((record) => record !== undefined);
}

/**
 * The shield's health answer to the edge's question (worker/health.ts): the shield answers, and whether the origin
 * serves with the configured credentials (origin/origin-probe.ts); 503 when it cannot; never cached; not counted as a
 * request for an object (shield-app.ts). The finding is kept by the shield's clock, as its entries are. With it, how
 * this isolate's reads of the purge list went (read when due, as a lookup would: docs/purge.md "When KV cannot be
 * read"), and which cache the shield keeps its copies in (`cache`).
 */
export async function answerShieldHealth(shield: ShieldRequest, colo: string = LOCAL_COLO): Promise<Response> {
  const origin = originOf(shield.config);
  const { next, purgeList } = await shieldTier(shield).health(originHop(origin, () => shield.clock.now()));
  // Each endpoint's circuit, where ORIGIN_URL lists several (origin/failover-origin.ts).
  const { originEndpoints } = shield.config;
  const endpoints = originEndpoints.length > 1 ? { endpoints: endpointsReport(originEndpoints) } : {};
  const transfers = isolateBudget(shield.config).report();
  const body = {
    shield: 'ok',
    ...next,
    ...endpoints,
    transfers,
    purgeList,
    cache: shield.cache,
    version: VERSION,
    colo,
  };
  return new Response(`${JSON.stringify(body)}\n`, {
    status: canServe(next.origin) ? 200 : 503,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  });
}
