// One origin at several endpoints (ORIGIN_URL listing them: Storj's gateways serve the same bucket with the same
// credentials), as one Origin: a decorator over the kind's own implementation at each endpoint (origin-of.ts makes
// them), so nothing else in the shield knows there are several. A GET or HEAD goes to the first endpoint in the order
// this isolate's passive health gives (endpoint-health.ts); one that cannot be reached, does not answer within
// ORIGIN_TIMEOUT_MS, or answers 5xx or 429 is given up on and the next is asked, at once. No byte of a body has
// reached anyone then: `fetch` resolves with the answer's head, and a failed one's body is let go unread. A method
// other than GET and HEAD is never asked twice (it may not be idempotent): it goes to the first usable endpoint alone.
// With `hedge` (ORIGIN_HEDGE on) and two or more usable endpoints, a GET or HEAD whose first byte is late is also asked
// of the next endpoint, the first answer winning (endpoint-race.ts).

import { isBusy, retryAfterOf } from '../../shared/http/busy-origin.ts';
import { ClientGone } from '../../shared/http/errors.ts';
import type { OriginEndpoint } from '../../shared/http/health-report.ts';
import { isolateHedges } from '../../shared/observe/hedge-tally.ts';
import type { RequestTarget } from '../../shared/request/request-target.ts';
import { type EndpointHealth, isolateEndpoints } from './endpoint-health.ts';
import { raceEndpoints } from './endpoint-race.ts';
import type { HedgePolicy } from './hedge-policy.ts';
import type { ObjectAsk, Origin } from './origin.ts';
import { originBasePath } from './origin-url.ts';
import type { ForwardedHeaders } from './s3-request.ts';

/** An endpoint as its health is kept and reported: its origin and base path, never credentials or a query. */
function endpointName(url: URL): string {
  return `${url.origin}${originBasePath(url)}`;
}

/**
 * `endpoints` (the same kind, one per configured endpoint, the preferred first) as one origin. `remember` is told of
 * each origin it derives (a host's bucket: `forHost`, `inBucket`), as origin-of.ts remembers a kind's, so that a
 * derived configuration finds its failover origin again, made once. `hedge`: when and how often a late first byte is
 * hedged (shared by the origins derived, which read the same store); undefined, never.
 */
export function failoverOrigin(
  endpoints: readonly Origin[],
  health: EndpointHealth = isolateEndpoints,
  remember: (origin: Origin) => void = () => undefined,
  hedge: HedgePolicy | undefined = undefined,
): Origin {
  const first = endpoints[0];
  if (first === undefined) throw new TypeError('expected at least one endpoint');
  const names = endpoints.map((endpoint) => endpointName(endpoint.config.originUrl));
  // By the preferred endpoint's derived origin (each kind makes one per bucket, once): its failover origin.
  const derived = new Map<Origin, Origin>();
  const over = (each: (endpoint: Origin) => Origin): Origin => {
    const preferred = each(first);
    if (preferred === first) return self;
    let made = derived.get(preferred);
    if (made === undefined) {
      made = failoverOrigin([preferred, ...endpoints.slice(1).map(each)], health, remember, hedge);
      derived.set(preferred, made);
      remember(made);
    }
    return made;
  };
  const self: Origin = {
    traits: first.traits,
    config: first.config,
    // The preferred endpoint's: an object is one object whichever endpoint served it, keyed once.
    keyPrefix: first.keyPrefix,
    passesAnswersOn: first.passesAnswersOn,
    forHost: (host) => over((endpoint) => endpoint.forHost(host)),
    inBucket: (bucket) => over((endpoint) => endpoint.inBucket(bucket)),
    async fetch(target, method, forwarded, ask = {}) {
      const order = health.order(names, Date.now());
      if (hedge !== undefined && order.length > 1) {
        const field = { endpoints, names, order, health, policy: hedge, tally: isolateHedges, failure: failureOf };
        return raceEndpoints(field, target, method, forwarded, ask);
      }
      return askInTurn(endpoints, names, order, health, { target, method, forwarded, ask });
    },
    keptHeaders: (headers) => first.keptHeaders(headers),
    failure: (response) => first.failure(response),
    bypassAnswer: (response) => first.bypassAnswer(response),
    probeTarget(healthKey) {
      const probed = endpoints.map((endpoint) => endpoint.probeTarget(healthKey));
      const [preferred] = probed;
      if (preferred === undefined || preferred.origin === first)
        return { origin: self, target: first.probeTarget(healthKey).target };
      return { origin: over((endpoint) => endpoint.probeTarget(healthKey).origin), target: preferred.target };
    },
    probe: (ask) => first.probe(ask),
    passThrough(target, request) {
      const index = health.order(names, Date.now())[0] ?? 0;
      return (endpoints[index] ?? first).passThrough(target, request);
    },
  };
  return self;
}

/**
 * Each endpoint in `order` in turn until one answers (anything but 5xx or 429); the last one's answer or error is the
 * answer. A GET or HEAD only.
 */
async function askInTurn(
  endpoints: readonly Origin[],
  names: readonly string[],
  order: readonly number[],
  health: EndpointHealth,
  {
    target,
    method,
    forwarded,
    ask,
  }: { target: RequestTarget; method: 'GET' | 'HEAD'; forwarded: ForwardedHeaders; ask: ObjectAsk },
): Promise<Response> {
  for (const [position, index] of order.entries()) {
    const endpoint = endpoints[index] as Origin;
    const name = names[index] as string;
    const last = position === order.length - 1;
    // Another endpoint to ask: a busy answer is not waited out here (ObjectAsk.busy).
    const attempt: ObjectAsk = last ? ask : { ...ask, busy: 'answer' };
    const started = Date.now();
    health.asking(name, started);
    try {
      const response = await endpoint.fetch(target, method, forwarded, attempt);
      const failure = failureOf(response);
      if (failure === undefined) {
        health.answered(name, Date.now() - started);
        return response;
      }
      health.failed(name, Date.now(), failure.retryAfterMs);
      if (last) return response;
      await response.body?.cancel();
    } catch (error) {
      // The client went away: nothing was learnt of the endpoint, and nobody is left to answer.
      if (error instanceof ClientGone || ask.signal?.aborted === true) {
        health.released(name);
        throw error;
      }
      health.failed(name, Date.now());
      if (last) throw error;
    }
  }
  // Not reached: `order` names every endpoint, and the last one's answer or error is returned or thrown above.
  throw new TypeError('no endpoint was asked');
}

/** What the health answer says of each endpoint `urls` names (docs/operating.md "Health"). */
export function endpointsReport(urls: readonly URL[], health: EndpointHealth = isolateEndpoints): OriginEndpoint[] {
  return health.report(urls.map(endpointName), Date.now());
}

/** Whether an answer is given up on for the next endpoint (5xx, 429), and how long it asked to be left alone. */
function failureOf(response: Response): { retryAfterMs: number | undefined } | undefined {
  if (response.status < 500 && response.status !== 429) return undefined;
  return { retryAfterMs: isBusy(response.status) ? retryAfterOf(response) : undefined };
}
