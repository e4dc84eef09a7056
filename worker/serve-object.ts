// GET at the edge: the object from this tier (whole, or its manifest and slices) or from the shield, cut to the
// client's ranges.

import type { Config } from '../shared/config/config.ts';
import type { CacheStatusParams } from '../shared/http/cache-status.ts';
import { evaluatePreconditions, notModifiedHeaders } from '../shared/http/conditional.ts';
import { BadGateway, PreconditionFailed, VersionChanged } from '../shared/http/errors.ts';
import { appendServerTiming, serverTimingMetric } from '../shared/http/server-timing.ts';
import { slicesFor } from '../shared/slices/slice-plan.ts';
import { LOOKUP, SLICE_READ } from '../shared/slices/subrequest-costs.ts';
import type { Piece } from '../shared/streams/byte-stream.ts';
import { piecesEnd } from '../shared/streams/pieces-end.ts';
import type { HopLog } from '../shared/tier/hop-log.ts';
import { withHopReport, withUnasked } from '../shared/tier/hop-report.ts';
import { resolveObject } from '../shared/tier/object-read.ts';
import type { Budget, ObjectRead } from '../shared/tier/ports.ts';
import { cancelPrefetched, type Resolved, type WholeObject } from '../shared/tier/resolved.ts';
import { isolateUrgency } from '../shared/tier/slice-reader/isolate-pool.ts';
import { readObjectSlices } from '../shared/tier/slice-reader/reader.ts';
import { forgetObject } from '../shared/tier/tier-cache.ts';
import { slicedReport, tierAnswer } from '../shared/tier/tier-headers.ts';

import { firstSliceHint, framedBody, planRanges, unsatisfiable, wholeInOnePiece, wholePieces } from './client-range.ts';
import { copyWhole, storedWholeCopy } from './whole-copy.ts';

/** Most slices per request to the shield, however short the budget (spanLimit). */
const MAX_SPAN = 16;

/**
 * A version change seen before the first byte restarts the request from fresh metadata (once); after it, the stream
 * is aborted: a client may see a broken transfer, never a body mixed from two versions. `hops` has heard what the
 * shield answered this request (read.upstream logs into it): a sliced object's answer reports that.
 */
export async function serveObject(
  request: Request,
  read: ObjectRead,
  config: Config,
  started: number,
  hops: HopLog,
): Promise<Response> {
  const budget: Budget = { remaining: config.slicing.subrequests };
  const hint = firstSliceHint(request.headers, config.slicing.sliceSize);
  // Until its answer is ready, this request waits for bytes it needs now: the isolate's read-ahead waits for it.
  const answered = isolateUrgency.begin();
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        // Discovery itself may meet a changed object (or an answer that does not fit what was asked).
        const resolved = await resolveObject(read, hint);
        if (resolved.kind === 'whole') return serveWhole(request, resolved, read, started);
        return await serveSliced(request, resolved, read, { config, budget, started, hops });
      } catch (error) {
        if (!(error instanceof VersionChanged)) throw error;
        await forgetObject(read);
        if (attempt > 0) throw new BadGateway('the object kept changing while it was read');
      }
    }
  } finally {
    answered();
  }
}

/** What a sliced answer is made with besides the request and the manifest. */
interface SlicedServing {
  config: Config;
  budget: Budget;
  started: number;
  hops: HopLog;
}

