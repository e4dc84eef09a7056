// GET and HEAD at the shield (the edge's slice requests and plain GETs of a whole object): the read path (shared/tier/)
// handed this tier's cache, the origin as its next hop (origin/origin-upstream.ts) and the purges that apply.

import {
  HOST_HEADER,
  PURGED_AT_HEADER,
  REVALIDATE_HEADER,
  SHIELD_ORIGIN,
  SOFT_PURGED_AT_HEADER,
} from '../shared/hop/hop-fields.ts';
import { parseSliceRequestPath, type SliceRequest } from '../shared/hop/slice-protocol.ts';
import { forwardedRequestHeaders, TIER_MANAGED } from '../shared/http/headers.ts';
import { COPY_HEADER } from '../shared/observe/read-ahead-copy.ts';
import { meteredUpstream } from '../shared/observe/request-meter.ts';
import { type PurgeList, purgedBy } from '../shared/purge/purge-rules.ts';
import { isolatePurges } from '../shared/purge/purge-store.ts';
import { softPurgedAt, softPurgedAtHeader } from '../shared/purge/soft-purge.ts';
import type { RequestFacts } from '../shared/request/request-facts.ts';
import type { RequestTarget } from '../shared/request/request-target.ts';
import { ruleDecidedFreshness, ruleDetail } from '../shared/rules/rule-freshness.ts';
import { type AppliedRules, NOTHING_APPLIED } from '../shared/rules/rules.ts';
import { applyRules } from '../shared/rules/rules-match.ts';
import { healingUpstream, originHealing } from '../shared/tier/healing-upstream.ts';
import { HopLog, loggedUpstream } from '../shared/tier/hop-log.ts';
import { headObject } from '../shared/tier/object-head.ts';
import { type ObjectRead, readPolicy } from '../shared/tier/ports.ts';
import { isolateUrgency } from '../shared/tier/slice-reader/isolate-pool.ts';
import { withRuleDetail } from '../shared/tier/tier-headers.ts';
import { bypassed } from './bypass.ts';
import type { ShieldRequest } from './env.ts';
import { urgentAtShield } from './first-byte-urgency.ts';
import type { Origin } from './origin/origin.ts';
import { originOf } from './origin/origin-of.ts';
import { originUpstream } from './origin/origin-upstream.ts';
import { shieldCache, shieldKey } from './shield-cache.ts';
import { answerSlices, type SliceAnswerContext } from './slice-answer.ts';
import { keptByWorkersCache, viaWorkersCache, workersCacheKey } from './workers-cache-gateway.ts';

/** Larger than any object's slice count: "every slice". */
const MAX_SLICE_INDEX = 999_999_999;

export async function answerObject(request: Request, shield: ShieldRequest, facts: RequestFacts): Promise<Response> {
  const sliced = parseSliceRequestPath(facts.url.pathname);
  // A slice the edge reads ahead: its warm, or the edge's copy of what the warm stored; one request, counted once.
  if (sliced?.request.warm === true) shield.meter.readAhead = 'warm';
  else if (sliced !== undefined && request.headers.get(COPY_HEADER) === '1') shield.meter.readAhead = 'copy';
  // Until its answer's head is ready, a request a client waits on holds the isolate's warms back (slice-warm.ts).
  const answered = urgentAtShield(shield.meter.readAhead) ? isolateUrgency.begin() : undefined;
  try {
    return await answerRead(request, shield, facts, sliced);
  } finally {
    answered?.();
  }
}

