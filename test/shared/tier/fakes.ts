// Fakes of the read path's ports (shared/tier/ports.ts, tier-cache.ts), for its unit tests in Node: a cache in a
// Map, a next hop answering from one object, an ObjectRead with a clock the test moves and a waitUntil it awaits; and
// the next hop's calls for what a tier forwards as it came (HopCalls), recorded and answered as the test says.

import { expect } from 'vitest';
import { parseConfig } from '../../../shared/config/config.ts';
import {
  directiveFields,
  directiveSeconds,
  hasDirective,
  parseCacheControl,
} from '../../../shared/http/cache-control.ts';
import { ClientGone, VersionChanged } from '../../../shared/http/errors.ts';
import { isStrongEtag, weakMatch } from '../../../shared/http/etag.ts';
import { formatHttpDate, parseHttpDate } from '../../../shared/http/http-date.ts';
import { varyFieldNames } from '../../../shared/http/vary.ts';
import { type ObjectMeta, representationHeaders } from '../../../shared/slices/object-meta.ts';
import { type ObjectVersion, type SliceSpan, sliceCount, spanBytes } from '../../../shared/slices/slice-plan.ts';
import { fromStoredHeaders, type Unpacked } from '../../../shared/store/stored-entry.ts';
import {
  fillLimits,
  type HopCall,
  type HopCalls,
  type ObjectRead,
  type SliceAsk,
  type Upstream,
  type UpstreamAnswer,
  type Validators,
} from '../../../shared/tier/ports.ts';
import { cancelPrefetched, type Resolved, type SlicedObject, type WholeObject } from '../../../shared/tier/resolved.ts';
import type { TierCache } from '../../../shared/tier/tier-cache.ts';
import { concat, faultyStream, streamOf } from '../../streams.ts';

/** Where every fake clock starts: a fixed instant, whole seconds. */
export const EPOCH = Date.parse('2026-03-02T10:00:00Z');

/** The time freshness is judged by; moved by the test only. */
class FakeClock {
  ms: number;
  constructor(start = EPOCH) {
    this.ms = start;
  }
  readonly now = (): number => this.ms;
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

// ---------------------------------------------------------------------------------------------
// The tier's cache.

interface Kept {
  status: number;
  headers: [string, string][];
  bytes: Uint8Array;
  /** ms on the cache's clock; Infinity when the response named no max-age. */
  expiresAt: number;
}

export interface CacheOp {
  op: 'match' | 'put' | 'delete';
  url: string;
}

export interface FakeCacheOptions {
  /** The clock the platform keeps entries by (their Cache-Control max-age); default Date.now. */
  now?: () => number;
  /**
   * As careless as the local Cache API: a body whose stream fails part-way is kept anyway, with
   * what arrived of it, and the put resolves. Default: the put rejects and nothing is kept.
   */
  careless?: boolean;
}

/**
 * The part of the Workers Cache API a tier uses (TierCache), in a Map keyed by URL. It keeps a
 * response's bytes and headers, and `match` builds a fresh Response each time, as the platform
 * does: with its own Content-Length (the bytes it holds) and CF-Cache-Status, and no body (null) when it holds no
 * bytes. Like the Cache API
 * it matches GET requests only, refuses (throws) a non-GET request, a 206 and `Vary: *`, silently
 * keeps nothing for `no-store`, `private` or a Set-Cookie, and drops an entry once the max-age
 * it was put with has passed on its clock.
 */
export class FakeTierCache implements TierCache {
  readonly entries = new Map<string, Kept>();
  readonly ops: CacheOp[] = [];
  /** Puts reject (the platform failing) while set. */
  refusePuts = false;
  /** A store that keeps only what it admits (TierCache.admits: the R2 tier's), where set. */
  admits?: TierCache['admits'];
  private readonly now: () => number;
  private readonly careless: boolean;

  constructor(options: FakeCacheOptions = {}) {
    this.now = options.now ?? Date.now;
    this.careless = options.careless ?? false;
  }

  async match(request: Request): Promise<Response | undefined> {
    this.ops.push({ op: 'match', url: request.url });
    if (request.method !== 'GET') return undefined;
    const kept = this.entries.get(request.url);
    if (kept === undefined) return undefined;
    if (this.now() >= kept.expiresAt) {
      this.entries.delete(request.url);
      return undefined;
    }
    const headers = new Headers(kept.headers);
    headers.set('content-length', String(kept.bytes.byteLength));
    headers.set('cf-cache-status', 'HIT');
    // workerd's Cache API hands an entry of no bytes back without a body at all.
    return new Response(kept.bytes.byteLength === 0 ? null : kept.bytes.slice(), { status: kept.status, headers });
  }

