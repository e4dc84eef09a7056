// The shield's answer to the edge's slice requests (shared/hop/slice-protocol.ts): a complete 200 of exactly the
// span's bytes of the pinned version, from the shield's own slices or from the origin, several slices at once.
//
// Its steps, in the order answerSlices takes them (after Varnish's FETCH_STEPS, cache_fetch.c), one function each:
//   sameSlicing   the edge slices by the shield's slice size, or a 400
//   discover      what the shield holds or the origin says of the span's first slice (asked again once if it moved)
//   notModified   the edge's copy is current: a 304 with every header that refreshes it
//   wholeAnswer   an object not sliced: the whole of it, marked so
//   refusal       412 when the version the edge pinned is gone, 416 when the span starts past the end
//   wantedSlices  the span's bytes (or their rest from an offset, to heal a body) and the slices holding them
//   warmAnswer    the edge reading ahead: the slices stored here, their bytes fetched when its reader gets there
//   spanAnswer    the span's bytes, from the shield's slices or the origin; another version met: start over

import type { Config } from '../shared/config/config.ts';
import { ORIGIN_AT_HEADER } from '../shared/hop/hop-fields.ts';
import { type SliceRequest, SPAN_HEADER, WHOLE } from '../shared/hop/slice-protocol.ts';
import type { CacheStatusParams } from '../shared/http/cache-status.ts';
import { BadGateway, BadRequest, PreconditionFailed, VersionChanged } from '../shared/http/errors.ts';
import { unsatisfiedRange } from '../shared/http/range.ts';
import { appendServerTiming, serverTimingMetric } from '../shared/http/server-timing.ts';
import { markObject, OBJECT_HEADER, representationHeaders } from '../shared/slices/object-meta.ts';
import { sliceCount } from '../shared/slices/slice-plan.ts';
import type { EntryMeta } from '../shared/store/stored-entry.ts';
import type { HopLog } from '../shared/tier/hop-log.ts';
import { hopTimings } from '../shared/tier/hop-report.ts';
import { resolveObject } from '../shared/tier/object-read.ts';
import type { Budget, ObjectRead } from '../shared/tier/ports.ts';
import {
  cancelPrefetched,
  isCurrent,
  type Resolved,
  type SlicedObject,
  type WholeObject,
} from '../shared/tier/resolved.ts';
import { readObjectSlices } from '../shared/tier/slice-reader/reader.ts';
import { spanBody, type WantedSlices, wantedSlices } from '../shared/tier/span-cut.ts';
import { slicedReport, tierAnswer } from '../shared/tier/tier-headers.ts';
import { warmSlices } from './slice-warm.ts';
import type { AnswerFacts } from './workers-cache-answer.ts';

export interface SliceAnswerContext {
  config: Config;
  read: ObjectRead;
  budget: Budget;
  started: number;
  /** The edge's If-None-Match / If-Modified-Since, when it revalidates its copy. */
  conditions: Headers;
  /**
   * Hears the bytes a warm stored here for the edge to copy: what its record counts as sent
   * (shared/observe/read-ahead-copy.ts).
   */
  warmStored?(bytes: number): void;
  /**
   * Hears each answer as it is delivered, its headers still to be changed: what it is, and the timing its object is
   * stored under (the slices entrypoint marks it for Workers Cache: workers-cache-layer.ts).
   */
  answered?: ((headers: Headers, facts: Omit<AnswerFacts, 'path'>) => void) | undefined;
  /** What the origin answered this request (read.upstream logs into it): the metrics of the slices it caused. */
  hops: HopLog;
}

/**
 * 412 when the version the edge pinned is gone, 416 (with the object's size) when the span starts past its end, the
 * whole object when it is not sliced.
 */
export async function answerSlices(request: SliceRequest, context: SliceAnswerContext): Promise<Response> {
  sameSlicing(request, context.config);
  for (let attempt = 0; ; attempt++) {
    const resolved = await discover(context.read, request.span.first, attempt);
    if (resolved === 'again') continue;
    if (isCurrent(resolved, context.conditions)) return notModified(context, resolved);
    if (resolved.kind === 'whole') return wholeAnswer(context, resolved);
    const refused = refusal(request, resolved);
    if (refused !== undefined) return refuse(context, resolved, refused);
    const wanted = wantedSlices(request.span, request.from, resolved.meta);
    if (request.warm === true) return warmAnswer(context, resolved, wanted);
    const answer = await spanAnswer(context, resolved, wanted);
    if (answer !== 'changed') return answer;
    // Not one byte has gone out yet: start over from what the origin holds now, unless the
    // edge pinned a version, which is now gone.
    if (request.etag !== undefined || attempt > 0)
      return new PreconditionFailed('the object changed while it was read').toResponse();
  }
}

function sameSlicing(request: SliceRequest, config: Config): void {
  if (request.sliceSize !== config.slicing.sliceSize) {
    throw new BadRequest(
      `the edge slices by ${request.sliceSize} bytes and the shield by ${config.slicing.sliceSize}: set the same SLICE_SIZE on both`,
    );
  }
}

/**
 * The edge's copy is current: tell it so, with every header that refreshes it (RFC 9111 §3.2: all of the shield's,
 * not only the few a 304 to a client carries, RFC 9110 §15.4.5).
 */
function notModified(context: SliceAnswerContext, resolved: Resolved): Response {
  if (resolved.kind === 'whole') void resolved.body?.cancel();
  else void cancelPrefetched(resolved);
  // With the origin's metric when it was asked (it revalidated the shield's own copy).
  const headers = representationHeaders(resolved.kind === 'whole' ? resolved.headers : resolved.meta.headers);
  const timing = hopTimings(context.hops.report().answers);
  if (timing !== '') headers.set('server-timing', timing);
  return deliver(context, 304, headers, null, resolved, resolved.report);
}

