// The origin as the shield's next hop: ranged GETs (signed for S3) pinned with If-Match (If-Unmodified-Since for an
// object without an ETag: shared/slices/version-pin.ts), each 206 read (its Content-Range, the version it names,
// Content-Length) and checked as every hop checks a slice (shared/hop/slice-check.ts); an origin
// ignoring Range serves the object whole.

import type { Config } from '../../shared/config/config.ts';
import { checkSlice } from '../../shared/hop/slice-check.ts';
import { statedLength } from '../../shared/http/body-length.ts';
import { withTypeFromExtension } from '../../shared/http/content-type.ts';
import { BadGateway, VersionChanged } from '../../shared/http/errors.ts';
import { parseContentRange } from '../../shared/http/range.ts';
import { serverTimingMetric } from '../../shared/http/server-timing.ts';
import { reselecting } from '../../shared/http/vary.ts';
import type { RequestTarget } from '../../shared/request/request-target.ts';
import { type ObjectMeta, slicedMeta } from '../../shared/slices/object-meta.ts';
import { isSliced, type ObjectVersion, type SliceSpan, spanBytes } from '../../shared/slices/slice-plan.ts';
import { pinCondition, versionPin } from '../../shared/slices/version-pin.ts';
import { nativeBody } from '../../shared/streams/native-body.ts';
import { responseAsIs } from '../../shared/streams/response-as-is.ts';
import type { SliceAsk, Upstream, UpstreamAnswer } from '../../shared/tier/ports.ts';
import type { Origin } from './origin.ts';
import { originOf } from './origin-of.ts';
import { noteServed } from './served-key.ts';

/** RFC 9110 §15.3.5, §15.4.5: statuses whose answers have no content. */
const NULL_BODY = new Set([204, 205, 304]);

/**
 * The origin `config` names (origin-of.ts; S3: in the bucket it reads) as this request's upstream. `client`: the
 * client's end-to-end request headers (shared/http/headers.ts), for an origin that forwards them. An origin's answer
 * that is not the object (a redirect, the site's own 404 page, a 500, a 204) is the answer where it passes its answers
 * on (origin.ts): passed on whole, with its status, headers and body (`answered`).
 */
export function originUpstream(config: Config, target: RequestTarget, now: () => number, client?: Headers): Upstream {
  return new OriginUpstream(config, target, now, client);
}

class OriginUpstream implements Upstream {
  /** Time until the origin's last response headers arrived, for Server-Timing. */
  private lastDuration = 0;
  private readonly origin: Origin;
  private readonly config: Config;
  private readonly target: RequestTarget;
  private readonly now: () => number;
  private readonly client: Headers | undefined;

  constructor(config: Config, target: RequestTarget, now: () => number, client: Headers | undefined) {
    this.origin = originOf(config);
    this.config = config;
    this.target = target;
    this.now = now;
    this.client = client;
  }

  /**
   * `from`: the span from that offset on, the same request with the range starting there: how a
   * body cut part-way is healed (shared/tier/healing-upstream.ts).
   */
  async slices(
    span: SliceSpan,
    pinned: ObjectMeta | undefined,
    { validators, from = 0, signal }: SliceAsk = {},
  ): Promise<UpstreamAnswer> {
    if (from > 0 && pinned === undefined) throw new Error('the rest of a span needs the version it belongs to');
    const wanted = spanBytes(span, this.config.slicing.sliceSize, pinned?.size ?? Number.MAX_SAFE_INTEGER);
    const conditions: Record<string, string> = { range: `bytes=${wanted.start + from}-${wanted.end}` };
    if (pinned !== undefined) {
      const [name, value] = pinCondition(pinned.etag);
      conditions[name] = value;
    }
    // RFC 9111 §4.3.1: revalidate what the shield holds; the signature covers these headers too.
    if (validators?.etag) conditions['if-none-match'] = validators.etag;
    else if (validators?.lastModified) conditions['if-modified-since'] = validators.lastModified;
    const response = await this.get(conditions, signal, pinned);
    if (response.status === 304 && validators !== undefined) {
      return {
        kind: 'not-modified',
        response: new Response(null, { headers: this.timing(this.origin.keptHeaders(response.headers)) }),
      };
    }
    if (pinned !== undefined && response.status !== 206) {
      await response.body?.cancel();
      // 412: If-Match (or If-Unmodified-Since) failed; 200/416: the object is no longer what we sliced.
      if (response.status === 412 || response.status === 200 || response.status === 416)
        throw new VersionChanged(`origin answered ${response.status} for a slice of ${pinned.etag}`);
      throw await this.origin.failure(response);
    }
    if (response.status === 200)
      return {
        kind: 'whole',
        response: responseAsIs(response.body, { status: 200, headers: this.timing(this.kept(response.headers)) }),
      };
    // A range of an empty object, or one past the end: the size is in the 416's Content-Range (Storj's gateway, S3
    // for an empty object: `bytes */0`, RFC 9110 §15.5.17), or only in S3's XML; its other headers may be missing.
    if (response.status === 416) {
      const stated = parseContentRange(response.headers.get('content-range'));
      await response.body?.cancel();
      return this.discoverSize(signal, stated?.size);
    }
    if (response.status !== 206) return this.answered(response);
    return this.checkedSlice(response, span, pinned, from, signal);
  }

