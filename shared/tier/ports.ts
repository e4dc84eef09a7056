// What each tier hands the one read path both run (ObjectRead): its cache, its policy, and its next hop, which
// answers in the same terms whatever it is (UpstreamAnswer): the edge's is the shield, the shield's the origin. And
// what it hands the flows that forward a request as it came (bypass.ts, pass-through.ts): the same next hop's calls
// for them (HopCalls) and its meter.

import { type Clock, PLATFORM_CLOCK } from '../clock/clock.ts';
import type { Config } from '../config/config.ts';
import type { FreshnessOverride } from '../http/freshness.ts';
import type { StaleDefaults } from '../http/stale.ts';
import type { PurgeCandidate } from '../purge/purge-rules.ts';
import type { RequestTarget } from '../request/request-target.ts';
import { type AppliedRules, NOTHING_APPLIED } from '../rules/rules.ts';
import type { ObjectMeta } from '../slices/object-meta.ts';
import type { SliceSpan } from '../slices/slice-plan.ts';
import type { FillLimits } from '../store/fill-budget.ts';
import type { TierName } from '../tiers/tiers.ts';
import type { TierCache } from './tier-cache.ts';

export type UpstreamAnswer =
  /** The object is not sliced: here it is whole (or the upstream's error response). */
  | { kind: 'whole'; response: Response }
  /** Exactly the bytes of `span` of the object `meta` describes. */
  | { kind: 'span'; meta: ObjectMeta; span: SliceSpan; body: ReadableStream<Uint8Array>; response: Response }
  /** The span starts past the object's end; `meta` says how long the object is. */
  | { kind: 'beyond'; meta: ObjectMeta; response: Response }
  /** The validators sent still match (RFC 9110 §15.4.5): `response` carries the updated headers. */
  | { kind: 'not-modified'; response: Response };

/** What a tier holds, for a conditional request upstream (RFC 9111 §4.3.1). */
export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

/** How a span is asked for. */
export interface SliceAsk {
  /** Revalidate what this tier holds (RFC 9111 §4.3.1). */
  validators?: Validators | undefined;
  /**
   * Only the span's bytes from this offset on (the rest of a body that broke, or that a slow client let go of); needs
   * `pinned`.
   */
  from?: number | undefined;
  /** The client's request: once it aborts (the client went away), so does this fetch, body and all. */
  signal?: AbortSignal | undefined;
  /**
   * The copy of a slice a warm stored at the next hop (slice-reader/read-ahead.ts): the second half of one
   * request for it, counted with the warm at both tiers (shared/observe/read-ahead-copy.ts).
   */
  copy?: boolean | undefined;
}

export interface Upstream {
  /**
   * A span of slices: for discovery (`pinned` undefined: whatever version is current) or of the
   * pinned version, in which case a different version throws VersionChanged. Pinned, the request
   * selects that version's representation again (vary.ts `reselecting`: its coding, when it varies
   * on Accept-Encoding), whichever the client's own headers would.
   */
  slices(span: SliceSpan, pinned: ObjectMeta | undefined, ask?: SliceAsk): Promise<UpstreamAnswer>;
  /** HEAD of the object, for HEAD requests a tier cannot answer itself. */
  head(signal?: AbortSignal): Promise<Response>;
  /**
   * Has the next hop store a span of the pinned version, without sending it (the edge reading
   * ahead: SliceRequest.warm). Resolves with the bytes the next hop fetched from the origin for
   * it once stored there; undefined when it is not. Absent where the next hop cannot (the origin).
   */
  warm?(span: SliceSpan, pinned: ObjectMeta, signal?: AbortSignal): Promise<number | undefined>;
}

/** What a tier hands the read path for one request: its cache, its next hop, its policy. */
export interface ObjectRead {
  cache: TierCache;
  /** Longest a request waits for another one already fetching the same entry. */
  collapseWait: number;
  /**
   * The stored entry's key in this tier's cache: the object's own, until the object is found
   * (or answered) to vary (RFC 9111 §4.1): then its variant's for this request (vary.ts).
   */
  key: string;
  /** The object's own key, once `key` became a variant's. */
  objectKey?: string;
  /**
   * The request headers a Vary selects by: the client's end-to-end ones, as this tier forwards
   * them (http origins). Absent (S3): every client gets the same response, stored once.
   */
  selecting?: Headers | undefined;
  defaultTtl: number;
  /** Freshness for 404/410 answers without their own (negative caching). */
  negativeTtl: number;
  /**
   * What a fill from the next hop may pull once nobody waits for it, and the bounds of a body without a length
   * (shared/store/fill-budget.ts).
   */
  fills: FillLimits;
  /**
   * Who this read's fills are for: a client (absent), whose fill goes on once it has left only within `fills`; or the
   * cache itself (a background refresh, RFC 5861 §3, which nobody waits for by design): it is never abandoned.
   */
  fillsFor?: 'cache';
  /** Stale windows for responses that give none (RFC 5861). */
  staleDefaults: StaleDefaults;
  /** A rule's freshness over the answer's own (docs/rules.md, `override`); absent = the answer's word. */
  override?: FreshnessOverride | undefined;
  /** Never answer from a stale entry (the edge's revalidation of its own, at the shield). */
  noStale?: boolean;
  /** The client asked `only-if-cached` (RFC 9111 §5.2.1.7): a stored response, or 504; never upstream. */
  onlyIfCached?: boolean;
  now(): number;
  waitUntil(promise: Promise<unknown>): void;
  upstream: Upstream;
  /**
   * The next tier's Cache-Status member (RFC 9211 §2), whose detail says when that tier lost its own next hop (the
   * edge's: the shield's, NextHop.member); absent where the next hop is the origin, which reports nothing of ours.
   */
  nextMember?: string | undefined;
  /**
   * Whether a purge (shared/purge/purge-rules.ts) removed this stored entry, or the answer about to be stored; absent =
   * nothing is purged.
   */
  purged?(entry: PurgeCandidate): boolean;
  /**
   * When a soft purge (shared/purge/soft-purge.ts) made this stored entry, or the answer about to be stored, stale (ms
   * epoch); absent or undefined = not soft-purged. The read path then sees it as expired since then, nothing more.
   */
  softPurgedAt?(entry: PurgeCandidate): number | undefined;
  /**
   * The client's request signal: it aborts when the client goes away. It stops a read starting anything more; what
   * was started and will be stored is completed (the fill is the cache's), and only HEAD asks upstream on it.
   * Absent = never.
   */
  signal?: AbortSignal;
  /**
   * Hears how the answer's body will end, where that is heard at no cost per byte (a sliced answer's pump, a warm's
   * beats): `departed` when its reader went away first. The request's record waits for it (request-meter.ts).
   */
  bodyEnd?(ended: Promise<{ departed: boolean }>): void;
}

