// What one request cost a tier, measured as it goes: the bytes the next hop answered (declared, or counted where none
// is), those from the origin, and the work it left running (fills, stores, read-ahead), which its record waits for.

import { framedBytes } from '../http/body-length.ts';
import { type CacheStatusParams, memberParams } from '../http/cache-status.ts';
import { spanBytes } from '../slices/slice-plan.ts';
import { type MemoryHitFacts, outcomeOfResponse, type ReadAheadPart } from '../stats/record.ts';
import { responseAsIs } from '../streams/response-as-is.ts';
import type { Upstream, UpstreamAnswer } from '../tier/ports.ts';
import { tier } from '../tiers/tiers.ts';

export class RequestMeter {
  readonly started: number;
  bytesFromNextHop = 0;
  bytesFromOrigin = 0;
  /** Set by the memory layer on its hit: what the record needs, so no header need be read (the hot path). */
  hit: MemoryHitFacts | undefined = undefined;
  /** The tier's own endpoints (stats, health, purge) are not counted as requests for objects. */
  internal = false;
  /**
   * At the shield: this request is a part of a slice the edge read ahead (read-ahead-copy.ts), counted once for both.
   */
  readAhead: ReadAheadPart | undefined = undefined;
  /**
   * Body bytes the response sent, where its framing does not say: counted as they passed (no
   * Content-Length, sentBody), or a warm's, whose body is a word and which hands on the slice
   * it stored. Undefined: its Content-Length says them.
   */
  bytesSent: number | undefined = undefined;
  /**
   * How the answer's body ends, where that is heard at no cost per byte (ObjectRead.bodyEnd): `departed` when its
   * reader went away first. The record waits for it (outside its duration); undefined: not heard.
   */
  bodyEnded: Promise<{ departed: boolean }> | undefined = undefined;
  private readonly pending: Promise<unknown>[] = [];
  private readonly keepAlive: (promise: Promise<unknown>) => void;

  /** `keepAlive`: the platform's waitUntil, which every held promise is also handed to. */
  constructor(started: number, keepAlive: (promise: Promise<unknown>) => void) {
    this.started = started;
    this.keepAlive = keepAlive;
  }

  /** Work the request leaves running: kept alive, and waited for before the record is counted. */
  hold(promise: Promise<unknown>): void {
    this.pending.push(promise);
    this.keepAlive(promise);
  }

  /** Body bytes from the next hop; `fromOrigin` when the next hop had to fetch them itself. */
  fetched(bytes: number, fromOrigin: boolean): void {
    this.bytesFromNextHop += bytes;
    if (fromOrigin) this.bytesFromOrigin += bytes;
  }

  /**
   * A next hop's answer, its body's bytes counted as fetched: by its declared length, or, when
   * it declares none (chunked), as they pass (what actually arrived, a cut transfer included).
   */
  fetchedAnswer(method: string, response: Response, fromOrigin: boolean): Response {
    const declared =
      response.body === null ? 0 : framedBytes(method, response.status, response.headers.get('content-length'));
    if (declared !== undefined || response.body === null) {
      this.fetched(declared ?? 0, fromOrigin);
      return response;
    }
    return rebodied(
      response,
      this.counted(response.body, (bytes) => this.fetched(bytes, fromOrigin)),
    );
  }

  /** The response as sent, its body counted as it passes into bytesSent when its framing does not say its length. */
  sentBody(method: string, response: Response): Response {
    if (
      response.body === null ||
      framedBytes(method, response.status, response.headers.get('content-length')) !== undefined
    )
      return response;
    this.bytesSent = 0;
    return rebodied(
      response,
      this.counted(response.body, (bytes) => (this.bytesSent = (this.bytesSent ?? 0) + bytes)),
    );
  }