  async put(request: Request, response: Response): Promise<void> {
    this.ops.push({ op: 'put', url: request.url });
    if (request.method !== 'GET') throw new TypeError('Cannot cache response to non-GET request.');
    if (response.status === 206) throw new TypeError('Cannot cache response to a range request (206 Partial Content).');
    if (varyFieldNames(response.headers.get('vary')).includes('*'))
      throw new TypeError("Cannot cache response with 'Vary: *' header.");
    const chunks: Uint8Array[] = [];
    let broken: unknown;
    const reader = response.body?.getReader();
    try {
      for (let read = await reader?.read(); read !== undefined && !read.done; read = await reader?.read())
        chunks.push(read.value.slice());
    } catch (error) {
      broken = error ?? new Error('the body failed');
    }
    if (broken !== undefined && !this.careless) throw broken;
    if (this.refusePuts) throw new Error('the platform refused the put');
    const cc = parseCacheControl(response.headers.get('cache-control'));
    if (hasDirective(cc, 'no-store') || directiveFields(cc, 'private') === true || response.headers.has('set-cookie'))
      return;
    const maxAge = directiveSeconds(cc, 's-maxage') ?? directiveSeconds(cc, 'max-age');
    this.entries.set(request.url, {
      status: response.status,
      headers: [...response.headers],
      bytes: concat(chunks),
      expiresAt: maxAge === undefined ? Infinity : this.now() + maxAge * 1000,
    });
  }

  async delete(request: Request): Promise<boolean> {
    this.ops.push({ op: 'delete', url: request.url });
    return this.entries.delete(request.url);
  }

  /** The URLs held, in the order first stored. */
  keys(): string[] {
    return [...this.entries.keys()];
  }

  /**
   * What is stored at `url`, unpacked from the tier's envelope (stored-entry.ts); undefined if nothing or not an
   * envelope.
   */
  unpacked(url: string): (Unpacked & { bytes: Uint8Array; platformHeaders: Headers }) | undefined {
    const kept = this.entries.get(url);
    if (kept === undefined) return undefined;
    const platformHeaders = new Headers(kept.headers);
    const unpacked = fromStoredHeaders(platformHeaders);
    return unpacked && { ...unpacked, bytes: kept.bytes, platformHeaders };
  }

  /** How often an operation reached `url` (or any URL). */
  count(op: CacheOp['op'], url?: string): number {
    return this.ops.filter((entry) => entry.op === op && (url === undefined || entry.url === url)).length;
  }
}

// ---------------------------------------------------------------------------------------------
// The next hop.

/** The object the next hop serves. */
export interface FakeObject {
  body: Uint8Array;
  /** Its representation and caching headers (ETag, Last-Modified, Cache-Control …), sent with every answer. */
  headers: Record<string, string>;
  /** Of a whole answer (default 200): an error page, a 404 … */
  status?: number;
  /** Answered in slices of this size (span / beyond) when set and the ETag is strong; else whole. */
  sliceSize?: number;
  /** A whole answer with no Content-Length (a chunked body). */
  chunked?: boolean;
  /** A whole body that breaks after this many bytes (the connection reset). */
  breakAt?: number;
}

export type UpstreamCall =
  | {
      method: 'slices';
      span: SliceSpan;
      pinned: ObjectVersion | undefined;
      validators: Validators | undefined;
      from: number | undefined;
      signal: AbortSignal | undefined;
    }
  | { method: 'head'; signal: AbortSignal | undefined };

export type SliceCall = Extract<UpstreamCall, { method: 'slices' }>;

/** A scripted answer: taken once, in order, before the object answers again. An Error is thrown. */
export type Scripted = UpstreamAnswer | Error | ((call: SliceCall) => UpstreamAnswer | Promise<UpstreamAnswer>);

/**
 * The next hop as the read path sees it (Upstream), answering from `object` in the shapes of
 * ports.ts: whole (200, or the object's status), a span of slices, a span beyond the end, or
 * not-modified when the validators sent match (RFC 9110 §13.1.2, §13.1.3). Records every call;
 * answers scripted with `next` / `nextHead` come first. A `gate` holds every answer until opened. Its own answers
 * heed the call's signal as the real hops do (next-hop-contract.ts): aborted, the call throws ClientGone, and a span's
 * body under way errors.
 */
export class FakeUpstream implements Upstream {
  object: FakeObject;
  readonly calls: UpstreamCall[] = [];
  /** Answers a conditional request whose validators match with not-modified; false: ignores conditionals. */
  revalidates = true;
  /** The headers a not-modified answer carries; default the object's. */
  notModifiedHeaders: Record<string, string> | undefined;
  /** Stands in the Date of answers without one (an origin's clock); undefined: no Date. */
  date: (() => number) | undefined;
  private readonly script: Scripted[] = [];
  private readonly headScript: (Response | Error)[] = [];
  private gate: Promise<void> | undefined;
  private openGate: () => void = () => undefined;

