// GET and HEAD at the shield (the edge's slice requests and plain GETs of a whole object): the read path (shared/tier/)
// handed this tier's cache, the origin as its next hop (origin/origin-upstream.ts) and the purges that apply.

import { HOST_HEADER, PURGED_AT_HEADER, REVALIDATE_HEADER, SOFT_PURGED_AT_HEADER } from '../shared/hop/hop-fields.ts';
import { parseSliceRequestPath, type SliceRequest } from '../shared/hop/slice-protocol.ts';
import { forwardedRequestHeaders, TIER_MANAGED } from '../shared/http/headers.ts';
import { COPY_HEADER } from '../shared/observe/read-ahead-copy.ts';
import { meteredUpstream, type RequestMeter } from '../shared/observe/request-meter.ts';
import { type PurgeList, purgedBy } from '../shared/purge/purge-rules.ts';
import { isolatePurges } from '../shared/purge/purge-store.ts';
import { softPurgedAt, softPurgedAtHeader } from '../shared/purge/soft-purge.ts';
import type { RequestFacts } from '../shared/request/request-facts.ts';
import type { RequestTarget } from '../shared/request/request-target.ts';
import { ruleDecidedFreshness, ruleDetail } from '../shared/rules/rule-freshness.ts';
import type { AppliedRules } from '../shared/rules/rules.ts';
import { bypassed } from '../shared/tier/bypass.ts';
import { healingUpstream, originHealing } from '../shared/tier/healing-upstream.ts';
import { HopLog, loggedUpstream } from '../shared/tier/hop-log.ts';
import { headObject } from '../shared/tier/object-head.ts';
import { type ForwardingTier, type ObjectRead, readPolicy } from '../shared/tier/ports.ts';
import { isolateUrgency } from '../shared/tier/slice-reader/isolate-pool.ts';
import { withRuleDetail } from '../shared/tier/tier-headers.ts';
import type { ShieldRequest } from './env.ts';
import { urgentAtShield } from './first-byte-urgency.ts';
import { objectTarget } from './object-target.ts';
import { originCalls } from './origin/origin-calls.ts';
import { originUpstream } from './origin/origin-upstream.ts';
import { shieldCache, shieldKey } from './shield-cache.ts';
import { answerSlices, type SliceAnswerContext } from './slice-answer.ts';

/** Larger than any object's slice count: "every slice". */
const MAX_SLICE_INDEX = 999_999_999;

export function answerObject(request: Request, shield: ShieldRequest, facts: RequestFacts): Promise<Response> {
  const sliced = parseSliceRequestPath(facts.url.pathname);
  return asObjectRequest(request, sliced, shield.meter, () => answerRead(request, shield, facts, sliced));
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

async function answerRead(
  request: Request,
  shield: ShieldRequest,
  facts: RequestFacts,
  sliced: ReturnType<typeof parseSliceRequestPath>,
): Promise<Response> {
  const { meter } = shield;
  // The bucket the edge's client host reads (HOST_BUCKETS), or 421.
  const { origin, target, rules } = objectTarget(
    shield.config,
    request.headers.get(HOST_HEADER) ?? '',
    request.method,
    facts.url,
    sliced,
  );
  const { config } = origin;
  // On the clock the read path times by (read.now, readPolicy), so that its durations hold on any clock.
  const started = facts.now;
  // A slice request is the edge's read, never bypassed: the edge sends a bypassed request on as it came.
  if (rules.bypassRule !== undefined && sliced === undefined) {
    const tier: ForwardingTier = { name: 'shield', hop: originCalls(origin), meter };
    return bypassed({ request, url: facts.url, target }, rules.bypassRule, tier, facts.started);
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

/** What the purge list, and the edge's own word on purges (its header fields), say of the object at `path`. */
function purgeVerdicts(list: PurgeList, path: string, headers: Headers): Pick<ObjectRead, 'purged' | 'softPurgedAt'> {
  return {
    purged: purgedBy(list, path, purgedAt(headers.get(PURGED_AT_HEADER))),
    softPurgedAt: softPurgedAt(list, path, softPurgedAtHeader(headers.get(SOFT_PURGED_AT_HEADER))),
  };
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