function wholeAnswer(context: SliceAnswerContext, resolved: WholeObject): Response {
  const headers = new Headers(resolved.headers);
  headers.set(OBJECT_HEADER, WHOLE);
  return deliver(context, resolved.status, headers, resolved.body, resolved, resolved.report);
}

/** 412 when the edge pinned another version than the one here; 416 when the span starts past the object's end. */
function refusal(request: SliceRequest, resolved: SlicedObject): 412 | 416 | undefined {
  const { meta } = resolved;
  if (request.etag !== undefined && request.etag !== meta.etag) return 412;
  if (!resolved.inRange || request.span.first >= sliceCount(meta.size, meta.sliceSize)) return 416;
  return undefined;
}

/** The edge reading ahead: the slices stored here, their bytes fetched when its reader gets there. */
async function warmAnswer(
  context: SliceAnswerContext,
  resolved: SlicedObject,
  wanted: WantedSlices,
): Promise<Response> {
  const { read, config } = context;
  const { span, indices } = wanted;
  const warming = await warmSlices(read, resolved, indices, context.budget, config.originIdleTimeoutMs);
  read.waitUntil(warming.stored.then((bytes) => bytes !== undefined && context.warmStored?.(bytes)));
  const headers = new Headers({
    'content-type': 'text/plain',
    'cache-control': 'no-store',
    [SPAN_HEADER]: `${span.first}-${span.last}`,
  });
  // The origin asked for the slices missing here, its time not known yet (they are fetched after these headers).
  const asking = warming.fetching > 0 ? [{ slices: warming.fetching, member: undefined, timing: 'origin' }] : [];
  const timing = hopTimings([...context.hops.report().answers, ...asking]);
  if (timing !== '') headers.set('server-timing', timing);
  const report = slicedReport(resolved.report, {
    hits: warming.hits,
    checked: warming.checked,
    total: indices.length,
    storing: resolved.entry !== undefined,
  });
  return deliver(context, 200, headers, warming.body, resolved, report);
}

/**
 * The span's bytes, marked with the version they are of, from the shield's slices or the origin's; 'changed' when the
 * origin turned out to hold another version before a byte went out.
 */
async function spanAnswer(
  context: SliceAnswerContext,
  resolved: SlicedObject,
  wanted: WantedSlices,
): Promise<Response | 'changed'> {
  const { read, config } = context;
  const { meta } = resolved;
  const { span, bytes, indices } = wanted;
  try {
    const sliceStarted = read.now();
    const sliceRead = await readObjectSlices(read, resolved, indices, {
      window: config.slicing.readahead,
      maxSpan: 1,
      budget: context.budget,
    });
    const headers = markObject(new Headers(meta.headers), meta);
    headers.set(SPAN_HEADER, `${span.first}-${span.last}`);
    headers.set('content-length', String(bytes.end - bytes.start + 1));
    const sliceTiming = serverTimingMetric('shield-slice', read.now() - sliceStarted);
    // The origin's metric for the slices this request fetched from it, as heard by now (shared/tier/hop-report.ts).
    headers.set('server-timing', appendServerTiming(hopTimings(context.hops.report().answers), sliceTiming));
    const report = slicedReport(resolved.report, {
      hits: sliceRead.hits,
      checked: sliceRead.checked,
      total: indices.length,
      storing: resolved.entry !== undefined,
    });
    const body = await spanBody(sliceRead.pieces, bytes, indices.length, read);
    return deliver(context, 200, headers, body, resolved, report);
  } catch (error) {
    if (!(error instanceof VersionChanged)) throw error;
    void cancelPrefetched(resolved);
    return 'changed';
  }
}

/**
 * What the shield holds or discovers for the span's first slice. Discovery that met an answer
 * not fitting what was asked (a Content-Range not the one asked for, an ETag that moved) is
 * asked once more from the origin ('again'), then a 502.
 */
async function discover(read: ObjectRead, first: number, attempt: number): Promise<Resolved | 'again'> {
  try {
    return await resolveObject(read, first);
  } catch (error) {
    if (!(error instanceof VersionChanged)) throw error;
    if (attempt > 0) throw new BadGateway('the origin kept answering with other bytes than those asked for');
    return 'again';
  }
}

function refuse(context: SliceAnswerContext, resolved: SlicedObject, status: 412 | 416): Response {
  void cancelPrefetched(resolved);
  const headers = new Headers(resolved.meta.headers);
  markObject(headers, resolved.meta);
  if (status === 416) headers.set('content-range', unsatisfiedRange(resolved.meta.size));
  return deliver(context, status, headers, null, resolved, resolved.report);
}

/**
 * The answer to the edge: this tier's report, the Age, and when the bytes came from the origin (for the edge's purge
 * checks).
 */
function deliver(
  context: SliceAnswerContext,
  status: number,
  headers: Headers,
  body: ReadableStream | null,
  source: { age: number; originAt: number; entry?: EntryMeta | undefined },
  report: CacheStatusParams,
): Response {
  headers.set(ORIGIN_AT_HEADER, String(Math.round(source.originAt)));
  const answer = tierAnswer('shield', status, headers, body, {
    age: source.age,
    report,
    durationMs: context.read.now() - context.started,
  });
  context.answered?.(answer.headers, { status, entry: source.entry, now: context.read.now() });
  return answer;
}