  constructor(object: FakeObject, date?: () => number) {
    this.object = object;
    this.date = date;
  }

  /** Answers for the next slices calls, in order. */
  next(...answers: Scripted[]): this {
    this.script.push(...answers);
    return this;
  }

  /** Answers (or errors) for the next head calls, in order. */
  nextHead(...answers: (Response | Error)[]): this {
    this.headScript.push(...answers);
    return this;
  }

  /** Holds every answer from now until `release()`. */
  hold(): void {
    this.gate = new Promise((resolve) => (this.openGate = resolve));
  }

  release(): void {
    this.openGate();
    this.gate = undefined;
  }

  /** The slices calls alone. */
  get sliceCalls(): SliceCall[] {
    return this.calls.filter((call): call is SliceCall => call.method === 'slices');
  }

  async slices(span: SliceSpan, pinned: ObjectVersion | undefined, ask: SliceAsk = {}): Promise<UpstreamAnswer> {
    const call: SliceCall = {
      method: 'slices',
      span: { ...span },
      pinned: pinned && { size: pinned.size, etag: pinned.etag },
      validators: ask.validators && { ...ask.validators },
      from: ask.from,
      signal: ask.signal,
    };
    this.calls.push(call);
    await this.gate;
    const scripted = this.script.shift();
    if (scripted instanceof Error) throw scripted;
    if (typeof scripted === 'function') return scripted(call);
    if (scripted !== undefined) return scripted;
    if (ask.signal?.aborted) throw new ClientGone();
    return this.answer(call);
  }

  async head(signal?: AbortSignal): Promise<Response> {
    this.calls.push({ method: 'head', signal });
    await this.gate;
    const scripted = this.headScript.shift();
    if (scripted instanceof Error) throw scripted;
    if (scripted !== undefined) return scripted;
    if (signal?.aborted) throw new ClientGone();
    const { object } = this;
    const headers = this.headers();
    headers.set('content-length', String(object.body.byteLength));
    return new Response(null, { status: object.status ?? 200, headers });
  }

  /** The object's answer to `call`, as the next hop would give it. */
  answer(call: SliceCall): UpstreamAnswer {
    const { object } = this;
    const headers = this.headers();
    if (call.pinned !== undefined && call.pinned.etag !== object.headers.etag)
      throw new VersionChanged(`expected ${call.pinned.etag}, the object is now ${object.headers.etag}`);
    if (call.validators !== undefined && this.revalidates && this.matches(call.validators)) {
      return {
        kind: 'not-modified',
        response: new Response(null, {
          status: 304,
          headers:
            this.notModifiedHeaders === undefined ? headers : this.withDate(new Headers(this.notModifiedHeaders)),
        }),
      };
    }
    const meta = this.meta();
    if (meta === undefined) return { kind: 'whole', response: this.whole(headers) };
    if (call.span.first >= sliceCount(meta.size, meta.sliceSize))
      return { kind: 'beyond', meta, response: new Response(null, { headers }) };
    const last = Math.min(call.span.last, sliceCount(meta.size, meta.sliceSize) - 1);
    const bytes = spanBytes({ first: call.span.first, last }, meta.sliceSize, meta.size);
    const body = untilAborted(
      streamOf(object.body.slice(bytes.start + (call.from ?? 0), bytes.end + 1), 1024),
      call.signal,
    );
    return {
      kind: 'span',
      meta,
      span: { first: call.span.first, last },
      body,
      response: new Response(null, { headers }),
    };
  }

  /** The version the object is sliced as; undefined when it is served whole. */
  meta(): ObjectMeta | undefined {
    const { object } = this;
    const etag = object.headers.etag ?? null;
    if (object.sliceSize === undefined || !isStrongEtag(etag) || (object.status ?? 200) !== 200) return undefined;
    return {
      size: object.body.byteLength,
      sliceSize: object.sliceSize,
      etag,
      headers: representationHeaders(this.headers()),
    };
  }

