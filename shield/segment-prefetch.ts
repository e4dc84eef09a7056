// The next segments at the shield (docs/warming.md "The next segments at the shield"): when a client's read of a media
// segment reaches the shield and its rendition's playlist passed through this isolate, the segments a player reads
// next are warmed into the shield's cache (warm-object.ts warmObject: through the read path, drained, never held),
// after the read's answer, in its invocation (waitUntil), within the isolate's budget, while its viewer is there. The
// isolate's memo of renditions and its budget are module state, declared here; the policy is shared/warm/'s, pure.

import type { Config } from '../shared/config/config.ts';
import { HOST_HEADER, SHIELD_ORIGIN } from '../shared/hop/hop-fields.ts';
import { parseSliceRequestPath, WHOLE } from '../shared/hop/slice-protocol.ts';
import { isolatePrefetches } from '../shared/observe/prefetch-tally.ts';
import { tellOperations } from '../shared/observe/record-sinks.ts';
import { RequestMeter } from '../shared/observe/request-meter.ts';
import { normalizePath } from '../shared/request/canonical-path.ts';
import type { RequestFacts } from '../shared/request/request-facts.ts';
import { isReserved } from '../shared/request/reserved-paths.ts';
import { OBJECT_HEADER } from '../shared/slices/object-meta.ts';
import { responseAsIs } from '../shared/streams/response-as-is.ts';
import { isolateUrgency, URGENT_HOLD_MS } from '../shared/tier/slice-reader/isolate-pool.ts';
import { type PlaylistKind, playlistKind } from '../shared/warm/playlist-uris.ts';
import { PREFETCH_LIMITS, PrefetchBudget } from '../shared/warm/prefetch-budget.ts';
import { IDLE_SEGMENTS, prefetchPlan, segmentsAhead, stillWatched } from '../shared/warm/prefetch-plan.ts';
import { RENDITION_LIMITS, type Rendition, RenditionMemo } from '../shared/warm/rendition-memo.ts';
import { type RenditionOrder, renditionOrders } from '../shared/warm/rendition-order.ts';
import type { ShieldRequest } from './env.ts';
import { objectTarget } from './object-target.ts';
import { warmObject } from './warm-object.ts';

/**
 * Longest playlist read to learn it: a two-hour rendition of 2 s segments, named at length, is some 300 KB; an HLS
 * playlist is text, read whole (RFC 8216 §4.1), so a bound on its bytes is a bound on the work.
 */
const PLAYLIST_BYTES_MAX = 1024 * 1024;
/** Most URIs a playlist may name and be learned (a DASH template can number any count). */
const PLAYLIST_URIS_MAX = 20_000;

/** This isolate's renditions (module state, declared: one memo per isolate, bounded: RENDITION_LIMITS). */
const isolateRenditions = new RenditionMemo(RENDITION_LIMITS);
/** This isolate's prefetches under way and started in the last minute (module state, declared: PREFETCH_LIMITS). */
const isolateBudget = new PrefetchBudget(PREFETCH_LIMITS);

/** The invocation of the read, whose waitUntil keeps its prefetches alive. */
interface Invocation {
  waitUntil(promise: Promise<unknown>): void;
}

/** What a read of an object at the shield is, for prefetching. */
interface ObjectRead {
  /** The object's key here: the client's host and the canonical path with its kept query (segmentKey). */
  key: string;
  host: string;
  /** Its canonical path and kept query, as a read of it names it. */
  path: string;
  kind: PlaylistKind | undefined;
}

/**
 * The shield's answer to a GET of an object, seen on its way to the edge: a playlist's text learned (its body teed, at
 * most PLAYLIST_BYTES_MAX, when this version is not known yet), a segment's read counted and its rendition's next
 * segments prefetched. Only a client's read counts (not a warm, the edge's read-ahead or a copy of it; not a later
 * span of a sliced read); with PREFETCH_SEGMENTS 0 nothing is done at all.
 */
export function prefetchAfter(
  request: Request,
  response: Response,
  shield: ShieldRequest,
  facts: RequestFacts,
  ctx: Invocation,
): Response {
  if (shield.config.prefetchSegments === 0 || request.method !== 'GET' || shield.meter.readAhead !== undefined)
    return response;
  if (response.status !== 200) return response;
  const now = shield.clock.now();
  isolatePrefetches.expire(now);
  const read = objectRead(request, shield, facts);
  if (read === undefined) return response;
  if (read.kind !== undefined) return learnPlaylist(response, read, shield.config, ctx);
  isolatePrefetches.read(read.key, now);
  const place = isolateRenditions.locate(read.key);
  if (place === undefined) return response;
  const { rendition, index } = place;
  const previous = rendition.reads.get(rendition.segments[index - 1] ?? '');
  isolateRenditions.read(rendition, read.key, now);
  const plan = prefetchPlan({
    segments: rendition.segments,
    index,
    ahead: segmentsAhead(shield.config.prefetchSegments, {
      index,
      previousReadAt: previous,
      now,
      targetMs: rendition.targetMs,
    }),
    present: (key) => isolateRenditions.isStored(key) || isolateBudget.has(key),
    room: isolateBudget.room(now),
  });
  if (plan.length > 0) ctx.waitUntil(prefetchInTurn(plan, rendition, request, read.host, shield, ctx));
  return response;
}

/** A segment's key here: its host and its canonical path and kept query (one spelling per object). */
function segmentKey(host: string, path: string): string {
  return `//${host}${path}`;
}

