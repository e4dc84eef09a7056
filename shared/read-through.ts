// The read path every tier runs (Varnish's recv → hash → hit|miss → deliver, in one screen):
// answer from the tier's store while fresh, else ask the next hop, store what may be stored
// while streaming it on, and say what happened in Cache-Status, Age and Server-Timing.
// Both tiers run this; they differ only in what `forward` asks and in the cache they pass.
// The Cache and the next hop come in as parameters, so nothing here reaches for the runtime.

import type { CacheStatusParams, ForwardReason } from './cache-status.ts';
import { correctedInitialAge, storeVerdict } from './freshness.ts';
import { HttpError } from './http-error.ts';
import { currentAge, remainingFreshness } from './stored-entry.ts';
import { type StoredEntry, type TierCache, lookup, store } from './tier-cache.ts';
import { type Tier, reportTier } from './tier-headers.ts';

export type ReadMethod = 'GET' | 'HEAD';

export interface ReadThrough {
  tier: Tier;
  cache: TierCache;
  key: string;
  method: ReadMethod;
  defaultTtl: number;
  now(): number;
  waitUntil(promise: Promise<unknown>): void;
  /** Asks the next hop. Throwing an HttpError is answered like a response with its status. */
  forward(method: ReadMethod): Promise<Response>;
}

export async function readThrough(read: ReadThrough): Promise<Response> {
  const started = read.now();
  const entry = await lookup(read.cache, read.key);
  if (entry !== undefined && remainingFreshness(entry.meta, started) > 0) return deliverHit(read, entry, started);
  await entry?.body?.cancel();
  return fetchAndStore(read, started, entry === undefined ? 'uri-miss' : 'stale');
}

async function fetchAndStore(read: ReadThrough, started: number, fwd: ForwardReason): Promise<Response> {
  const { response: upstream, fwdStatus } = await forwardOrError(read);
  const responseTime = read.now();
  const headers = new Headers(upstream.headers);
  // RFC 9110 §6.6.1: a recipient with a clock caching a response without Date must add one.
  if (!headers.has('date')) headers.set('date', new Date(responseTime).toUTCString());
  const age = correctedInitialAge(headers, started, responseTime);
  let body = upstream.body;
  let stored = false;
  if (read.method === 'GET' && body !== null) {
    const verdict = storeVerdict(upstream.status, headers, { defaultTtl: read.defaultTtl, now: responseTime });
    if (verdict.store) {
      const [toClient, toCache] = body.tee();
      body = toClient;
      stored = true;
      const meta = { storedAt: responseTime, initialAge: age, lifetime: verdict.lifetime };
      const retention = verdict.lifetime - age;
      read.waitUntil(store(read.cache, read.key, { status: upstream.status, headers, body: toCache, meta, retention }).catch(() => undefined));
    }
  }
  const status: CacheStatusParams = { fwd, stored };
  if (fwdStatus !== undefined && fwdStatus !== 200) status.fwdStatus = fwdStatus;
  return deliver(read, upstream.status, headers, body, age, status, started);
}

/** The next hop's answer, or the error standing for it, and the status the next hop really sent. */
async function forwardOrError(read: ReadThrough): Promise<{ response: Response; fwdStatus: number | undefined }> {
  try {
    const response = await read.forward(read.method);
    return { response, fwdStatus: response.status };
  } catch (error) {
    if (error instanceof HttpError) return { response: error.toResponse(read.method), fwdStatus: error.upstreamStatus };
    throw error;
  }
}

function deliverHit(read: ReadThrough, entry: StoredEntry, now: number): Promise<Response> {
  const ttl = remainingFreshness(entry.meta, now);
  let body = entry.body;
  if (read.method === 'HEAD') {
    void body?.cancel();
    body = null;
  }
  return Promise.resolve(deliver(read, entry.status, entry.headers, body, currentAge(entry.meta, now), { hit: true, ttl }, now));
}

function deliver(read: ReadThrough, status: number, upstreamHeaders: Headers, body: ReadableStream | null, age: number, params: CacheStatusParams, started: number): Response {
  const headers = reportTier(new Headers(upstreamHeaders), read.tier, params, read.now() - started);
  headers.set('age', String(Math.floor(age)));
  return new Response(read.method === 'HEAD' ? null : body, { status, headers });
}

/** GET or HEAD, for a handler that only those reach. */
export function readMethod(method: string): ReadMethod {
  return method === 'HEAD' ? 'HEAD' : 'GET';
}
