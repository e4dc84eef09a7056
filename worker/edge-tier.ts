// The edge as a tier (shared/tier/tier.ts): its cache (edge-cache.ts), its clock, the global purge list it writes,
// and its next hop, the shield (shield-client.ts shieldHop). What is the edge's own of a GET or HEAD of an object:
// its address (edge-address.ts), the client's headers a site is sent, only-if-cached, GET served whole or sliced
// to the client (serve-object.ts), HEAD with the conditions a GET would honour.

import { originTraits } from '../shared/config/origin-traits.ts';
import { hasDirective, parseCacheControl } from '../shared/http/cache-control.ts';
import { evaluatePreconditions, notModifiedHeaders } from '../shared/http/conditional.ts';
import { PurgeNotRecorded } from '../shared/http/errors.ts';
import { purgeWatch } from '../shared/purge/purge-rules.ts';
import { isolatePurges } from '../shared/purge/purge-store.ts';
import { softPurgeWatch } from '../shared/purge/soft-purge.ts';
import type { RequestFacts } from '../shared/request/request-facts.ts';
import { applyRules } from '../shared/rules/rules-match.ts';
import { type ObjectRoute, openTier, type Tier } from '../shared/tier/tier.ts';
import { edgeAddress } from './edge-address.ts';
import { edgeCache } from './edge-cache.ts';
import type { EdgeRequest } from './env.ts';
import { serveObject } from './serve-object.ts';
import { forwardedFor, shieldHop } from './shield-client.ts';

/** The edge, for one request. */
export function edgeTier(edge: EdgeRequest): Tier {
  const { config, purges } = edge;
  return openTier({
    name: 'edge',
    cache: () => edgeCache(config),
    clock: edge.clock,
    purges,
    // Written to the global list (KV), which every isolate of both tiers reads within its bound.
    async record(records, at) {
      if (purges === undefined) return;
      await isolatePurges.recordPurges(purges, records, at).catch((error: unknown) => {
        throw new PurgeNotRecorded(error instanceof Error ? error.message : String(error));
      });
    },
    meter: edge.meter,
  });
}

/** GET is serve-object.ts; HEAD is shared/tier/object-head.ts, with the conditions a GET would honour. */
export function answerObject(request: Request, edge: EdgeRequest, facts: RequestFacts): Promise<Response> {
  return edgeTier(edge).answerObject(request, facts, edgeObject(request, edge, facts));
}

/** What the edge makes of a GET or HEAD of an object. */
function edgeObject(request: Request, edge: EdgeRequest, facts: RequestFacts): ObjectRoute {
  const { config } = edge;
  const { url } = facts;
  const address = edgeAddress(url, config);
  const { target, key, purgePath } = address;
  return {
    config,
    target,
    key,
    // The rules matching this request (a HEAD again by its own method: a rule may bypass or redirect it alone).
    rules:
      request.method === 'GET'
        ? address.rules
        : applyRules(config.rules, { host: url.host, path: target.path, method: request.method }),
    bypassable: true,
    next: shieldHop(edge.shield, config),
    // The client's host picks the shield's bucket.
    host: url.hostname,
    // What a site receives of the client's request (and what its Vary selects by); S3 gets none of it.
    client: originTraits(config).forwardsClientHeaders ? forwardedFor(request, url) : undefined,
    verdicts(list) {
      const purged = purgeWatch(list, purgePath);
      const soft = softPurgeWatch(list, purgePath);
      return {
        purged: purged.purged,
        softPurgedAt: soft.softPurgedAt,
        // Told to the shield, which applies them to its own copies too.
        watermarks: { purgedAt: purged.watermark, softPurgedAt: soft.watermark },
      };
    },
    extra: { onlyIfCached: hasDirective(parseCacheControl(request.headers.get('cache-control')), 'only-if-cached') },
    get: (read, hops, started) => serveObject(request, read, config, started, hops),
    head: (response) => conditionalHead(request.headers, response),
  };
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
