// The origin as the shield reaches it, whatever its kind: one interface the rest of the shield is written against, one
// implementation per kind (s3-origin.ts, site-origin.ts), chosen once (origin-of.ts). What every implementation keeps
// is test/shield/origin/origin-contract.ts, run against each of them over a real server.

import type { Config } from '../../shared/config/config.ts';
import type { OriginTraits } from '../../shared/config/origin-traits.ts';
import type { HttpError } from '../../shared/http/errors.ts';
import type { OriginFinding } from '../../shared/http/health-report.ts';
import type { RequestTarget } from '../../shared/request/request-target.ts';
import type { ForwardedHeaders } from './s3-request.ts';

/** How one GET or HEAD of an object is made. */
export interface ObjectAsk {
  /** The clock each try is signed by (S3's x-amz-date); Date.now when not given. */
  now?: () => number;
  /** The client's request: once it aborts (the client went away), the fetch and its body end too. */
  signal?: AbortSignal | undefined;
  /** The client's end-to-end headers (shared/http/headers.ts), for an origin that forwards them (a site's Vary). */
  client?: Headers | undefined;
  /** How long the origin has to answer, retries included; ORIGIN_TIMEOUT_MS when not given. */
  timeoutMs?: number;
  /**
   * `answer`: a busy answer (503, 429) is the answer at once, never waited out here, because another endpoint can be
   * asked instead (failover-origin.ts); absent: asked again as the kind allows (`fetch`).
   */
  busy?: 'answer' | undefined;
  /**
   * Told of each busy answer (503, 429) given to this request that is not the answer returned: waited out and asked
   * again, or failed over from. The transfer budget learns from it (transfer-budget.ts).
   */
  onBusy?: ((response: Response) => void) | undefined;
  /**
   * Room for one more transfer now, beside this request's own (a hedge: endpoint-race.ts), and how to give it back;
   * undefined when the transfer budget has none (transfer-budget.ts). Absent: no budget to ask.
   */
  spare?: (() => (() => void) | undefined) | undefined;
}

/** One request of the health probe for the probed object, within what is left of the probe's time. */
export type ProbeAsk = (method: 'GET' | 'HEAD', forwarded?: ForwardedHeaders) => Promise<Response>;

export interface Origin {
  /** What both tiers know of it without asking it (shared/config/origin-traits.ts). */
  readonly traits: OriginTraits;
  /** The configuration as it applies to this origin's requests (S3: with the bucket they read). */
  readonly config: Config;
  /**
   * What starts the shield's key of each of its objects: the origin, its base path and (S3) the bucket, so that a
   * change of bucket or origin never reuses an entry (shield-cache.ts).
   */
  readonly keyPrefix: string;
  /**
   * Whether its answers that are not the object (a site's 404 page, its redirect, its 503) reach the client as they
   * are, or become errors of ours (`failure`): S3's XML error documents name keys, buckets and request ids.
   */
  readonly passesAnswersOn: boolean;
  /** The origin a request for `host` reaches (S3: the bucket that host reads); throws the 421 for a host it has none for. */
  forHost(host: string): Origin;
  /** The origin reading `bucket` (one a host read, noted with what it served); undefined, or a site: this one. */
  inBucket(bucket: string | undefined): Origin;
  /**
   * The GET or HEAD of the object: `forwarded` (Range, If-Match …) is the tiers' own. A busy answer (503, 429) is
   * asked again as its Retry-After says while this kind allows it (always for S3; for a site only while slices of a
   * pinned version are read), within the timeout in all; answered raw: the callers decide what a 206, 412 or 416 means.
   */
  fetch(target: RequestTarget, method: 'GET' | 'HEAD', forwarded: ForwardedHeaders, ask?: ObjectAsk): Promise<Response>;
  /** The response headers both tiers keep of its answer: the representation's, never per-hop ones. */
  keptHeaders(headers: Headers): Headers;
  /** The error a client sees for an answer of its we cannot use (not the object, or still busy); consumes the body. */
  failure(response: Response): Promise<HttpError>;
  /** Its answer to a GET or HEAD a rule bypasses, as the client gets it; throws the error for one that may not pass. */
  bypassAnswer(response: Response): Promise<Response>;
  /**
   * The health probe's object when nothing was served yet: HEALTH_KEY (`healthKey`), else a key that names no object
   * (S3, whose NoSuchKey proves the bucket and the signature) or the site's root; with the origin that holds it.
   */
  probeTarget(healthKey: string | undefined): { origin: Origin; target: RequestTarget };
  /** What its answers to the health probe mean (docs/operating.md); `ask` asks for the probed object. */
  probe(ask: ProbeAsk): Promise<OriginFinding>;
  /** A method other than GET and HEAD, forwarded as it came and answered as the origin answered; or the 405. */
  passThrough(target: RequestTarget, request: Request): Promise<Response>;
}