  private whole(headers: Headers): Response {
    const { object } = this;
    const status = object.status ?? 200;
    if (status === 204 || status === 304) return new Response(null, { status, headers });
    if (!object.chunked) headers.set('content-length', String(object.body.byteLength));
    const body =
      object.breakAt !== undefined
        ? faultyStream(object.body, object.breakAt, 'error', 64)
        : object.chunked
          ? streamOf(object.body, 64)
          : object.body.slice();
    return new Response(body, { status, headers });
  }

  private headers(): Headers {
    return this.withDate(new Headers(this.object.headers));
  }

  private withDate(headers: Headers): Headers {
    if (!headers.has('date') && this.date !== undefined) headers.set('date', formatHttpDate(this.date()));
    return headers;
  }

  /** RFC 9110 §13.1.2 If-None-Match (weak comparison) first; §13.1.3 If-Modified-Since only without an ETag sent. */
  private matches(validators: Validators): boolean {
    const etag = this.object.headers.etag;
    if (validators.etag !== null) return etag !== undefined && weakMatch(validators.etag, etag);
    const modified = parseHttpDate(this.object.headers['last-modified']);
    const since = parseHttpDate(validators.lastModified);
    return modified !== undefined && since !== undefined && modified <= since;
  }
}

/** `body`, erroring with the signal's reason once it aborts, as a fetch's body does when its request is aborted. */
function untilAborted(body: ReadableStream<Uint8Array>, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  if (signal === undefined) return body;
  const reader = body.getReader();
  let stop: () => void = () => undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      stop = () => controller.error(signal.reason);
      signal.addEventListener('abort', stop, { once: true });
    },
    async pull(controller) {
      const read = await reader.read();
      if (!read.done) return controller.enqueue(read.value);
      signal.removeEventListener('abort', stop);
      controller.close();
    },
    cancel(reason) {
      signal.removeEventListener('abort', stop);
      return reader.cancel(reason);
    },
  });
}

/** An answer the next hop might give: a whole response of `status` with `headers` and `body`. */
export function wholeAnswer(
  status: number,
  headers: Record<string, string> = {},
  body: string | null = '',
): UpstreamAnswer {
  const init = new Headers(headers);
  const bytes = body === null ? null : new TextEncoder().encode(body);
  if (bytes !== null && !init.has('content-length')) init.set('content-length', String(bytes.byteLength));
  return { kind: 'whole', response: new Response(bytes, { status, headers: init }) };
}

// ---------------------------------------------------------------------------------------------
// The next hop's calls for what is forwarded as it came (bypass.ts, pass-through.ts).

/** One forwarded call, as the next hop got it. */
export interface ForwardedCall extends HopCall {
  via: keyof HopCalls;
}

/**
 * The next hop as the forwarding flows see it (HopCalls): every call recorded, each answered by `answer` (a 200 of
 * `forwarded` with its length, by default), or rejected with `refusal` when set (what an origin's kind refuses).
 */
export class FakeHopCalls implements HopCalls {
  readonly calls: ForwardedCall[] = [];
  answer: (call: HopCall) => Response = () =>
    new Response('forwarded', { headers: { 'content-type': 'text/plain', 'content-length': '9' } });
  refusal: Error | undefined;

  bypass(call: HopCall): Promise<Response> {
    return this.forward('bypass', call);
  }

  passThrough(call: HopCall): Promise<Response> {
    return this.forward('passThrough', call);
  }

  private async forward(via: keyof HopCalls, call: HopCall): Promise<Response> {
    this.calls.push({ via, ...call });
    if (this.refusal !== undefined) throw this.refusal;
    return this.answer(call);
  }
}

// ---------------------------------------------------------------------------------------------
// The read.

/** An ObjectRead over the fakes, with the handles a test needs. */
export interface FakeRead extends ObjectRead {
  cache: FakeTierCache;
  upstream: FakeUpstream;
  clock: FakeClock;
  /** Every promise handed to waitUntil, in order. */
  waited: Promise<unknown>[];
  /** Awaits everything handed to waitUntil so far, and whatever that hands on; the outcomes. */
  settle(): Promise<PromiseSettledResult<unknown>[]>;
}