  /**
   * `body` as it passes, each chunk's bytes told to `count`; the record waits until it has
   * ended, failed or been cancelled. Only for bodies no length is declared for: every chunk
   * passes through JavaScript here.
   */
  private counted(body: ReadableStream<Uint8Array>, count: (bytes: number) => void): ReadableStream<Uint8Array> {
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        count(chunk.byteLength);
        controller.enqueue(chunk);
      },
    });
    // Settles when the body ends (closing the counter), fails (erroring it, so its reader sees
    // the failure) or the reader cancels (which cancels the body).
    this.hold(body.pipeTo(counter.writable).catch(() => undefined));
    return counter.readable;
  }

  /** Nothing was left running. */
  get idle(): boolean {
    return this.pending.length === 0;
  }

  /** Resolves once every held promise (and those they held meanwhile) has settled. */
  async settled(): Promise<void> {
    let seen = 0;
    while (seen < this.pending.length) {
      const batch = this.pending.slice(seen);
      seen = this.pending.length;
      await Promise.allSettled(batch);
    }
  }
}

/**
 * `upstream`, each answer's body bytes counted on `meter`. `originAnswer` tells whether an answer
 * came from the origin: at the shield every answer does; at the edge, a shield answer whose
 * Cache-Status member is not a hit (RFC 9211 §2.1) was fetched from the origin.
 */
export function meteredUpstream(
  upstream: Upstream,
  meter: RequestMeter,
  originAnswer: (response: Response) => boolean,
): Upstream {
  return {
    async slices(span, pinned, ask) {
      const answer = await upstream.slices(span, pinned, ask);
      // Counted with its warm (warmed, below), as the shield counts it.
      if (ask?.copy === true && answer.kind === 'span' && servedFromStore(answer.response)) return answer;
      if (answer.kind === 'whole')
        return { kind: 'whole', response: meter.fetchedAnswer('GET', answer.response, originAnswer(answer.response)) };
      meter.fetched(answerBytes(answer, ask?.from ?? 0), originAnswer(answer.response));
      return answer;
    },
    head: (signal) => upstream.head(signal),
    ...(upstream.warm !== undefined && { warm: warmed(upstream.warm.bind(upstream), meter) }),
  };
}

/**
 * The next hop's warm, counted as the request for the span it is (read-ahead-copy.ts): once
 * stored there, its bytes as fetched from the next hop (the copy that moves them is counted
 * with it), and those the next hop fetched from the origin for it.
 */
function warmed(warm: NonNullable<Upstream['warm']>, meter: RequestMeter): NonNullable<Upstream['warm']> {
  return async (span, pinned, signal) => {
    const fromOrigin = await warm(span, pinned, signal);
    if (fromOrigin !== undefined) {
      const bytes = spanBytes(span, pinned.sliceSize, pinned.size);
      meter.fetched(bytes.end - bytes.start + 1, false);
      meter.bytesFromOrigin += fromOrigin;
    }
    return fromOrigin;
  };
}

/**
 * A slice answer the shield served from what it stored: its own member a plain hit (RFC 9211 §2.1), the outcome its
 * record has.
 */
function servedFromStore(response: Response): boolean {
  return (
    outcomeOfResponse(response.status, response.headers.get('cache-status'), tier('shield').statusMember).outcome ===
    'hit'
  );
}

/**
 * At the edge: whether the shield went to the origin for this answer (its member says no hit).
 * Only an object's bytes count (200, 206): an error's body is the shield's own text (an S3
 * origin's error body never passes, origin-errors.ts).
 */
export function shieldFetchedFromOrigin(response: Response): boolean {
  if (response.status !== 200 && response.status !== 206) return false;
  const params: CacheStatusParams | undefined = memberParams(
    response.headers.get('cache-status'),
    tier('shield').statusMember,
  );
  return params === undefined || !params.hit;
}

/** A span answer's bytes (from `from` on); none for the others but a whole one (fetchedAnswer counts it). */
function answerBytes(answer: UpstreamAnswer, from: number): number {
  if (answer.kind !== 'span') return 0;
  const bytes = spanBytes(answer.span, answer.meta.sliceSize, answer.meta.size);
  return Math.max(0, bytes.end - bytes.start + 1 - from);
}

/** `response` with `body` in place of its own, as it is (an encoded body stays encoded). */
function rebodied(response: Response, body: ReadableStream<Uint8Array>): Response {
  return responseAsIs(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
