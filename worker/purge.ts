// POST /__tiercache/purge (docs/purge.md): the purges recorded in the global list, this location's entries for the
// URLs named deleted, and the shield told to do the same with its own.

import { purgeAdmission } from '../shared/admission/tier-credentials.ts';
import type { Config } from '../shared/config/config.ts';
import { originTraits } from '../shared/config/origin-traits.ts';
import {
  BadRequest,
  ConfigError,
  ContentTooLarge,
  Forbidden,
  HttpError,
  Unauthorized,
  UnsupportedMediaType,
} from '../shared/http/errors.ts';
import { PURGE_BODY_LIMIT, type PurgeRecord, type PurgeRequest, parsePurgeBody } from '../shared/purge/purge-rules.ts';
import type { RequestTarget } from '../shared/request/request-target.ts';
import type { KeyQuery } from '../shared/rules/rules.ts';
import { applyRules } from '../shared/rules/rules-match.ts';
import { concatBytes } from '../shared/streams/bytes.ts';
import { edgeKey } from './edge-address.ts';
import { edgeTier } from './edge-tier.ts';
import type { EdgeRequest } from './env.ts';
import { purgePaths, runtimePort } from './platform-purge.ts';
import { shieldHop } from './shield-client.ts';

/** A URL the client named, resolved: where the edge keeps it, and the canonical path both tiers match. */
export interface PurgedUrl {
  url: URL;
  target: RequestTarget;
}

/**
 * Checks the bearer token, parses the body, records the purges in the global list (KV, shared/purge/purge-store.ts),
 * deletes this location's entries for the URLs named, and tells the shield, which does the same with its own and
 * purges the Workers Cache in front of it; a 503 when KV does not take the records (PurgeNotRecorded) or the shield
 * does not confirm (PurgeNotConfirmed). Nothing is ever sent to the origin. Purges are timed on the clock entries are
 * (the edge's, as readPolicy's).
 */
export async function purge(
  request: Request,
  edge: EdgeRequest,
  waitUntil: (work: Promise<unknown>) => void = () => undefined,
): Promise<Response> {
  const { config } = edge;
  const admission = purgeAdmission(request.headers.get('authorization'), config.purgeToken);
  if (admission === 'disabled') throw new Forbidden('purge is disabled: set the PURGE_TOKEN secret to enable it');
  // RFC 6750 §3: a request without valid credentials is answered 401 with WWW-Authenticate.
  if (admission === 'unauthorized') {
    throw new Unauthorized('purge needs Authorization: Bearer <PURGE_TOKEN>', 'Bearer realm="tiercache purge"');
  }
  if (edge.purges === undefined) throw new ConfigError('purge needs the PURGES KV namespace binding');
  const parsed = parsePurgeBody(await readBody(request));
  if (!parsed.ok) throw new BadRequest(parsed.reason);
  const at = edge.clock.now();
  const urls = parsed.request.urls.map((value) => resolve(value, new URL(request.url), config));
  const prefixes = parsed.request.prefixes.map((value) => resolvePrefix(value, config));
  const records = purgeRecords(parsed.request, urls, prefixes, at).map((record) =>
    // Soft (shared/purge/soft-purge.ts): the whole request is, each record says so itself.
    parsed.request.soft ? { ...record, soft: true as const } : record,
  );
  const { paths, reachesEveryLocationWithin, bound, boundBasis } = await applyPurge(
    records,
    at,
    urls,
    request,
    edge,
    waitUntil,
  );
  // `matched`: the canonical forms the tiers compare entries with, so a client sees what a purge names.
  const matched = { urls: urls.map(({ target }) => `${target.path}${target.query}`), prefixes };
  return Response.json(
    { purged: parsed.request, matched, at, reachesEveryLocationWithin, bound, boundBasis, paths },
    { headers: { 'cache-control': 'no-store' } },
  );
}