/** The parts of an ObjectRead that come from the configuration, the same at both tiers. */
export type ReadPolicy = Pick<
  ObjectRead,
  'defaultTtl' | 'negativeTtl' | 'staleDefaults' | 'override' | 'collapseWait' | 'now' | 'fills'
>;

/** What fills may pull for nobody and how long a body without a length may be, as the configuration says. */
export function fillLimits(config: Config): FillLimits {
  return { ...config.fills, idleMs: config.originIdleTimeoutMs };
}

/**
 * `clock`: the tier's, which freshness is judged by (shared/clock/clock.ts). `rules`: what the rules matching this
 * request say (shared/rules/): a rule's edgeTtl and stale windows in place of DEFAULT_TTL and the configured ones, and
 * with `override` over the answer's own. Both tiers read the same RULES, so they agree.
 */
export function readPolicy(
  config: Config,
  clock: Clock = PLATFORM_CLOCK,
  rules: AppliedRules = NOTHING_APPLIED,
): ReadPolicy {
  const ruled = rules.freshness;
  const policy: ReadPolicy = {
    defaultTtl: ruled?.ttl ?? config.defaultTtl,
    negativeTtl: config.negativeTtl,
    staleDefaults: {
      whileRevalidate: ruled?.staleWhileRevalidate ?? config.staleWhileRevalidate,
      ifError: ruled?.staleIfError ?? config.staleIfError,
    },
    collapseWait: config.originTimeoutMs,
    fills: fillLimits(config),
    now: () => clock.now(),
  };
  // rules-document.ts refuses an override without edgeTtl.
  if (ruled?.override === true && ruled.ttl !== undefined) {
    policy.override = {
      lifetime: ruled.ttl,
      staleWhileRevalidate: ruled.staleWhileRevalidate,
      staleIfError: ruled.staleIfError,
    };
  }
  return policy;
}

/** Subrequests this request may still make (Workers cap them per request). */
export interface Budget {
  remaining: number;
}

/** A request a tier forwards to its next hop as it came: never looked up, never stored (bypass.ts, pass-through.ts). */
export interface HopCall {
  /** The client's request, as this tier got it: its method, headers, body and signal. */
  request: Request;
  /** Its URL, as this tier parsed it (the edge forwards its host and scheme: X-Forwarded-Host, -Proto). */
  url: URL;
  /** What it names at the origin: the path and query it is sent on with. */
  target: RequestTarget;
}

/**
 * What a next hop does besides the read path's asks (Upstream): a request forwarded as it came. Kept apart from
 * Upstream, which is made for one read of one object (its target, the purges applied, the client's selecting headers,
 * the hop log) and faked by the read path's tests; these calls need none of that, are made once per tier and
 * request, and a request that is no read (another method) has no Upstream at all. The edge's are the shield's
 * (worker/shield-client.ts), the shield's the origin's (shield/origin/origin-hop.ts).
 */
export interface HopCalls {
  /**
   * A GET or HEAD a rule bypasses, asked as it came with what the next hop takes of it (a site: every end-to-end
   * header; S3: its Range and conditions); its answer as the origin's kind lets it pass (S3's error documents never do:
   * rejected with the HttpError of ours a client gets).
   */
  bypass(call: HopCall): Promise<Response>;
  /** A method other than GET, HEAD and OPTIONS, with its headers and body, answered as the origin answered. */
  passThrough(call: HopCall): Promise<Response>;
}

/** What a forwarded request is counted on (shared/observe/request-meter.ts RequestMeter is one). */
interface HopMeter {
  /** The next hop's answer, its body's bytes counted as declared or as they pass; `fromOrigin`: fetched there. */
  fetchedAnswer(method: string, response: Response, fromOrigin: boolean): Response;
  /** Work the request leaves running: kept alive, and waited for before its record is counted. */
  hold(promise: Promise<unknown>): void;
}

/** A tier as the flows that forward a request see it: its name (its Cache-Status member), its next hop, its meter. */
export interface ForwardingTier {
  name: TierName;
  hop: HopCalls;
  meter: HopMeter;
}
