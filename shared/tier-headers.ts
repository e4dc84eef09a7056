// The headers by which a tier reports itself on every response it sends, hit, miss or error:
// its RFC 9211 Cache-Status member after those of the tiers behind it, and its Server-Timing.

import { type CacheStatusParams, appendCacheStatus, cacheStatusMember, withoutMember } from './cache-status.ts';
import { type TierMetric, appendServerTiming, serverTimingMetric } from './server-timing.ts';

export type Tier = Extract<TierMetric, 'edge' | 'shield'>;

export function cacheName(tier: Tier): string {
  return `tiercache-${tier}`;
}

/** `headers` with this tier's Cache-Status member and Server-Timing metric added. */
export function reportTier(headers: Headers, tier: Tier, params: CacheStatusParams, durationMs: number): Headers {
  const name = cacheName(tier);
  headers.set('cache-status', appendCacheStatus(withoutMember(headers.get('cache-status'), name), cacheStatusMember(name, params)));
  headers.set('server-timing', appendServerTiming(headers.get('server-timing'), serverTimingMetric(tier, durationMs)));
  return headers;
}

/** A response with the tier's report added (headers copied: upstream responses may be immutable). */
export function withTierReport(response: Response, tier: Tier, params: CacheStatusParams, durationMs: number): Response {
  const headers = reportTier(new Headers(response.headers), tier, params, durationMs);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