/**
 * Records taken at `at` applied as the purge API applies them (the events endpoint too, worker/events.ts): recorded in
 * the global list, this location's entries for the URL records removed (`urls[n]` is the URL of the n-th record, the
 * URL records first), the shield told (shared/tier/tier.ts); then the platform's own purge, where configured
 * (platform-purge.ts), the records staying the backstop. Rejects as the tier's purge does (503 when KV or the shield
 * did not take them).
 */
export async function applyPurge(
  records: PurgeRecord[],
  at: number,
  urls: readonly PurgedUrl[],
  request: Request,
  edge: EdgeRequest,
  waitUntil: (work: Promise<unknown>) => void,
): Promise<Awaited<ReturnType<typeof purgePaths>>> {
  const { config } = edge;
  await edgeTier(edge).purge(
    records,
    at,
    (_record, nth) => {
      const named = urls[nth];
      return named === undefined ? undefined : edgeKey(named.url, named.target);
    },
    shieldHop(edge.shield, config),
    config.slicing.subrequests,
  );
  return purgePaths(records, new URL(request.url), config, runtimePort(waitUntil));
}

function purgeRecords(request: PurgeRequest, urls: PurgedUrl[], prefixes: string[], at: number): PurgeRecord[] {
  return [
    ...urls.map(({ target }): PurgeRecord => ({ kind: 'url', value: `${target.path}${target.query}`, at })),
    ...prefixes.map((prefix): PurgeRecord => ({ kind: 'prefix', value: prefix, at })),
    ...request.tags.map((tag): PurgeRecord => ({ kind: 'tag', value: tag.toLowerCase(), at })),
    ...(request.everything ? [{ kind: 'everything', value: '', at } satisfies PurgeRecord] : []),
  ];
}

/** An absolute URL or a path (relative to this edge), in the canonical form the tiers key by. */
function resolve(value: string, base: URL, config: Config): PurgedUrl {
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    throw new BadRequest(`expected each of "urls" to be an absolute URL or a path, got ${JSON.stringify(value)}`);
  }
  try {
    return purgedUrl(url, config);
  } catch (error) {
    if (error instanceof HttpError)
      throw new BadRequest(`expected each of "urls" to name an object, got ${JSON.stringify(value)}: ${error.message}`);
    throw error;
  }
}

/** A URL in the canonical form the tiers key by, as a GET of it is; throws the HttpError saying why it names none. */
export function purgedUrl(url: URL, config: Config): PurgedUrl {
  return {
    url,
    target: originTraits(config).target(url, {
      indexDocument: config.site.indexDocument,
      keyQuery: config.cacheKeyQuery,
      ruleQuery: ruleQueryFor(config, url.host),
    }),
  };
}

/** A prefix in the canonical form entries are matched by, or the 400 saying why there is none. */
function resolvePrefix(value: string, config: Config): string {
  // Matched on the edge's own host: a prefix names no host (one with a query names a path a rule may key).
  const canonical = originTraits(config).purgePrefix(value, config.cacheKeyQuery, ruleQueryFor(config, ''));
  if (!canonical.ok) throw new BadRequest(canonical.reason);
  return canonical.prefix;
}

/** A rule's cacheKeyQuery for a path on `host`, as the edge keys a GET of it (edge-address.ts). */
function ruleQueryFor(config: Config, host: string): (path: string) => KeyQuery | undefined {
  return (path) => applyRules(config.rules, { host, path, method: 'GET' }).cacheKeyQuery;
}

/** The body as text: JSON, at most `limit` bytes (415 for another type, 413 past it). */
export async function readBody(request: Request, limit = PURGE_BODY_LIMIT): Promise<string> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') throw new UnsupportedMediaType('application/json', type ?? '');
  const tooLarge = (): HttpError => new ContentTooLarge(limit);
  if (Number(request.headers.get('content-length') ?? 0) > limit) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body !== null) {
    for await (const chunk of request.body as ReadableStream<Uint8Array>) {
      size += chunk.byteLength;
      if (size > limit) throw tooLarge();
      chunks.push(chunk);
    }
  }
  const bytes = concatBytes(chunks);
  return new TextDecoder().decode(bytes);
}