async function answerRead(
  request: Request,
  shield: ShieldRequest,
  facts: RequestFacts,
  sliced: ReturnType<typeof parseSliceRequestPath>,
): Promise<Response> {
  const { meter } = shield;
  const host = request.headers.get(HOST_HEADER) ?? '';
  // The bucket the edge's client host reads (HOST_BUCKETS), or 421.
  const origin = originOf(shield.config).forHost(host);
  const { config } = origin;
  const { url } = facts;
  // On the clock the read path times by (read.now, readPolicy), so that its durations hold on any clock.
  const started = facts.now;
  const objectUrl = sliced ? new URL(`${SHIELD_ORIGIN}${sliced.objectPath}${url.search}`) : url;
  const { target, rules } = ruledTarget(objectUrl, origin, host, request.method);
  if (rules.bypassRule !== undefined && sliced === undefined) {
    const all = origin.traits.forwardsClientHeaders ? forwardedRequestHeaders(request.headers) : undefined;
    return bypassed(request, shield, origin, target, rules.bypassRule, all, facts.started);
  }
  if (shield.slicesEntry !== undefined && keptByWorkersCache(request, sliced)) {
    return viaWorkersCache(
      request,
      shield.slicesEntry,
      workersCacheKey(sliced.request, shieldKey(origin, target)),
      meter,
      shield.clock.now(),
    );
  }
  // The client's end-to-end headers, as the edge forwarded them: for a site, never for S3.
  const client = origin.traits.forwardsClientHeaders
    ? forwardedRequestHeaders(request.headers, TIER_MANAGED)
    : undefined;
  // What the origin answers this request, as each head arrives: its metrics, sent on to the edge.
  const hops = new HopLog();
  // On the clock entries are timed by (readPolicy): records are compared with their origin times.
  const list = await isolatePurges.purgeList(shield.purges, facts.now);
  const read: ObjectRead = {
    cache: await shieldCache(),
    key: shieldKey(origin, target),
    selecting: client,
    ...readPolicy(config, shield.clock, rules),
    // Everything the read leaves running is kept alive, and the request's record waits for it.
    waitUntil: (promise) => meter.hold(promise),
    upstream: healingUpstream(
      meteredUpstream(loggedUpstream(originUpstream(config, target, Date.now, client), hops), meter, () => true),
      originHealing(config.originIdleTimeoutMs),
    ),
    noStale: request.headers.get(REVALIDATE_HEADER) === '1',
    ...purgeVerdicts(list, `${target.path}${target.query}`, request.headers),
    // The edge's request: it aborts when the edge gives up (its client went away).
    signal: request.signal,
    // Whether the edge's request went away before the body ended, where that is heard (its record says).
    bodyEnd: (ended) => {
      meter.bodyEnded = ended;
    },
  };
  if (request.method === 'HEAD') return decided(await headObject(read, 'shield', started), rules);
  const answer = await answerGet(request, shield, sliced?.request, { config, read, started, hops }, target);
  return decided(answer, rules);
}

/** GET: the slices the edge asked for, or, a plain GET (not from the edge's slice protocol), the whole object. */
function answerGet(
  request: Request,
  shield: ShieldRequest,
  asked: SliceRequest | undefined,
  context: Pick<SliceAnswerContext, 'config' | 'read' | 'started' | 'hops'>,
  target: RequestTarget,
): Promise<Response> {
  const { config } = context;
  const slices = asked ?? {
    span: { first: 0, last: MAX_SLICE_INDEX },
    sliceSize: config.slicing.sliceSize,
    etag: undefined,
  };
  // The slices entrypoint's answers are marked for the Workers Cache in front of it (workers-cache-answer.ts).
  const workersCache = shield.role === 'slices' ? { path: `${target.path}${target.query}` } : undefined;
  return answerSlices(slices, {
    ...context,
    budget: { remaining: config.slicing.subrequests },
    conditions: request.headers,
    warmStored: (bytes) => (shield.meter.bytesSent = bytes),
    workersCache,
  });
}

/** What the purge list, and the edge's own word on purges (its header fields), say of the object at `path`. */
function purgeVerdicts(list: PurgeList, path: string, headers: Headers): Pick<ObjectRead, 'purged' | 'softPurgedAt'> {
  return {
    purged: purgedBy(list, path, purgedAt(headers.get(PURGED_AT_HEADER))),
    softPurgedAt: softPurgedAt(list, path, softPurgedAtHeader(headers.get(SOFT_PURGED_AT_HEADER))),
  };
}

/**
 * The target (joined to the shield's origin, not resolved against it: an object path `//host/x` stays a path) and the
 * rules matching the edge's client's request, as the edge matched them: the same RULES, host and canonical path.
 */
function ruledTarget(
  url: URL,
  { config, traits }: Origin,
  host: string,
  method: string,
): { target: RequestTarget; rules: AppliedRules } {
  let rules = NOTHING_APPLIED;
  const target = traits.target(url, {
    keyQuery: config.cacheKeyQuery,
    ruleQuery: (path) => {
      rules = applyRules(config.rules, { host, path, method });
      return rules.cacheKeyQuery;
    },
  });
  return { target, rules };
}

/** The answer with `detail=rule:<name>` where a rule decided its freshness, as the edge says it of the same one. */
function decided(response: Response, rules: AppliedRules): Response {
  const rule = ruleDecidedFreshness(rules, response.status, response.headers);
  return withRuleDetail(response, 'shield', rule === undefined ? undefined : ruleDetail(rule));
}

/** The edge's purge watermark (PURGED_AT_HEADER), when it sent a valid one. */
function purgedAt(value: string | null): number | undefined {
  if (value === null || !/^\d{1,15}$/.test(value)) return undefined;
  return Number(value);
}
