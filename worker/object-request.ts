// GET and HEAD of an object at the edge: the read path (shared/tier/) handed this tier's cache, its next hop (the
// shield, healing cut bodies) and the purges that apply.

import { originTraits } from '../shared/config/origin-traits.ts';
import { hasDirective, parseCacheControl } from '../shared/http/cache-control.ts';
import { evaluatePreconditions, notModifiedHeaders } from '../shared/http/conditional.ts';
import { meteredUpstream, shieldFetchedFromOrigin } from '../shared/observe/request-meter.ts';
import { purgeWatch } from '../shared/purge/purge-rules.ts';
import { isolatePurges } from '../shared/purge/purge-store.ts';
import { softPurgeWatch } from '../shared/purge/soft-purge.ts';
import type { RequestFacts } from '../shared/request/request-facts.ts';
import type { RequestTarget } from '../shared/request/request-target.ts';
import { ruleDecidedFreshness, ruleDetail } from '../shared/rules/rule-freshness.ts';
import { applyRules } from '../shared/rules/rules-match.ts';
import { bypassed } from '../shared/tier/bypass.ts';
import { healingUpstream, shieldHealing } from '../shared/tier/healing-upstream.ts';
import { HopLog, loggedUpstream } from '../shared/tier/hop-log.ts';
import { headObject } from '../shared/tier/object-head.ts';
import { type ForwardingTier, type ObjectRead, readPolicy, type Upstream } from '../shared/tier/ports.ts';
import { cacheName, withRuleDetail } from '../shared/tier/tier-headers.ts';
import { edgeAddress } from './edge-address.ts';
import { edgeCache } from './edge-cache.ts';
import type { EdgeRequest } from './env.ts';
import { serveObject } from './serve-object.ts';
import { forwardedFor, type PurgeWatermarks, shieldCalls, shieldUpstream } from './shield-client.ts';

/** GET is serve-object.ts; HEAD is shared/tier/object-head.ts, with the conditions a GET would honour. */
export async function answerObject(request: Request, edge: EdgeRequest, facts: RequestFacts): Promise<Response> {
  const { config, meter } = edge;
  const { url } = facts;
  // On the clock the read path times by (read.now, readPolicy), so that its durations hold on any clock.
  const started = facts.now;
  const address = edgeAddress(url, config);
  const { target, key, purgePath } = address;
  // The rules matching this request (a HEAD again by its own method: a rule may bypass or redirect it alone).
  const rules =
    request.method === 'GET'
      ? address.rules
      : applyRules(config.rules, { host: url.host, path: target.path, method: request.method });
  if (rules.bypassRule !== undefined) {
    const tier: ForwardingTier = { name: 'edge', hop: shieldCalls(edge.shield, config), meter };
    return bypassed({ request, url, target }, rules.bypassRule, tier, facts.started);
  }
  // On the clock entries are timed by (readPolicy): records are compared with their origin times.
  const list = await isolatePurges.purgeList(edge.purges, facts.now);
  const purges = purgeWatch(list, purgePath);
  const soft = softPurgeWatch(list, purgePath);
  // What a site receives of the client's request (and what its Vary selects by); S3 gets none of it.
  const client = originTraits(config).forwardsClientHeaders ? forwardedFor(request, url) : undefined;
  // What the shield answers this request, as each head arrives: the shield's member and metrics it sends on.
  const hops = new HopLog(cacheName('shield'));
  const read: ObjectRead = {
    cache: await edgeCache(config),
    key,
    selecting: client,
    ...readPolicy(config, edge.clock, rules),
    // Everything the read leaves running is kept alive, and the request's record waits for it.
    waitUntil: (promise) => meter.hold(promise),
    upstream: shieldHop(
      edge,
      target,
      url.hostname,
      { purgedAt: purges.watermark, softPurgedAt: soft.watermark },
      client,
      hops,
    ),
    purged: purges.purged,
    softPurgedAt: soft.softPurgedAt,
    signal: request.signal,
    // Whether the client went away before the body ended, where that is heard (its record says).
    bodyEnd: (ended) => {
      meter.bodyEnded = ended;
    },
    onlyIfCached: hasDirective(parseCacheControl(request.headers.get('cache-control')), 'only-if-cached'),
  };
  const response =
    request.method === 'HEAD'
      ? conditionalHead(request.headers, await headObject(read, 'edge', started))
      : await serveObject(request, read, config, started, hops);
  // Said of the answer's headers, as the shield says it of the same ones (the same RULES at both tiers).
  const decided = ruleDecidedFreshness(rules, response.status, response.headers);
  return withRuleDetail(response, 'edge', decided === undefined ? undefined : ruleDetail(decided));
}

/**
 * The shield as this request's next hop: told the purges this edge applied, heard as each head arrives (`hops`),
 * metered, and healing a body cut part-way.
 */
function shieldHop(
  edge: EdgeRequest,
  target: RequestTarget,
  hostname: string,
  watermarks: PurgeWatermarks,
  client: Headers | undefined,
  hops: HopLog,
): Upstream {
  const { config, meter } = edge;
  const shield = shieldUpstream(edge.shield, config, target, hostname, watermarks, client, hops);
  return healingUpstream(
    meteredUpstream(loggedUpstream(shield, hops), meter, shieldFetchedFromOrigin),
    shieldHealing(config.originIdleTimeoutMs),
  );
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
