// The edge's purge, told to the shield (docs/purge.md): the records learned, the shield's entries for the URLs named
// deleted, and the Workers Cache in front of the slices entrypoint purged of what the records name.

import type { Clock } from '../shared/clock/clock.ts';
import type { Config } from '../shared/config/config.ts';
import { SHIELD_ORIGIN } from '../shared/hop/hop-fields.ts';
import { BadRequest, PurgeNotConfirmed } from '../shared/http/errors.ts';
import { asRecord, directDeletes, type PurgeRecord } from '../shared/purge/purge-rules.ts';
import { isolatePurges } from '../shared/purge/purge-store.ts';
import {
  type WorkersCachePurge,
  type WorkersCachePurgeResult,
  workersCachePurge,
} from '../shared/purge/workers-cache-purge.ts';
import { batches, MAX_TAGS_PER_CALL } from '../shared/purge/zone-purge.ts';
import { remove } from '../shared/tier/tier-cache.ts';
import { originOf } from './origin/origin-of.ts';
import { shieldCache, shieldKey } from './shield-cache.ts';

/** Purges Workers Cache (workers-cache-gateway.ts workersCachePurger). */
export type WorkersCachePurger = (options: WorkersCachePurge, invalidate?: boolean) => Promise<WorkersCachePurgeResult>;

/**
 * This isolate learns the records at once (others re-read the global list within its bound). Workers Cache is purged
 * here (shared/purge/workers-cache-purge.ts) because it is the one layer the global list does not reach: its copies
 * are served without the shield running. Only when all of it is done is the purge answered 204; a Workers Cache that
 * did not take it is a 503 the edge passes on, so that the purge is asked again. Only the edge reaches this
 * (shield-app.ts checks its credential).
 * The list is kept on the shield's `clock`, which its entries are timed by.
 * `purgeWorkersCache`: present when Workers Cache fronts the slices entrypoint.
 */
export async function acceptPurge(
  request: Request,
  config: Config,
  clock: Clock,
  purgeWorkersCache?: WorkersCachePurger,
): Promise<Response> {
  const records = await readRecords(request);
  isolatePurges.rememberPurges(records, clock.now());
  const cache = await shieldCache();
  // A soft record deletes nothing: the entry stays, stale, to be revalidated (shared/purge/soft-purge.ts).
  // The first directDeletes only (each is a subrequest): the records make every one a miss here at once.
  const urls = records
    .filter((record) => record.kind === 'url' && record.soft !== true)
    .slice(0, directDeletes(config.slicing.subrequests));
  // The edge sent canonical paths and kept queries; re-derived here exactly as a request for them would be (its
  // query already what a key keeps: CACHE_KEY_QUERY's, or a rule's).
  const keyed = { keyQuery: config.cacheKeyQuery, ruleQuery: () => 'all' as const };
  const origin = originOf(config);
  await Promise.all(
    urls.map((record) =>
      remove(cache, shieldKey(origin, origin.traits.target(new URL(record.value, SHIELD_ORIGIN), keyed))).catch(
        () => false,
      ),
    ),
  );
  const options = purgeWorkersCache === undefined ? undefined : workersCachePurge(records);
  if (purgeWorkersCache !== undefined && options !== undefined) {
    // A soft purge (every record of one request is, or none) is an invalidate there: marked stale, not removed.
    const soft = records.length > 0 && records.every((record) => record.soft === true);
    // In calls of at most MAX_TAGS_PER_CALL tags: Workers Cache states no limit of its own, the zone purge does.
    const calls =
      options.tags === undefined ? [options] : batches(options.tags, MAX_TAGS_PER_CALL).map((tags) => ({ tags }));
    for (const call of calls) {
      const result = await purgeWorkersCache(call, soft);
      if (!result.success)
        throw new PurgeNotConfirmed(
          `Workers Cache in front of the shield did not take the purge (${result.errors.map((error) => `${error.code}: ${error.message}`).join('; ') || 'no reason given'})`,
        );
    }
  }
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