async function serveSliced(
  request: Request,
  resolved: Extract<Resolved, { kind: 'sliced' }>,
  read: ObjectRead,
  { config, budget, started, hops }: SlicedServing,
): Promise<Response> {
  const { meta } = resolved;
  // The next tier's member and metrics are this request's, as heard when the head goes out (shared/tier/hop-report.ts):
  // the manifest's own member stands only when nothing was asked of it. Named as the hop log names it: the shield's,
  // or that of whichever tier the edge's next hop is.
  const reported = (headers: Headers, missed = 0): Headers =>
    withHopReport(headers, withUnasked(hops.report(), missed), hops.cache);
  const precondition = evaluatePreconditions(request.headers, meta.headers);
  if (precondition !== 'proceed') {
    void cancelPrefetched(resolved);
    return deliverCondition(read, precondition, reported(new Headers(meta.headers)), resolved, started);
  }
  const plan = planRanges(request.headers, meta.size, meta.headers);
  const indices = plan.kind === 'unsatisfiable' ? [] : neededSlices(plan.ranges, meta.sliceSize);
  void cancelPrefetched(resolved, indices);
  if (plan.kind === 'unsatisfiable')
    return deliver(
      read,
      416,
      reported(withHeaders(meta.headers, unsatisfiable(meta.size))),
      null,
      resolved,
      resolved.report,
      started,
    );

  // Every byte in one piece (a plain GET, or `bytes=0-`) of a version this tier already had (a
  // copy can exist only then): from the whole copy, if one is kept.
  const onePiece = wholeInOnePiece(plan, meta.size);
  const wholeCopies =
    onePiece !== undefined && meta.size <= config.slicing.wholeCopyMax && resolved.report.hit === true;
  if (wholeCopies && resolved.prefetched.size === 0) {
    const copy = await storedWholeCopy(read, resolved, budget);
    if (copy !== undefined) {
      const detail = resolved.report.detail === undefined ? 'whole copy' : `${resolved.report.detail} whole copy`;
      return deliver(
        read,
        onePiece.status,
        reported(withHeaders(meta.headers, onePiece.headers)),
        copy,
        resolved,
        { ...resolved.report, detail },
        started,
      );
    }
  }

  const sliceStarted = read.now();
  // Served in full from slices every one of which was stored here: keep it whole for the next full read.
  const onEnd = wholeCopies
    ? ({ allStored }: { allStored: boolean }) => allStored && copyWhole(read, resolved, budget)
    : undefined;
  const sliceRead = await readObjectSlices(read, resolved, indices, {
    window: config.slicing.parallel,
    maxSpan: spanLimit(indices.length, budget.remaining),
    budget,
    onEnd,
    aheadIdleMs: config.originIdleTimeoutMs,
  });
  const framed = framedBody(plan, meta.size, meta.headers.get('content-type'), heardEnd(read, sliceRead.pieces));
  // Slices looked up here and missed go to the shield, whether or not they were asked by now (read-ahead waits).
  const headers = reported(withHeaders(meta.headers, framed.headers), sliceRead.checked - sliceRead.hits);
  const sliceTiming = serverTimingMetric('edge-slice', read.now() - sliceStarted);
  headers.set('server-timing', appendServerTiming(headers.get('server-timing'), sliceTiming));
  const report = slicedReport(resolved.report, {
    hits: sliceRead.hits,
    checked: sliceRead.checked,
    total: indices.length,
    storing: resolved.entry !== undefined,
  });
  return deliver(read, framed.status, headers, framed.body, resolved, report, started);
}

function serveWhole(request: Request, whole: WholeObject, read: ObjectRead, started: number): Response {
  // RFC 9110 §13.2.1: conditions are evaluated only for what would otherwise be a 2xx (here: the 200).
  if (whole.status !== 200 || whole.body === null) {
    return deliver(read, whole.status, whole.headers, whole.body, whole, whole.report, started);
  }
  const precondition = evaluatePreconditions(request.headers, whole.headers);
  if (precondition !== 'proceed') {
    // A miss still finishes storing: only the client's branch of the body is dropped.
    void whole.body.cancel();
    return deliverCondition(read, precondition, whole.headers, whole, started);
  }
  // Ranges need the length: a response the origin sent without one is sent whole (RFC 9110
  // §14.2: a server MAY ignore Range) until it is stored, counted, and read back with its length.
  const size = Number(whole.headers.get('content-length') ?? Number.NaN);
  if (!Number.isSafeInteger(size)) return deliver(read, 200, whole.headers, whole.body, whole, whole.report, started);
  const plan = planRanges(request.headers, size, whole.headers);
  if (plan.kind === 'unsatisfiable') {
    void whole.body.cancel();
    return deliver(read, 416, withHeaders(whole.headers, unsatisfiable(size)), null, whole, whole.report, started);
  }
  if (plan.kind === 'full') {
    // The common case: the stored (or upstream) body passes through untouched.
    return deliver(
      read,
      200,
      withHeaders(whole.headers, new Headers({ 'accept-ranges': 'bytes' })),
      whole.body,
      whole,
      whole.report,
      started,
    );
  }
  const pieces = heardEnd(read, wholePieces(whole.body, size));
  const framed = framedBody(plan, size, whole.headers.get('content-type'), pieces);
  return deliver(
    read,
    framed.status,
    withHeaders(whole.headers, framed.headers),
    framed.body,
    whole,
    whole.report,
    started,
  );
}

