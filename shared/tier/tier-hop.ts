// A tier behind another in the same isolate, as the NextHop of the tier in front (next-hop.ts): its asks answered
// from this tier's cache through the one read path (object-read.ts, slice-reader/), going on to this tier's own next
// hop for what it lacks, in the same UpstreamAnswer terms the shield's slice answers take (shield/slice-answer.ts),
// minus HTTP. Every answer carries this tier's Cache-Status member after those of the tiers behind (tier-headers.ts),
// so that the HopLog in front hears this tier's verdict.

import type { Clock } from '../clock/clock.ts';
import type { Config } from '../config/config.ts';
import { ORIGIN_AT_HEADER } from '../hop/hop-fields.ts';
import { wholeMeansAnotherVersion } from '../hop/slice-check.ts';
import { memberParams } from '../http/cache-status.ts';
import { ClientGone, NextHopFailed, VersionChanged } from '../http/errors.ts';
import { unsatisfiedRange } from '../http/range.ts';
import type { RequestMeter } from '../observe/request-meter.ts';
import type { PurgeKv } from '../purge/purge-kv.ts';
import { purgedBy } from '../purge/purge-rules.ts';
import { isolatePurges } from '../purge/purge-store.ts';
import { softPurgedAt } from '../purge/soft-purge.ts';
import { markObject, type ObjectMeta, representationHeaders } from '../slices/object-meta.ts';
import { type SliceSpan, sliceCount } from '../slices/slice-plan.ts';
import type { TierName } from '../tiers/tiers.ts';
import { healingBehind } from './healing-upstream.ts';
import { HopLog } from './hop-log.ts';
import { withHopReport, withUnasked } from './hop-report.ts';
import { hopTierKey } from './hop-tier-key.ts';
import { hopUpstream, type NextHop, type ReadAsk } from './next-hop.ts';
import { headObject } from './object-head.ts';
import { resolveObject } from './object-read.ts';
import {
  type ObjectRead,
  readPolicy,
  type SliceAsk,
  type Upstream,
  type UpstreamAnswer,
  type Validators,
} from './ports.ts';
import { cancelPrefetched, isCurrent, type SlicedObject } from './resolved.ts';
import { readObjectSlices } from './slice-reader/reader.ts';
import { exactly, spanBody, wantedSlices } from './span-cut.ts';
import type { TierCache } from './tier-cache.ts';
import { cacheName, slicedReport, tierAnswer } from './tier-headers.ts';

/** The tier behind: what its reads are made of. */
export interface HopTier {
  name: TierName;
  cache: TierCache;
  /** Its policy (DEFAULT_TTL, stale windows, slicing, budgets), judged on `clock`. */
  config: Config;
  clock: Clock;
  /** The global purge list, read as the shield reads it (a tag purge of what the tier in front lacks); absent: none. */
  purges?: PurgeKv | undefined;
  /** Where its asks of `next` are counted and its fills kept alive: its own record, not the front's. */
  meter: RequestMeter;
}

/**
 * `tier` as the next hop of the tier in front, over its own `next`. What is forwarded as it came, a purge and health
 * are `next`'s: a purge is applied here on every read instead (the tier in front tells its watermarks, the list is
 * read when due), as the shield applies the edge's, so nothing here can confirm one that `next` did not.
 */
export function tierHop<Health>(tier: HopTier, next: NextHop<Health>): NextHop<Health> {
  const member = cacheName(tier.name);
  return {
    bypass: (call) => next.bypass(call),
    passThrough: (call) => next.passThrough(call),
    member,
    object: (ask) => ({
      slices: (span, pinned, sliceAsk = {}) => answerSpan(tier, next, ask, span, pinned, sliceAsk),
      async head(signal) {
        const started = tier.clock.now();
        return headObject(await openRead(tier, next, ask, signal), tier.name, started);
      },
    }),
    healing: healingBehind(next.healing),
    // Bytes this tier did not have came from further back: counted as the origin's, as the edge counts the shield's.
    fromOrigin: (response) => memberParams(response.headers.get('cache-status'), member)?.hit !== true,
    purge: (records) => next.purge(records),
    health: () => next.health(),
  };
}