  async head(signal?: AbortSignal): Promise<Response> {
    const response = await this.headOf(signal);
    await response.body?.cancel();
    if (response.status < 200 || response.status > 599) throw notAStatus(response.status);
    if (response.status !== 200 && !this.origin.passesAnswersOn) throw await this.origin.failure(response);
    return new Response(null, {
      status: response.status,
      statusText: response.statusText,
      headers: this.kept(response.headers),
    });
  }

  /** The origin's headers as both tiers keep them; a missing or S3-default type from the key's extension. */
  private kept(headers: Headers): Headers {
    const headersKept = this.origin.keptHeaders(headers);
    return this.config.site.contentTypeFromExtension
      ? withTypeFromExtension(headersKept, this.target.key ?? this.target.path)
      : headersKept;
  }

  private timing(headers: Headers): Headers {
    headers.set('server-timing', serverTimingMetric('origin', this.lastDuration));
    return headers;
  }

  /** Pinned to a version, the client's headers select its representation again (vary.ts). */
  private async get(
    headers: Record<string, string>,
    signal: AbortSignal | undefined,
    pinned?: ObjectMeta,
  ): Promise<Response> {
    const started = this.now();
    const client = pinned === undefined ? this.client : reselecting(this.client, pinned.headers);
    const response = await this.origin.fetch(this.target, 'GET', headers, { now: this.now, signal, client });
    this.lastDuration = this.now() - started;
    noteServed(this.config, this.target, response.status);
    return response;
  }

  private async headOf(signal: AbortSignal | undefined): Promise<Response> {
    const response = await this.origin.fetch(this.target, 'HEAD', {}, { now: this.now, signal, client: this.client });
    noteServed(this.config, this.target, response.status);
    return response;
  }

  /** The origin's own answer, whatever its status, where it passes its answers on; S3's error documents never pass. */
  private async answered(response: Response): Promise<UpstreamAnswer> {
    if (!this.origin.passesAnswersOn) throw await this.origin.failure(response);
    const status = response.status;
    if (status < 200 || status > 599) {
      await response.body?.cancel();
      throw notAStatus(status);
    }
    // RFC 9110 §6.4.1: 204 and 304 carry no content (nor does a HEAD answer).
    const body = NULL_BODY.has(status) ? null : response.body;
    if (body === null) await response.body?.cancel();
    return {
      kind: 'whole',
      response: responseAsIs(body, {
        status,
        statusText: response.statusText,
        headers: this.timing(this.kept(response.headers)),
      }),
    };
  }

  private async whole(signal: AbortSignal | undefined): Promise<UpstreamAnswer> {
    const response = await this.get({}, signal);
    if (response.status !== 200) return this.answered(response);
    return {
      kind: 'whole',
      response: responseAsIs(response.body, { status: 200, headers: this.timing(this.kept(response.headers)) }),
    };
  }

