// The slices entrypoint's answers as Workers Cache, in front of it, reads them (docs/deploying.md "What each cache
// holds"), and the entrypoint's purge endpoint.

import { BadRequest } from '../shared/http/errors.ts';
import { entryTags } from '../shared/purge/purge-rules.ts';
import {
  type WorkersCachePurge,
  type WorkersCachePurgeApi,
  type WorkersCachePurgeResult,
  workersCacheTags,
} from '../shared/purge/workers-cache-purge.ts';
import { type EntryMeta, MAX_RETENTION_S, remainingFreshness } from '../shared/store/stored-entry.ts';
import { responseAsIs } from '../shared/streams/response-as-is.ts';

/**
 * Cloudflare's own targeted field (RFC 9213): read by Workers Cache, never by tiercache. It takes precedence over
 * Cache-Control, and Cloudflare consumes it (developers.cloudflare.com/workers/cache/configuration/#header-precedence).
 */
export const WORKERS_CACHE_FIELD = 'cloudflare-cdn-cache-control';
/**
 * The object's own Cache-Tag (which Cloudflare consumes), under a name Cloudflare leaves alone: restored by the
 * gateway.
 */
export const OBJECT_TAGS_HEADER = 'x-tiercache-cache-tag';
/**
 * The answer's Age, and when (ms epoch) it was that: the gateway ages it by the time since (workers-cache-gateway.ts).
 * In a field of ours, so that Workers Cache counts the lifetime from now, whatever it makes of Age.
 */
export const AGE_HEADER = 'x-tiercache-age';
export const AGED_AT_HEADER = 'x-tiercache-aged-at';

/** What Workers Cache needs to know of an answer to decide. */
export interface AnswerFacts {
  status: number;
  /** The timing this tier stores the object under; undefined when it does not store it. */
  entry: EntryMeta | undefined;
  /** This tier's clock (ms epoch). */
  now: number;
  /** The object's canonical path and query (what purges name). */
  path: string;
}

/**
 * Marks `headers` (an answer of the slices entrypoint) as Workers Cache may keep it, or not at all. Workers Cache
 * stores 200s only, so an answer says `no-store` unless it is a 200 (or the 304 refreshing one) of an object this
 * tier stores, still fresh, not varying, and taggable for every purge that could name it
 * (shared/purge/workers-cache-purge.ts); then `max-age` is the freshness it has left (keptFor), `stale-if-error=0`
 * (Workers Cache would otherwise serve it stale on any error, indefinitely), and no stale-while-revalidate.
 */
export function markForWorkersCache(headers: Headers, facts: AnswerFacts): void {
  const objectTags = headers.get('cache-tag');
  headers.set(OBJECT_TAGS_HEADER, objectTags ?? '');
  const age = headers.get('age');
  if (age !== null) {
    headers.set(AGE_HEADER, age);
    headers.set(AGED_AT_HEADER, String(Math.round(facts.now)));
    headers.delete('age');
  }
  const left = keptFor(headers, facts);
  const tags = left > 0 ? workersCacheTags(facts.path, entryTags(headers)) : undefined;
  if (tags === undefined) {
    headers.set(WORKERS_CACHE_FIELD, 'no-store');
    return;
  }
  headers.set('cache-tag', tags.join(','));
  headers.set(WORKERS_CACHE_FIELD, `max-age=${left}, stale-if-error=0`);
}

/**
 * Whole seconds Workers Cache may keep the answer: its freshness left here, at most the 31 days a tier keeps an entry.
 */
function keptFor(headers: Headers, { status, entry, now }: AnswerFacts): number {
  if ((status !== 200 && status !== 304) || entry === undefined || headers.has('vary')) return 0;
  return Math.max(0, Math.min(MAX_RETENTION_S, Math.floor(remainingFreshness(entry, now))));
}

/** Any answer of the slices entrypoint not marked (an error, a refusal): Workers Cache keeps none. */
export function unmarkedNotKept(response: Response): Response {
  if (response.headers.has(WORKERS_CACHE_FIELD)) return response;
  const headers = new Headers(response.headers);
  headers.set(WORKERS_CACHE_FIELD, 'no-store');
  headers.set(OBJECT_TAGS_HEADER, headers.get('cache-tag') ?? '');
  return responseAsIs(response.body, { status: response.status, statusText: response.statusText, headers });
}

/**
 * The slices entrypoint's answer to the gateway's purge: what `ctx.cache.purge` said, as JSON. Only this entrypoint
 * can serve it: a Workers Cache purge is scoped to the entrypoint that calls it.
 */
export async function purgeWorkersCache(request: Request, cache: WorkersCachePurgeApi | undefined): Promise<Response> {
  const { options, invalidate } = parsePurge(await request.text());
  const result: WorkersCachePurgeResult =
    cache === undefined
      ? {
          success: false,
          errors: [
            { code: 0, message: 'this entrypoint has no Workers Cache purge API (ctx.cache): is its cache enabled?' },
          ],
        }
      : // A soft purge marks stale where the runtime can (invalidate); where it cannot, it removes: never less.
        invalidate && cache.invalidate !== undefined
        ? await cache.invalidate(options)
        : await cache.purge(options);
  return Response.json(result, { headers: { 'cache-control': 'no-store', [WORKERS_CACHE_FIELD]: 'no-store' } });
}

/** The gateway's purge: what to purge, and whether softly (`"invalidate": true`, a soft purge's records). */
function parsePurge(text: string): { options: WorkersCachePurge; invalidate: boolean } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new BadRequest('expected the Workers Cache purge as JSON');
  }
  const { tags, purgeEverything, invalidate } = (body ?? {}) as Record<string, unknown>;
  const soft = invalidate === true;
  if (purgeEverything === true) return { options: { purgeEverything: true }, invalidate: soft };
  if (Array.isArray(tags) && tags.length > 0 && tags.every((tag) => typeof tag === 'string'))
    return { options: { tags: tags as string[] }, invalidate: soft };
  throw new BadRequest('expected {"tags": [...]} or {"purgeEverything": true}');
}