/** One read at this tier, for one ask of the tier in front: keyed by the client's host (its bucket) and the target. */
async function openRead(
  tier: HopTier,
  next: NextHop,
  ask: ReadAsk,
  signal: AbortSignal | undefined,
  front?: Validators,
): Promise<ObjectRead & { hops: HopLog }> {
  // The client in front has gone: nothing is looked up or asked for it, as a fetch on an aborted signal rejects.
  if (signal?.aborted === true) throw new ClientGone();
  const { target, host, watermarks } = ask;
  const path = `${target.path}${target.query}`;
  const list = await isolatePurges.purgeList(tier.purges, tier.clock.now());
  // What this tier's own next hop answers this read, folded into its span answers' report.
  const hops = new HopLog(next.member);
  return {
    hops,
    cache: tier.cache,
    key: hopTierKey(tier.name, host, target),
    selecting: ask.client,
    // The rules the tier in front matched (its freshness and stale windows), as every tier reads the same RULES.
    ...readPolicy(tier.config, tier.clock, ask.rules),
    waitUntil: (promise) => tier.meter.hold(promise),
    upstream: withFrontValidators(hopUpstream(next, { ...ask, hops }, tier.meter), front),
    nextMember: next.member,
    purged: purgedBy(list, path, watermarks.purgedAt?.()),
    softPurgedAt: softPurgedAt(list, path, watermarks.softPurgedAt?.()),
    ...(signal !== undefined ? { signal } : {}),
    // The tier in front revalidating its copy: never confirmed with a stale one of this tier's.
    noStale: front !== undefined,
  };
}

/** One ask of the front, answered as the shield answers a slice request (shield/slice-answer.ts answerSlices). */
async function answerSpan(
  tier: HopTier,
  next: NextHop,
  ask: ReadAsk,
  span: SliceSpan,
  pinned: ObjectMeta | undefined,
  { validators, from, signal }: SliceAsk,
): Promise<UpstreamAnswer> {
  const started = tier.clock.now();
  const read = await openRead(tier, next, ask, signal, validators);
  const resolved = await resolveObject(read, span.first).catch((error: unknown) => {
    if (!(error instanceof FrontCopyCurrent)) throw error;
    return error;
  });
  if (resolved instanceof FrontCopyCurrent) {
    const headers = representationHeaders(resolved.response.headers);
    const report = { fwd: 'uri-miss' as const, fwdStatus: 304 };
    const answer = tierAnswer(tier.name, 304, headers, null, {
      age: 0,
      report,
      durationMs: tier.clock.now() - started,
    });
    return { kind: 'not-modified', response: answer };
  }
  const report = { age: resolved.age, report: resolved.report, durationMs: tier.clock.now() - started };
  if (validators !== undefined && isCurrent(resolved, validatorConditions(validators))) {
    await (resolved.kind === 'whole' ? resolved.body?.cancel() : cancelPrefetched(resolved));
    const headers = fromOriginAt(
      representationHeaders(resolved.kind === 'whole' ? resolved.headers : resolved.meta.headers),
      resolved.originAt,
    );
    return { kind: 'not-modified', response: tierAnswer(tier.name, 304, headers, null, report) };
  }
  if (resolved.kind === 'whole') {
    if (pinned !== undefined) return notTheSlice(resolved.status, resolved.body, pinned);
    const headers = fromOriginAt(new Headers(resolved.headers), resolved.originAt);
    return { kind: 'whole', response: tierAnswer(tier.name, resolved.status, headers, resolved.body, report) };
  }
  const { meta } = resolved;
  if (pinned !== undefined && pinned.etag !== meta.etag) {
    void cancelPrefetched(resolved);
    throw new VersionChanged(`the ${tier.name} tier holds ${meta.etag}, not ${pinned.etag}`);
  }
  if (!resolved.inRange || span.first >= sliceCount(meta.size, meta.sliceSize)) {
    void cancelPrefetched(resolved);
    const headers = fromOriginAt(markObject(new Headers(meta.headers), meta), resolved.originAt);
    headers.set('content-range', unsatisfiedRange(meta.size));
    const response = tierAnswer(tier.name, 416, headers, null, report);
    return { kind: 'beyond', meta: described(meta, response), response };
  }
  return spanAnswer(tier, read, resolved, span, from, started);
}

