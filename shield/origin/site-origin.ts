// A site (ORIGIN_KIND=http): each object's GET or HEAD asked below ORIGIN_URL (origin-url.ts) with the client's
// end-to-end headers under the tiers' own Range and conditions; its answers that are not the object (its 404 page, its
// redirect, its 503) passed on unchanged; other methods forwarded as they came, never cached.

import type { Config } from '../../shared/config/config.ts';
import { type OriginTraits, originTraits } from '../../shared/config/origin-traits.ts';
import type { HttpError } from '../../shared/http/errors.ts';
import { forwardedRequestHeaders, originResponseHeaders } from '../../shared/http/headers.ts';
import type { OriginFinding } from '../../shared/http/health-report.ts';
import { encodeKeyForPath } from '../../shared/request/object-key.ts';
import type { RequestTarget } from '../../shared/request/request-target.ts';
import { responseAsIs } from '../../shared/streams/response-as-is.ts';
import { retryWhileBusy } from './busy-retry.ts';
import type { ObjectAsk, Origin, ProbeAsk } from './origin.ts';
import { busyFailure, httpFailure } from './origin-errors.ts';
import { siteFinding } from './origin-state.ts';
import { originBasePath, originUrlFor } from './origin-url.ts';
import type { ForwardedHeaders } from './s3-request.ts';
import { timedFetch } from './timed-fetch.ts';

/** The origin of a site's configuration. */
export function siteOrigin(config: Config): Origin {
  return new SiteOrigin(config);
}

class SiteOrigin implements Origin {
  readonly traits: OriginTraits;
  readonly config: Config;
  readonly keyPrefix: string;

  constructor(config: Config) {
    this.config = config;
    this.traits = originTraits(config);
    this.keyPrefix = `${config.originUrl.origin}${originBasePath(config.originUrl)}`;
  }

  /** As the traits say of this kind of origin (shared/config/origin-traits.ts), which the edge reads too. */
  get passesAnswersOn(): boolean {
    return this.traits.passesItsAnswers;
  }

  /** One site, whatever host its clients name. */
  forHost(): Origin {
    return this;
  }

  /** A site reads no bucket. */
  inBucket(): Origin {
    return this;
  }

  /**
   * A site's busy answer to a first request is its answer, passed on at once; busy while slices of a version we pinned
   * are read (If-Match), it is asked again, since a body cannot be left part-way.
   */
  fetch(
    target: RequestTarget,
    method: 'GET' | 'HEAD',
    forwarded: ForwardedHeaders,
    ask: ObjectAsk = {},
  ): Promise<Response> {
    const timeoutMs = ask.timeoutMs ?? this.config.originTimeoutMs;
    const once = (): Promise<Response> => {
      // The client's headers, then ours on top (the tiers' own Range and conditions, never the client's).
      const headers = new Headers(ask.client);
      for (const [name, value] of Object.entries(forwarded)) if (typeof value === 'string') headers.set(name, value);
      return timedFetch(originUrlFor(this.config, target), { method, headers }, timeoutMs, ask.signal);
    };
    return forwarded['if-match'] === undefined || ask.busy === 'answer'
      ? once()
      : retryWhileBusy(once, Math.min(timeoutMs, this.config.originBudget.busyWaitMs), ask.onBusy);
  }

  /** Everything but the per-hop fields (RFC 9110 §7.6.1). */
  keptHeaders(headers: Headers): Headers {
    return originResponseHeaders(headers);
  }

  async failure(response: Response): Promise<HttpError> {
    const busy = await busyFailure(response);
    if (busy !== undefined) return busy;
    await response.body?.cancel();
    return httpFailure(response.status);
  }

  /** The site's answer, whatever it is, minus the per-hop fields. */
  async bypassAnswer(response: Response): Promise<Response> {
    const headers = originResponseHeaders(response.headers);
    return responseAsIs(response.body, { status: response.status, statusText: response.statusText, headers });
  }

  /** HEALTH_KEY as a path under ORIGIN_URL, else the site's root. */
  probeTarget(healthKey: string | undefined): { origin: Origin; target: RequestTarget } {
    const path = healthKey === undefined ? '/' : `/${encodeKeyForPath(healthKey)}`;
    return { origin: this, target: { path, query: '', key: undefined } };
  }

  /** A HEAD: any answer but a 5xx means it serves (its 404 page is an answer too). */
  async probe(ask: ProbeAsk): Promise<OriginFinding> {
    const head = await ask('HEAD');
    await head.body?.cancel();
    return siteFinding(head.status);
  }

  /** Forwarded as it came (minus per-hop headers and the tiers' own), answered as the site answered. */
  async passThrough(target: RequestTarget, request: Request): Promise<Response> {
    const init: RequestInit = { method: request.method, headers: forwardedRequestHeaders(request.headers) };
    if (request.body !== null) init.body = request.body;
    const response = await timedFetch(originUrlFor(this.config, target), init, this.config.originTimeoutMs);
    return responseAsIs(response.body, {
      status: response.status,
      statusText: response.statusText,
      headers: originResponseHeaders(response.headers),
    });
  }
}
