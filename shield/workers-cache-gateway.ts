// The shield's default entrypoint in front of Workers Cache (docs/deploying.md "What each cache holds"): the slice
// requests whose answer may be kept go to the slices entrypoint through Workers Cache; everything else stays here.

import {
  CREDENTIAL_HEADER,
  PURGED_AT_HEADER,
  REVALIDATE_HEADER,
  SHIELD_ORIGIN,
  SOFT_PURGED_AT_HEADER,
} from '../shared/hop/hop-fields.ts';
import { type SliceRequest, sliceRequestPath } from '../shared/hop/slice-protocol.ts';
import { appendCacheStatus, cacheStatusMember, withoutMember } from '../shared/http/cache-status.ts';
import { BadGateway, PurgeNotConfirmed } from '../shared/http/errors.ts';
import { serverTimingMetric } from '../shared/http/server-timing.ts';
import type { RequestMeter } from '../shared/observe/request-meter.ts';
import type { PurgeRecord } from '../shared/purge/purge-rules.ts';
import {
  type WorkersCachePurge,
  type WorkersCachePurgeResult,
  workersCachePurge,
} from '../shared/purge/workers-cache-purge.ts';
import { batches, MAX_TAGS_PER_CALL } from '../shared/purge/zone-purge.ts';
import { WORKERS_CACHE_PURGE_PATH } from '../shared/request/reserved-paths.ts';
import { responseAsIs } from '../shared/streams/response-as-is.ts';
import type { ShieldCache } from '../shared/tiers/shield-caches.ts';
import { tier } from '../shared/tiers/tiers.ts';
import { AGE_HEADER, AGED_AT_HEADER, OBJECT_TAGS_HEADER, WORKERS_CACHE_FIELD } from './workers-cache-answer.ts';

/** How a hit of Workers Cache names its store in the shield's member (shared/tiers/shield-caches.ts). */
const WORKERS_CACHE: ShieldCache = 'workers-cache';

/** The slices entrypoint as the gateway reaches it (`ctx.exports.ShieldSlices`, a Fetcher). */
export interface SlicesEntry {
  fetch(input: Request | string, init?: RequestInit): Promise<Response>;
}

/**
 * What Workers Cache says it did (developers.cloudflare.com/cache/concepts/cache-responses/): served without running
 * the entrypoint.
 */
const SERVED_FROM_CACHE = new Set(['HIT', 'STALE', 'UPDATING', 'REVALIDATED']);

/**
 * Whether the gateway may hand `request` (a slice request, `sliced`) to Workers Cache: only a GET whose answer depends
 * on nothing but the object's version and span. Everything else stays here: warms, the rest of a broken span,
 * revalidations (the edge wants the origin's word, not a copy's), requests carrying the edge's (soft) purge watermark (a purge
 * the global list may not have reached yet), HEADs (Workers Cache turns a HEAD on a cold key into a GET: a whole
 * download), other methods, purge and health.
 */
export function keptByWorkersCache(
  request: Request,
  sliced: { request: SliceRequest } | undefined,
): sliced is { request: SliceRequest } {
  if (request.method !== 'GET' || sliced === undefined) return false;
  if (sliced.request.warm === true || (sliced.request.from ?? 0) > 0) return false;
  return ![
    REVALIDATE_HEADER,
    PURGED_AT_HEADER,
    SOFT_PURGED_AT_HEADER,
    'if-none-match',
    'if-modified-since',
    'range',
  ].some((name) => request.headers.has(name));
}

/**
 * The key Workers Cache keeps the answer under: the span, the slicing and the version asked
 * for, of the object at the origin (its URL with the bucket: shield-cache.ts shieldKey), so two
 * buckets or origins never share an entry. Handed to the slices entrypoint through `ctx.exports` with this key
 * (developers.cloudflare.com/workers/cache/cache-keys/#custom-cache-keys).
 */
export function workersCacheKey(slice: SliceRequest, originKey: string): string {
  return sliceRequestPath(slice, `/${originKey}`);
}

/**
 * The slices entrypoint's answer to `request`, through Workers Cache under `key`, as the edge takes it: what the
 * slices entrypoint put aside restored (workers-cache-answer.ts), and a Workers Cache hit reported as this tier's hit.
 */
