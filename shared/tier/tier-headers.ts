// The headers by which a tier reports itself on every response it sends, hit, miss or error:
// its RFC 9211 Cache-Status member after those of the tiers behind it, and its Server-Timing.

import {
  appendCacheStatus,
  type CacheStatusParams,
  cacheStatusMember,
  memberParams,
  withMemberDetail,
  withMemberStore,
  withoutMember,
} from '../http/cache-status.ts';
import { appendServerTiming, serverTimingMetric } from '../http/server-timing.ts';
import { targetedFieldsToStrip } from '../http/targeted-cache-control.ts';
import { responseAsIs } from '../streams/response-as-is.ts';
import { type TierName, tier } from '../tiers/tiers.ts';

export type Tier = TierName;

/** The name the tier's Cache-Status member goes by. */
export function cacheName(name: Tier): string {
  return tier(name).statusMember;
}

/** `headers` with this tier's Cache-Status member and Server-Timing metric added. */
export function reportTier(headers: Headers, tier: Tier, params: CacheStatusParams, durationMs: number): Headers {
  const name = cacheName(tier);
  // Fields targeted at tiercache alone end at the edge (RFC 9213; targeted-cache-control.ts).
  if (tier === 'edge') for (const field of targetedFieldsToStrip('client')) headers.delete(field);
  headers.set(
    'cache-status',
    appendCacheStatus(withoutMember(headers.get('cache-status'), name), cacheStatusMember(name, params)),
  );
  headers.set('server-timing', appendServerTiming(headers.get('server-timing'), serverTimingMetric(tier, durationMs)));
  return headers;
}

/**
 * A tier's answer with a body read from the object (stored or passing): its report and the Age
 * of what it serves (RFC 9111 §5.1, whole seconds down). The body goes as it is: with a
 * Content-Encoding, already encoded.
 */
export function tierAnswer(
  tier: Tier,
  status: number,
  headers: Headers,
  body: ReadableStream | null,
  answer: { age: number; report: CacheStatusParams; durationMs: number },
): Response {
  reportTier(headers, tier, answer.report, answer.durationMs);
  headers.set('age', String(Math.floor(answer.age)));
  return responseAsIs(body, { status, headers });
}

/** A response with the tier's report added (headers copied: upstream responses may be immutable). */
export function withTierReport(
  response: Response,
  tier: Tier,
  params: CacheStatusParams,
  durationMs: number,
): Response {
  const headers = reportTier(new Headers(response.headers), tier, params, durationMs);
  // Bodies pass as they came: one with a Content-Encoding is already encoded.
  return responseAsIs(response.body, { status: response.status, statusText: response.statusText, headers });
}

/**
 * `response` with `detail=rule:<name>` first in this tier's Cache-Status member (docs/rules.md), when a rule decided
 * the freshness of what it answers (shared/rules/rule-freshness.ts); as it was otherwise.
 */
export function withRuleDetail(response: Response, tier: Tier, words: string | undefined): Response {
  if (words === undefined) return response;
  return withCacheStatus(response, withMemberDetail(response.headers.get('cache-status'), cacheName(tier), words));
}

/**
 * `response` with this tier's member, when it is a hit, naming the store the hit came from (cache-status.ts
 * STORE_PARAM), unless it names one already (the shield's Workers Cache hit does: workers-cache-gateway.ts); as it was
 * otherwise. Only a hit says it: a miss was answered from no store.
 */
export function withHitStore(response: Response, tier: Tier, store: string): Response {
  const field = response.headers.get('cache-status');
  const params = memberParams(field, cacheName(tier));
  if (params?.hit !== true || params.store !== undefined) return response;
  return withCacheStatus(response, withMemberStore(field, cacheName(tier), store));
}

/** `response` with `field` as its Cache-Status; as it was when `field` is null (there was no member to change). */
function withCacheStatus(response: Response, field: string | null): Response {
  if (field === null) return response;
  try {
    response.headers.set('cache-status', field);
    return response;
  } catch {
    // An upstream response's headers are immutable: copied, the body passing as it came.
    const headers = new Headers(response.headers);
    headers.set('cache-status', field);
    return responseAsIs(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}

/**
 * What a sliced read found: slices hit and looked up, of how many the request needs, and whether those fetched are
 * stored here.
 */
export interface SliceCounts {
  hits: number;
  checked: number;
  total: number;
  /** Whether slices fetched for this read are stored (false when the object may not be: no-store, private). */
  storing: boolean;
}

/**
 * A tier's report for a sliced object: a hit only when the manifest was fresh and every slice
 * looked up before the first byte was here; RFC 9211 `fwd=partial` when only some were. The
 * detail says how many of the slices looked up were hits, and of how many in all. `stored`
 * (§2.5) only when something fetched was stored: the manifest, or slices the object lets us keep.
 */
export function slicedReport(
  base: CacheStatusParams,
  { hits, checked, total, storing }: SliceCounts,
): CacheStatusParams {
  // One detail per member (RFC 9211 §2.8): why the copy was used, if that was said, then the slices.
  const slices = `slices ${hits}/${checked}${checked < total ? ` of ${total}` : ''}`;
  const detail = base.detail === undefined ? slices : `${base.detail} ${slices}`;
  const storedSlices = storing && checked > hits;
  if (base.hit && hits === checked) return { ...base, detail };
  if (base.hit)
    return { fwd: 'partial', ...(base.ttl !== undefined ? { ttl: base.ttl } : {}), stored: storedSlices, detail };
  return { ...base, stored: Boolean(base.stored) || storedSlices, detail };
}
