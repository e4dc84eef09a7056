// An S3 origin (ORIGIN_KIND=s3): each object's GET or HEAD signed with SigV4 (sigv4.ts) in the bucket the client's host
// reads (HOST_BUCKETS), carrying nothing of the client's request but the tiers' Range and conditions (s3-request.ts),
// asked again while S3 says it is busy; its error documents never pass: they become errors of ours (origin-errors.ts).

import { type Config, type S3Config, s3Settings } from '../../shared/config/config.ts';
import { CACHED_METHODS, type OriginTraits, originTraits } from '../../shared/config/origin-traits.ts';
import { type HttpError, MethodNotAllowed } from '../../shared/http/errors.ts';
import { exposeS3CacheTag, originResponseHeaders, S3_RESPONSE_HEADERS } from '../../shared/http/headers.ts';
import type { OriginFinding } from '../../shared/http/health-report.ts';
import { bucketFor, misdirected } from '../../shared/request/host-buckets.ts';
import { encodeKeyForPath } from '../../shared/request/object-key.ts';
import type { RequestTarget } from '../../shared/request/request-target.ts';
import { responseAsIs } from '../../shared/streams/response-as-is.ts';
import { retryWhileBusy } from './busy-retry.ts';
import type { ObjectAsk, Origin, ProbeAsk } from './origin.ts';
import { busyFailure, readErrorBody, s3ErrorCode, s3Failure } from './origin-errors.ts';
import { needsErrorCode, s3Finding } from './origin-state.ts';
import { originBasePath } from './origin-url.ts';
import { type ForwardedHeaders, s3ObjectRequest } from './s3-request.ts';
import { signS3Request } from './sigv4.ts';
import { timedFetch } from './timed-fetch.ts';

/**
 * The key the health probe asks for when no HEALTH_KEY is set and nothing was served yet (a fresh deployment's first
 * check). It names no object in any bucket we know of; if it does name one, that object answers instead, which proves
 * the same.
 */
export const DEFAULT_PROBE_KEY = 'tiercache-health-probe';
/** One byte at most, should the probed key name an object after all: S3's error code is in a GET's body only. */
const ERROR_CODE_RANGE = 'bytes=0-0';
/** Answers to a bypassed GET or HEAD that are the object (or what the client's Range and conditions make of it). */
const BYPASS_ANSWERS: ReadonlySet<number> = new Set([200, 206, 304, 412]);
/** RFC 9110 §15.4.5, §15.5.13: S3 says these with an XML body (412) or none; the client gets none. */
const WITHOUT_CONTENT: ReadonlySet<number> = new Set([304, 412]);

/** What the origins of one configuration share, whichever bucket each reads. */
interface Family {
  traits: OriginTraits;
  /** The configuration's own S3 settings: S3_BUCKET is the bucket of hosts HOST_BUCKETS does not list. */
  s3: S3Config;
  /** The origin per bucket: HOST_BUCKETS names finitely many, so each is made once. */
  buckets: Map<string, S3Origin>;
  /** Told of each origin made (origin-of.ts), so that its configuration finds it again. */
  remember: (origin: Origin) => void;
}

/** The origin of an S3 configuration, reading S3_BUCKET; `remember` is told of each one made for another bucket. */
export function s3Origin(config: Config, remember: (origin: Origin) => void = () => undefined): Origin {
  const s3 = s3Settings(config);
  return new S3Origin(config, s3, { traits: originTraits(config), s3, buckets: new Map(), remember });
}

class S3Origin implements Origin {
  readonly traits: OriginTraits;
  readonly config: Config;
  readonly keyPrefix: string;
  readonly #s3: S3Config;
  readonly #family: Family;

  constructor(config: Config, s3: S3Config, family: Family) {
    this.config = config;
    this.#s3 = s3;
    this.#family = family;
    this.traits = family.traits;
    this.keyPrefix = `${config.originUrl.origin}${originBasePath(config.originUrl)}/${s3.bucket}`;
    family.buckets.set(s3.bucket, this);
    family.remember(this);
  }

  /** As the traits say of this kind of origin (shared/config/origin-traits.ts), which the edge reads too. */
  get passesAnswersOn(): boolean {
    return this.traits.passesItsAnswers;
  }