  /**
   * The object's size and headers, by HEAD, after a 416; a version we may not pin (size, ETag) or not slice is served
   * whole. `stated`: the size the 416 gave; one too small to slice is asked for whole at once (what the HEAD would
   * lead to), which also brings the object's own headers a 416 may lack (an empty body costs nothing).
   */
  private async discoverSize(signal: AbortSignal | undefined, stated?: number): Promise<UpstreamAnswer> {
    if (stated !== undefined && !isSliced(stated, this.config.slicing.threshold)) return this.whole(signal);
    const head = await this.headOf(signal);
    // Not the object's size after all: its GET answer is the answer.
    if (head.status !== 200) {
      await head.body?.cancel();
      return this.whole(signal);
    }
    const headers = this.kept(head.headers);
    const { sliceSize, threshold } = this.config.slicing;
    const meta = slicedMeta(Number(head.headers.get('content-length')), headers, sliceSize, threshold);
    return meta === undefined
      ? this.whole(signal)
      : { kind: 'beyond', meta, response: new Response(null, { headers }) };
  }

  private async checkedSlice(
    response: Response,
    span: SliceSpan,
    pinned: ObjectVersion | undefined,
    from: number,
    signal: AbortSignal | undefined,
  ): Promise<UpstreamAnswer> {
    const { sliceSize, threshold } = this.config.slicing;
    const contentRange = parseContentRange(response.headers.get('content-range'));
    const range = contentRange === undefined || 'unsatisfied' in contentRange ? undefined : contentRange;
    const headers = this.timing(this.kept(response.headers));
    const meta =
      pinned === undefined
        ? range && slicedMeta(range.size, headers, sliceSize, threshold)
        : { ...pinned, sliceSize, headers };
    if (meta === undefined) {
      // Discovery, of an object not to slice: too small, or with no version to pin slices to (a weak ETag; neither an
      // ETag nor a Last-Modified a second before its Date). The first slice may
      // already be all of it.
      if (range !== undefined && range.start === 0 && range.end === range.size - 1) {
        headers.set('content-length', String(range.size));
        // A 200 of the whole representation made from our ranged answer: its Content-Range was
        // the answer's, not the representation's (RFC 9110 §14.4).
        headers.delete('content-range');
        return { kind: 'whole', response: responseAsIs(response.body, { status: 200, headers }) };
      }
      // Or a range answer discovery cannot read: no slice to pin, so the object is read whole, as from an origin that
      // ignores Range. s3rver answers a range of an empty object so: 206 `bytes 0-0/0`, Content-Length 1, no body
      // (RFC 9110 §14.4: invalid, its complete length not above its last byte).
      await response.body?.cancel();
      return this.whole(signal);
    }
    const expected = spanBytes(span, sliceSize, meta.size);
    const check = checkSlice(
      { bytes: { start: expected.start + from, end: expected.end }, status: 206, exactLength: false },
      pinned,
      response.status,
      {
        // The version these bytes are of: their ETag, or without one their Last-Modified and complete length.
        etag: (range && versionPin(response.headers, range.size)) ?? response.headers.get('etag'),
        size: range?.size,
        range,
        length: statedLength(response.headers.get('content-length')),
        body: response.body,
      },
    );
    if (!check.ok) {
      await response.body?.cancel();
      throw new VersionChanged(`${check.why} from the origin`);
    }
    return {
      kind: 'span',
      meta,
      span: { first: span.first, last: Math.min(span.last, Math.ceil(meta.size / sliceSize) - 1) },
      // Framed as exactly the bytes asked for: the runtime may move it by itself. A body whose
      // Content-Length says otherwise (or is absent: chunked) is read by JavaScript, which stops
      // at the range's last byte whatever the framing promised.
      body: check.exact ? nativeBody(check.body) : check.body,
      response: new Response(null, { headers }),
    };
  }
}

/** RFC 9110 §15: a status is 100–599; a final answer outside 200–599 is no HTTP answer. */
function notAStatus(status: number): BadGateway {
  return new BadGateway(`origin answered with status ${status}, which is not an HTTP status`)
    .because('origin-status')
    .from(status);
}