export async function viaWorkersCache(
  request: Request,
  slices: SlicesEntry,
  key: string,
  meter: RequestMeter,
  now: number,
): Promise<Response> {
  let answer: Response;
  const asked = Date.now();
  try {
    answer = await slices.fetch(request, { cf: { cacheKey: key }, encodeResponseBody: 'manual' } as RequestInit);
  } catch {
    // Not an answer of ours gone wrong: the next hop, inside this tier, did not answer (RFC 9110 §15.6.3).
    throw new BadGateway("the shield's slices entrypoint did not answer");
  }
  const served = SERVED_FROM_CACHE.has((answer.headers.get('cf-cache-status') ?? '').toUpperCase());
  const headers = restored(answer.headers, now);
  if (served) {
    // RFC 9211 §2.1: a hit of this tier's, whichever of its caches held it.
    headers.set(
      'cache-status',
      appendCacheStatus(
        withoutMember(headers.get('cache-status'), tier('shield').statusMember),
        cacheStatusMember(tier('shield').statusMember, { hit: true, detail: 'workers-cache', store: WORKERS_CACHE }),
      ),
    );
    // The metrics kept with it were its fill's (the origin's among them): this request asked nothing behind the shield.
    headers.set('server-timing', serverTimingMetric('shield', Date.now() - asked));
  } else {
    // The slices entrypoint ran and made the request's record; one record per request.
    meter.internal = true;
  }
  return responseAsIs(answer.body, { status: answer.status, statusText: answer.statusText, headers });
}

/** The answer's fields as the edge knows them: the object's tags and its Age back, Cloudflare's own removed. */
export function restored(given: Headers, now: number): Headers {
  const headers = new Headers(given);
  const tags = headers.get(OBJECT_TAGS_HEADER);
  if (tags !== null) {
    if (tags === '') headers.delete('cache-tag');
    else headers.set('cache-tag', tags);
  }
  const age = Number(headers.get(AGE_HEADER));
  const agedAt = Number(headers.get(AGED_AT_HEADER));
  if (headers.has(AGE_HEADER) && Number.isFinite(age) && Number.isFinite(agedAt)) {
    // RFC 9111 §4.2.3: the age it had, plus the time it has been resident since.
    headers.set('age', String(Math.floor(age + Math.max(0, now - agedAt) / 1000)));
  }
  for (const name of [OBJECT_TAGS_HEADER, AGE_HEADER, AGED_AT_HEADER, WORKERS_CACHE_FIELD, 'cf-cache-status'])
    headers.delete(name);
  return headers;
}

/**
 * The Workers Cache in front of the slices entrypoint purged of what `records` name (shared/purge/workers-cache-purge.ts),
 * after the shield's own cache: the one layer the global list does not reach, its copies served without the shield
 * running. Rejects with PurgeNotConfirmed when Workers Cache did not take it, which the edge passes on so that the
 * purge is asked again.
 */
export function purgeInFront(
  slices: SlicesEntry,
  credential: string | undefined,
): (records: readonly PurgeRecord[]) => Promise<void> {
  const purger = workersCachePurger(slices, credential);
  return async (records) => {
    const options = workersCachePurge(records);
    if (options === undefined) return;
    // A soft purge (every record of one request is, or none) is an invalidate there: marked stale, not removed.
    const soft = records.length > 0 && records.every((record) => record.soft === true);
    // In calls of at most MAX_TAGS_PER_CALL tags: Workers Cache states no limit of its own, the zone purge does.
    const calls =
      options.tags === undefined ? [options] : batches(options.tags, MAX_TAGS_PER_CALL).map((tags) => ({ tags }));
    for (const call of calls) {
      const result = await purger(call, soft);
      if (!result.success)
        throw new PurgeNotConfirmed(
          `Workers Cache in front of the shield did not take the purge (${result.errors.map((error) => `${error.code}: ${error.message}`).join('; ') || 'no reason given'})`,
        );
    }
  };
}

/**
 * Purges Workers Cache through the slices entrypoint, the one its entries belong to; `invalidate`: softly (marked stale,
 * ctx.cache.invalidate), for a soft purge.
 */
function workersCachePurger(
  slices: SlicesEntry,
  credential: string | undefined,
): (options: WorkersCachePurge, invalidate?: boolean) => Promise<WorkersCachePurgeResult> {
  return async (options, invalidate = false) => {
    const headers = new Headers({ 'content-type': 'application/json' });
    if (credential !== undefined) headers.set(CREDENTIAL_HEADER, credential);
    let answer: Response;
    try {
      answer = await slices.fetch(`${SHIELD_ORIGIN}${WORKERS_CACHE_PURGE_PATH}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(invalidate ? { ...options, invalidate: true } : options),
      });
    } catch (error) {
      return {
        success: false,
        errors: [
          {
            code: 0,
            message: `the slices entrypoint could not be reached: ${error instanceof Error ? error.message : String(error)}`,
          },
        ],
      };
    }
    const text = await answer.text();
    try {
      const result = JSON.parse(text) as WorkersCachePurgeResult;
      if (answer.ok && typeof result.success === 'boolean' && Array.isArray(result.errors)) return result;
    } catch {
      // Not the entrypoint's JSON: said below.
    }
    return { success: false, errors: [{ code: answer.status, message: text.slice(0, 200) }] };
  };
}