  forHost(host: string): Origin {
    const bucket = bucketFor(this.#family.s3, host);
    if (bucket === undefined) throw misdirected(host);
    return this.inBucket(bucket);
  }

  inBucket(bucket: string | undefined): Origin {
    if (bucket === undefined) return this;
    const known = this.#family.buckets.get(bucket);
    if (known !== undefined) return known;
    const s3 = { ...this.#s3, bucket };
    return new S3Origin({ ...this.config, s3 }, s3, this.#family);
  }

  /** S3 answering busy (503 SlowDown, 429) is always asked again: it says so of itself. `now` signs each try. */
  fetch(
    target: RequestTarget,
    method: 'GET' | 'HEAD',
    forwarded: ForwardedHeaders,
    ask: ObjectAsk = {},
  ): Promise<Response> {
    const { key } = target;
    if (key === undefined) return Promise.reject(new Error(`expected an object key for ${target.path}, got none`));
    const timeoutMs = ask.timeoutMs ?? this.config.originTimeoutMs;
    const now = ask.now ?? Date.now;
    const once = async (): Promise<Response> => {
      const unsigned = s3ObjectRequest(this.#s3, this.config.originUrl, key, method, forwarded);
      const headers = await signS3Request(unsigned, this.#s3, new Date(now()));
      // Host is derived by fetch from the URL (and equals the signed one); it cannot be set.
      delete headers.host;
      return timedFetch(unsigned.url, { method, headers }, timeoutMs, ask.signal);
    };
    return ask.busy === 'answer'
      ? once()
      : retryWhileBusy(once, Math.min(timeoutMs, this.config.originBudget.busyWaitMs), ask.onBusy);
  }

  /** S3's representation headers, its tags as Cache-Tag (shared/http/headers.ts). */
  keptHeaders(headers: Headers): Headers {
    return exposeS3CacheTag(originResponseHeaders(headers, S3_RESPONSE_HEADERS));
  }

  /** Its status and `<Code>` say what went wrong; its XML document never passes. */
  async failure(response: Response): Promise<HttpError> {
    return (await busyFailure(response)) ?? s3Failure(response.status, s3ErrorCode(await readErrorBody(response)));
  }

  async bypassAnswer(response: Response): Promise<Response> {
    if (!BYPASS_ANSWERS.has(response.status)) throw await this.failure(response);
    const headers = originResponseHeaders(response.headers, [...S3_RESPONSE_HEADERS, 'content-range']);
    const init = { status: response.status, statusText: response.statusText, headers };
    if (!WITHOUT_CONTENT.has(response.status)) return responseAsIs(response.body, init);
    await response.body?.cancel();
    for (const name of ['content-length', 'content-type', 'content-range']) headers.delete(name);
    return responseAsIs(null, init);
  }

  /** HEALTH_KEY or DEFAULT_PROBE_KEY, in S3_BUCKET, else in the first bucket HOST_BUCKETS names: never the bucket. */
  probeTarget(healthKey: string | undefined): { origin: Origin; target: RequestTarget } {
    const { bucket, hostBuckets } = this.#family.s3;
    const key = healthKey ?? DEFAULT_PROBE_KEY;
    return {
      origin: this.inBucket(bucket || hostBuckets.values().next().value),
      target: { path: `/${encodeKeyForPath(key)}`, query: '', key },
    };
  }

  /**
   * A HEAD, signed as every request is, so that the answer says whether the origin serves with the configured
   * credentials; then, where its status alone does not say why (a HEAD answer has no body, so no `<Code>`), a GET of
   * at most one byte: its error body names the cause (NoSuchKey or NoSuchBucket, which credential).
   */
  async probe(ask: ProbeAsk): Promise<OriginFinding> {
    const head = await ask('HEAD');
    await head.body?.cancel();
    if (!needsErrorCode(head.status)) return s3Finding(head.status, undefined);
    const get = await ask('GET', { range: ERROR_CODE_RANGE });
    if (get.status < 300) {
      await get.body?.cancel();
      return s3Finding(get.status, undefined);
    }
    return s3Finding(get.status, s3ErrorCode(await readErrorBody(get)));
  }

  /** RFC 9110 §15.5.6: nothing but reads is signed for S3. */
  passThrough(_target: RequestTarget, request: Request): Promise<Response> {
    return Promise.reject(new MethodNotAllowed(request.method, CACHED_METHODS));
  }
}
