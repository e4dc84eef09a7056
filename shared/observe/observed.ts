// Where a tier's record of a request is made (docs/operating.md): around its whole handler, counted once the work it
// left running has settled; the response never waits for it, and with every sink off nothing is made.

import type { ObservabilityConfig } from '../config/observability.ts';
import { type LastHost, lastHost, memoryHitRecord, readAheadCounted, tierRecord } from '../stats/record.ts';
import type { TierName } from '../tiers/tiers.ts';
import { type AnalyticsSink, type StatsSinks, tellRecord } from './record-sinks.ts';
import { RequestMeter } from './request-meter.ts';
import type { StatsStoreNamespace } from './stats-store-client.ts';

export interface ObservedTier {
  tier: TierName;
  sinks: StatsSinks;
  /** The client's host and the object's path, as this tier sees them. */
  describe(request: Request): { host: string; path: string };
  /** The host this tier recorded last, in this isolate (record.ts lastHost); absent: each host is checked anew. */
  host?: LastHost;
}

/** A tier's sinks as its bindings name them (STATS, ANALYTICS; either may be absent). */
export function observedTier(
  tier: TierName,
  observability: ObservabilityConfig,
  env: { STATS?: StatsStoreNamespace; ANALYTICS?: AnalyticsSink },
  describe: ObservedTier['describe'],
): ObservedTier {
  return {
    tier,
    sinks: { observability, store: env.STATS, analytics: env.ANALYTICS },
    describe,
    host: lastHost(),
  };
}

/** A tier's handler for one request, measured: handed its bindings with a fresh meter, its record made around it. */
export function observedFetch<B extends { observed: ObservedTier }>(
  request: Request,
  ctx: { waitUntil(promise: Promise<unknown>): void },
  bindings: B,
  handle: (bound: B & { meter: RequestMeter }) => Response | Promise<Response>,
): Response | Promise<Response> {
  const keepAlive = (promise: Promise<unknown>): void => ctx.waitUntil(promise);
  const meter = new RequestMeter(Date.now(), keepAlive);
  return observed(request, handle({ ...bindings, meter }), meter, bindings.observed, keepAlive);
}

export function observed(
  request: Request,
  answer: Response | Promise<Response>,
  meter: RequestMeter,
  tier: ObservedTier,
  keepAlive: (promise: Promise<unknown>) => void,
): Response | Promise<Response> {
  const { sinks } = tier;
  const silent = sinks.store === undefined && sinks.analytics === undefined && sinks.observability.logSample === 0;
  const finish = (response: Response): Response => {
    // Errors are logged even with every sink off.
    const at = meter.started;
    if (meter.hit !== undefined) {
      // The hot path: everything known, nothing to read off the request or the response.
      if (!silent) tellRecord(memoryHitRecord(meter.hit, at, Date.now() - at, tier.host), sinks, keepAlive);
      return response;
    }
    if (meter.internal || (silent && response.status < 500)) return response;
    const ttfbMs = Date.now() - at;
    const { host, path } = tier.describe(request);
    // A body without a Content-Length (chunked) is counted as it goes; a warm's says what it stored.
    const sent = meter.readAhead === 'warm' ? response : meter.sentBody(request.method, response);
    const count = (durationMs: number, departed: boolean): void => {
      const record = tierRecord(
        {
          tier: tier.tier,
          method: request.method,
          host,
          path,
          status: response.status,
          headers: response.headers,
          bytesSent: meter.bytesSent,
          bytesFromNextHop: meter.bytesFromNextHop,
          bytesFromOrigin: meter.bytesFromOrigin,
          at,
          ttfbMs,
          durationMs,
          departed,
        },
        tier.host,
      );
      // A part of a slice read ahead is counted once for both (read-ahead-copy.ts).
      if (meter.readAhead !== undefined && !readAheadCounted(record, meter.readAhead, meter.bytesSent !== undefined))
        return;
      tellRecord(record, sinks, keepAlive);
    };
    const counted = (): void => {
      const durationMs = Date.now() - at;
      // The request's signal aborts when its client goes away before the head is out; after it, only at times
      // (workerd, measured): the body's end says, where it is heard (request-meter.ts bodyEnded).
      const ended = meter.bodyEnded;
      if (ended === undefined) count(durationMs, request.signal.aborted);
      else keepAlive(endOrAbort(ended, request.signal).then((departed) => count(durationMs, departed)));
    };
    if (meter.idle) counted();
    else keepAlive(meter.settled().then(counted));
    return sent;
  };
  return answer instanceof Response ? finish(answer) : answer.then(finish);
}

/**
 * Whether the client went away before the body ended: once the body's end is heard, or as soon as the request's signal
 * aborts (then the runtime may cancel the request's work, its pump's end never heard: the record is not lost).
 */
function endOrAbort(ended: Promise<{ departed: boolean }>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(true);
  const aborted = new Promise<boolean>((resolve) =>
    signal.addEventListener('abort', () => resolve(true), { once: true }),
  );
  return Promise.race([ended.then(({ departed }) => departed || signal.aborted), aborted]);
}