export interface FakeReadOverrides extends Partial<Omit<ObjectRead, 'cache' | 'upstream' | 'now' | 'waitUntil'>> {
  /** The object the next hop serves (ignored when `upstream` is given). */
  object?: FakeObject;
  cache?: FakeTierCache;
  upstream?: FakeUpstream;
  clock?: FakeClock;
}

let reads = 0;

/** What fills may pull for nobody, and the bounds of a body without a length, as a tier has them by default. */
export const FILL_LIMITS = fillLimits(parseConfig({ ORIGIN_KIND: 'http', ORIGIN_URL: 'https://origin.test' }));

/** A fresh object key: the isolate's collapse claims (collapse.ts) are keyed by it, across tests. */
export function freshKey(name = 'object'): string {
  return `https://origin.test/bucket/${name}-${++reads}`;
}

/** A small object served whole, with validators and an hour of freshness. */
export function textObject(text = 'hello, tiers', headers: Record<string, string> = {}): FakeObject {
  return {
    body: new TextEncoder().encode(text),
    headers: {
      'content-type': 'text/plain',
      etag: '"v1"',
      'last-modified': 'Mon, 02 Mar 2026 09:00:00 GMT',
      'cache-control': 'max-age=3600',
      ...headers,
    },
  };
}

/**
 * An ObjectRead over a FakeTierCache and a FakeUpstream sharing one FakeClock. The policy is an
 * http origin's (no default TTL, no default stale windows, 60 s negative TTL) unless overridden;
 * the key is one no other test uses. Reads that share `cache` (and `upstream`) see each other's
 * entries: the same tier, another request.
 */
export function fakeRead(overrides: FakeReadOverrides = {}): FakeRead {
  const { object, clock = new FakeClock(), cache: givenCache, upstream: givenUpstream, ...rest } = overrides;
  const cache = givenCache ?? new FakeTierCache({ now: clock.now });
  const upstream = givenUpstream ?? new FakeUpstream(object ?? textObject(), clock.now);
  const waited: Promise<unknown>[] = [];
  return {
    cache,
    upstream,
    clock,
    collapseWait: 1000,
    fills: FILL_LIMITS,
    key: freshKey(),
    defaultTtl: 0,
    negativeTtl: 60,
    staleDefaults: { whileRevalidate: 0, ifError: 0 },
    now: clock.now,
    waitUntil: (promise) => void waited.push(promise),
    waited,
    async settle() {
      const outcomes: PromiseSettledResult<unknown>[] = [];
      while (outcomes.length < waited.length)
        outcomes.push(...(await Promise.allSettled(waited.slice(outcomes.length))));
      return outcomes;
    },
    ...rest,
  };
}

/**
 * Another request at the same tier as `read`: its cache, next hop and clock; a key and policy of its own to override.
 */
export function sameTier(read: FakeRead, overrides: FakeReadOverrides = {}): FakeRead {
  const { key, objectKey, selecting, defaultTtl, negativeTtl, staleDefaults, collapseWait, fills, purged, nextMember } =
    read;
  return fakeRead({
    key: objectKey ?? key,
    fills,
    selecting,
    defaultTtl,
    negativeTtl,
    staleDefaults,
    collapseWait,
    ...(purged ? { purged } : {}),
    // The same tier has the same next tier.
    ...(nextMember !== undefined ? { nextMember } : {}),
    cache: read.cache,
    upstream: read.upstream,
    clock: read.clock,
    ...overrides,
  });
}

// ---------------------------------------------------------------------------------------------
// Reading what came back.

export async function text(body: ReadableStream<Uint8Array> | null): Promise<string> {
  return body === null ? '' : new Response(body).text();
}

export function asWhole(resolved: Resolved): WholeObject {
  expect(resolved.kind).toBe('whole');
  return resolved as WholeObject;
}

export function asSliced(resolved: Resolved): SlicedObject {
  expect(resolved.kind).toBe('sliced');
  return resolved as SlicedObject;
}

/** Resolved's body read to its end, and its stores settled: what a client got, once the tier is done. */
export async function drained(read: FakeRead, resolved: Resolved): Promise<string> {
  const body = resolved.kind === 'whole' ? await text(resolved.body) : '';
  if (resolved.kind === 'sliced') await cancelPrefetched(resolved);
  const outcomes = await read.settle();
  expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
  return body;
}

/** The bytes `count` of the pattern every sliced test object is made of. */
export function patterned(count: number): Uint8Array {
  return Uint8Array.from({ length: count }, (_, i) => (i * 13 + 5) & 0xff);
}