/** The span's bytes of the version `resolved` names, from this tier's slices or its next hop's (pinned). */
async function spanAnswer(
  tier: HopTier,
  read: ObjectRead & { hops: HopLog },
  resolved: SlicedObject,
  span: SliceSpan,
  from: number | undefined,
  started: number,
): Promise<UpstreamAnswer> {
  const { meta } = resolved;
  const wanted = wantedSlices(span, from, meta);
  const { readahead: window, subrequests } = tier.config.slicing;
  // Another version met here (pinnedSpans forgot the manifest) is the front's to handle: rethrown, nothing sent.
  const settings = { window, maxSpan: 1, budget: { remaining: subrequests } };
  const sliceRead = await readObjectSlices(read, resolved, wanted.indices, settings).catch(async (error: unknown) => {
    await cancelPrefetched(resolved);
    throw error;
  });
  const { bytes } = wanted;
  const body = exactly(
    await spanBody(sliceRead.pieces, bytes, wanted.indices.length, read),
    bytes.end - bytes.start + 1,
  );
  // The next tier's member for this read's slices, folded as the edge folds the shield's (hop-report.ts).
  const missed = sliceRead.checked - sliceRead.hits;
  const headers = withHopReport(
    fromOriginAt(markObject(new Headers(meta.headers), meta), resolved.originAt),
    withUnasked(read.hops.report(), missed),
    read.hops.cache,
  );
  const report = slicedReport(resolved.report, {
    hits: sliceRead.hits,
    checked: sliceRead.checked,
    total: wanted.indices.length,
    storing: resolved.entry !== undefined,
  });
  const response = tierAnswer(tier.name, 200, headers, null, {
    age: resolved.age,
    report,
    durationMs: tier.clock.now() - started,
  });
  return { kind: 'span', meta: described(meta, response), span: wanted.span, body, response };
}

/**
 * The version as the answer describes it, as the edge reads the shield's (worker/shield-answer.ts): its
 * representation is the answer's, with the members of this tier and those behind, which the front stores with it.
 */
function described(meta: ObjectMeta, response: Response): ObjectMeta {
  return { ...meta, headers: representationHeaders(response.headers) };
}

/**
 * `headers` saying when the bytes answered came from the origin, as the shield tells the edge (shield/slice-answer.ts):
 * the tier in front stores them with that time, so a purge made since finds them there too, however long this tier
 * held them (shared/hop/hop-fields.ts ORIGIN_AT_HEADER).
 */
function fromOriginAt(headers: Headers, originAt: number): Headers {
  headers.set(ORIGIN_AT_HEADER, String(Math.round(originAt)));
  return headers;
}

/** This tier's next hop said the copy of the tier in front is current: its 304, out of this tier's read. */
class FrontCopyCurrent extends Error {
  readonly response: Response;

  constructor(response: Response) {
    super('the copy of the tier in front is current');
    this.response = response;
  }
}

/**
 * `upstream` for a read the tier in front makes to revalidate its copy (`front`, its validators): an ask this tier
 * makes without validators of its own (it holds nothing of the object to revalidate with) carries the front's instead,
 * as a cache forwards a conditional request it cannot answer itself (RFC 9111 §4.3.2), so that a current copy costs the
 * next hop a 304 rather than the whole body; that 304 ends this tier's read (FrontCopyCurrent), nothing stored.
 */
function withFrontValidators(upstream: Upstream, front: Validators | undefined): Upstream {
  if (front === undefined) return upstream;
  return {
    ...upstream,
    async slices(span, pinned, sliceAsk = {}) {
      if (sliceAsk.validators !== undefined || pinned !== undefined) return upstream.slices(span, pinned, sliceAsk);
      const answer = await upstream.slices(span, pinned, { ...sliceAsk, validators: front });
      if (answer.kind === 'not-modified') throw new FrontCopyCurrent(answer.response);
      return answer;
    },
  };
}

/** The tier in front's validators as the conditions of a revalidation (RFC 9111 §4.3.1). */
function validatorConditions({ etag, lastModified }: Validators): Headers {
  const conditions = new Headers();
  if (etag !== null) conditions.set('if-none-match', etag);
  if (lastModified !== null) conditions.set('if-modified-since', lastModified);
  return conditions;
}

/**
 * A slice of `pinned` asked, the object found whole: another version where that is evidence of one
 * (slice-check.ts wholeMeansAnotherVersion), else this read's failure alone, as the edge reads the shield's.
 */
async function notTheSlice(status: number, body: ReadableStream | null, pinned: ObjectMeta): Promise<never> {
  await body?.cancel();
  if (wholeMeansAnotherVersion(status))
    throw new VersionChanged(`answered ${status} whole for a slice of ${pinned.etag}`);
  throw new NextHopFailed(status, null);
}