/** What `request` reads, or undefined when it is no object's first read (a later span of a sliced read). */
function objectRead(request: Request, shield: ShieldRequest, facts: RequestFacts): ObjectRead | undefined {
  const sliced = parseSliceRequestPath(facts.url.pathname);
  if (sliced !== undefined && (sliced.request.span.first !== 0 || (sliced.request.from ?? 0) > 0)) return undefined;
  const host = request.headers.get(HOST_HEADER) ?? '';
  const path = targetPath(shield.config, host, facts.url, sliced);
  if (path === undefined) return undefined;
  const kind = playlistKind(sliced?.objectPath ?? facts.url.pathname);
  // Nothing remembered and no playlist: no rendition to find this object in.
  if (kind === undefined && isolateRenditions.size.segments === 0) return undefined;
  return { key: segmentKey(host, path), host, path, kind };
}

/** The canonical path and kept query the read path keys `url` by (object-target.ts); undefined for none. */
function targetPath(config: Config, host: string, url: URL, sliced: { objectPath: string } | undefined) {
  try {
    const { target } = objectTarget(config, host, 'GET', url, sliced);
    return isReserved(normalizePath(target.path)) ? undefined : `${target.path}${target.query}`;
  } catch {
    return undefined;
  }
}

/**
 * The playlist's answer, its text read on the side (the body teed) and learned, unless this version is known: only a
 * whole, unencoded body of a declared length within PLAYLIST_BYTES_MAX (a playlist is small; a larger one is no
 * playlist worth remembering).
 */
function learnPlaylist(response: Response, read: ObjectRead, config: Config, ctx: Invocation): Response {
  const length = Number(response.headers.get('content-length') ?? Number.NaN);
  const encoding = response.headers.get('content-encoding');
  const version = response.headers.get('etag') ?? '';
  if (
    response.body === null ||
    response.headers.get(OBJECT_HEADER) !== WHOLE ||
    !(length >= 0 && length <= PLAYLIST_BYTES_MAX) ||
    (encoding !== null && encoding !== 'identity') ||
    (version !== '' && isolateRenditions.version(read.key) === version)
  )
    return response;
  const [out, copy] = response.body.tee();
  ctx.waitUntil(
    new Response(copy)
      .text()
      .then((text) => isolateRenditions.learn(read.key, version, segmentOrders(text, read, config)))
      .catch(() => undefined),
  );
  return responseAsIs(out, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * The playlist's renditions as segment keys: each URI resolved against the playlist's URL on its host, kept when it is
 * on that host (an absolute URI to another host, an ad server's say, is not this deployment's to warm) and not one of
 * the tiers' own paths.
 */
function segmentOrders(text: string, read: ObjectRead, config: Config): RenditionOrder[] {
  const origin = `http://${read.host}`;
  if (read.kind === undefined || !URL.canParse(read.path, origin)) return [];
  const base = new URL(read.path, origin);
  return renditionOrders(text, read.kind, base, PLAYLIST_URIS_MAX).map(({ segments, targetMs }) => ({
    targetMs,
    segments: segments.flatMap((href) => {
      const url = new URL(href);
      if (url.host !== base.host) return [];
      const path = targetPath(config, read.host, new URL(`${url.pathname}${url.search}`, SHIELD_ORIGIN), undefined);
      return path === undefined ? [] : [segmentKey(read.host, path)];
    }),
  }));
}

/**
 * The planned segments warmed one after another, nearest first, each once the isolate's urgent requests have their
 * first byte (at most URGENT_HOLD_MS: a prefetch never holds up a client's read), and none started once the viewer has
 * gone: the read that planned them cancelled by its client, or no segment of the rendition read for IDLE_SEGMENTS
 * durations. Held alive by the read's invocation (waitUntil), not by its record, which need not wait for it: so what
 * each warm counted (the prefetch, its origin's hedges, the R2 tier's operations) is told to the stats on its own, a
 * flush held by the same invocation.
 */
async function prefetchInTurn(
  plan: readonly string[],
  rendition: Rendition,
  trigger: Request,
  host: string,
  shield: ShieldRequest,
  ctx: Invocation,
): Promise<void> {
  const own: ShieldRequest = {
    ...shield,
    meter: new RequestMeter(Date.now(), (work) => ctx.waitUntil(work)),
    answered: undefined,
  };
  const windowMs = (shield.config.prefetchSegments + IDLE_SEGMENTS) * rendition.targetMs;
  const prefix = segmentKey(host, '');
  for (const key of plan) {
    await isolateUrgency.clear(URGENT_HOLD_MS);
    const now = shield.clock.now();
    if (trigger.signal.aborted || !stillWatched(rendition.lastReadAt, now, rendition.targetMs)) return;
    if (isolateRenditions.isStored(key) || !isolateBudget.begin(key, now)) continue;
    try {
      const headers = new Headers({ [HOST_HEADER]: host });
      const coding = trigger.headers.get('accept-encoding');
      if (coding !== null) headers.set('accept-encoding', coding);
      const warmed = await warmObject({ path: key.slice(prefix.length), headers }, own);
      if (warmed.outcome === 'warmed' || warmed.outcome === 'cached') isolateRenditions.stored(key);
      if (warmed.outcome === 'warmed' && warmed.originBytes > 0)
        isolatePrefetches.stored(key, warmed.originBytes, shield.clock.now(), windowMs);
      // A copy already here asked nothing of the origin or R2: nothing counted.
      if (warmed.outcome !== 'cached') tellOperations('shield', shield.observed.sinks, (work) => ctx.waitUntil(work));
    } finally {
      isolateBudget.end(key);
    }
  }
}