/** `pieces`, how their read ends told to the request's record: whether the client left before the body ended. */
function heardEnd(read: ObjectRead, pieces: AsyncIterator<Piece>): AsyncIterator<Piece> {
  const watched = piecesEnd(pieces);
  read.bodyEnd?.(watched.ended);
  return watched.pieces;
}

/**
 * 304 (RFC 9110 §15.4.5: only the validator and caching headers) or 412. A 304 keeps what the tiers behind said of
 * this answer (their Cache-Status members and Server-Timing), as a 200 would.
 */
function deliverCondition(
  read: ObjectRead,
  precondition: 'not-modified' | 'failed',
  representation: Headers,
  source: { age: number; report: CacheStatusParams },
  started: number,
): Response {
  if (precondition === 'failed') {
    const failed = new PreconditionFailed(
      'a precondition of the request failed (If-Match or If-Unmodified-Since)',
    ).toResponse();
    return deliver(read, 412, new Headers(failed.headers), failed.body, source, source.report, started);
  }
  const headers = notModifiedHeaders(representation);
  for (const name of ['cache-status', 'server-timing']) {
    const value = representation.get(name);
    if (value !== null) headers.set(name, value);
  }
  return deliver(read, 304, headers, null, source, source.report, started);
}

function deliver(
  read: ObjectRead,
  status: number,
  headers: Headers,
  body: ReadableStream | null,
  source: { age: number },
  report: CacheStatusParams,
  started: number,
): Response {
  // RFC 9110 §15.3.7.2: a multipart 206 carries Content-Range in each part only, whatever the
  // stored headers say (a 200 keeps the origin's own fields as it sent them, RFC 9111 §3.1).
  if (status === 206 && /^multipart\/byteranges/i.test(headers.get('content-type') ?? ''))
    headers.delete('content-range');
  // Content-Range counts bytes of the identity representation: a 206 must not be compressed on
  // the way (RFC 9111 §5.2.2.6 no-transform; Cloudflare does not compress no-transform answers).
  if (status === 206) headers.set('cache-control', withNoTransform(headers.get('cache-control')));
  return tierAnswer('edge', status, headers, body, { age: source.age, report, durationMs: read.now() - started });
}

function withNoTransform(cacheControl: string | null): string {
  if (cacheControl === null || cacheControl.trim() === '') return 'no-transform';
  return /(^|,)\s*no-transform\s*(,|$)/i.test(cacheControl) ? cacheControl : `${cacheControl}, no-transform`;
}

/**
 * Slices per request to the shield. One, whenever the budget allows a request per slice: each
 * answer is then one slice's bytes, piped and stored as they come, never cut up in JavaScript,
 * and the edge's read-ahead window runs that many shield requests (and origin reads) at once.
 * Longer spans only when `slices` would not fit the budget otherwise (each reckoned at SLICE_READ),
 * and never more than the shield can serve within a budget of the same size (a manifest LOOKUP,
 * then SLICE_READ per slice).
 */
function spanLimit(slices: number, subrequests: number): number {
  const needed = Math.ceil((slices * SLICE_READ) / subrequests);
  const shieldCap = Math.floor((subrequests - LOOKUP) / SLICE_READ);
  return Math.max(1, Math.min(MAX_SPAN, shieldCap, needed));
}

function withHeaders(base: Headers, extra: Headers): Headers {
  const headers = new Headers(base);
  for (const [name, value] of extra) headers.set(name, value);
  return headers;
}

function neededSlices(ranges: readonly { start: number; end: number }[], sliceSize: number): number[] {
  const indices = new Set<number>();
  for (const range of ranges) {
    const span = slicesFor(range, sliceSize);
    for (let index = span.first; index <= span.last; index++) indices.add(index);
  }
  return [...indices].sort((a, b) => a - b);
}
