// The first half of every tier's read path (Varnish's recv → hash → hit|miss): find what this
// tier knows about the object (a whole stored response, or a manifest of a sliced object), and
// on a miss ask the next hop for the first slice the request needs, which also tells whether
// the object is sliced at all. What to send back is decided by the caller (the edge answers
// clients' ranges, the shield answers slice requests).

import type { CacheStatusParams, ForwardReason } from './cache-status.ts';
import { correctedInitialAge, storeVerdict } from './freshness.ts';
import { HttpError } from './http-error.ts';
import { type ObjectMeta, manifestHeaders, readManifest } from './object-meta.ts';
import type { EntryMeta } from './stored-entry.ts';
import { currentAge, remainingFreshness } from './stored-entry.ts';
import { type TierCache, lookup, remove, store } from './tier-cache.ts';
import type { SliceSpan } from './slice-plan.ts';
import { type Upstream, VersionChanged } from './upstream.ts';

export interface ObjectRead {
  cache: TierCache;
  /** The object's own key in this tier's cache. */
  key: string;
  defaultTtl: number;
  now(): number;
  waitUntil(promise: Promise<unknown>): void;
  upstream: Upstream;
}

/** A whole response (stored, from upstream, or an upstream error) to deliver as it is. */
export interface WholeObject {
  kind: 'whole';
  status: number;
  headers: Headers;
  body: ReadableStream<Uint8Array> | null;
  age: number;
  report: CacheStatusParams;
}

/** A sliced object: its manifest, and how its slices may be stored here. */
export interface SlicedObject {
  kind: 'sliced';
  meta: ObjectMeta;
  age: number;
  report: CacheStatusParams;
  /** The upstream answer's headers when we went upstream (its Cache-Status, Server-Timing). */
  upstreamHeaders: Headers | undefined;
  /** Timing to store slices under; undefined when the object may not be stored. */
  entry: EntryMeta | undefined;
  /** Slices that came with discovery. */
  prefetched: Map<number, ReadableStream<Uint8Array>>;
  /** False when discovery found the wanted slice past the end of the object. */
  inRange: boolean;
}

export type Resolved = WholeObject | SlicedObject;

/** What this tier has for the object, or what discovery found; `firstSlice` is the slice to discover with. */
export async function resolveObject(read: ObjectRead, firstSlice: number): Promise<Resolved> {
  const started = read.now();
  const entry = await lookup(read.cache, read.key);
  if (entry !== undefined && remainingFreshness(entry.meta, started) > 0) {
    const age = currentAge(entry.meta, started);
    const report: CacheStatusParams = { hit: true, ttl: remainingFreshness(entry.meta, started) };
    const meta = readManifest(entry.headers);
    if (meta === undefined) return { kind: 'whole', status: entry.status, headers: entry.headers, body: entry.body, age, report };
    await entry.body?.cancel();
    return { kind: 'sliced', meta, age, report, upstreamHeaders: undefined, entry: entry.meta, prefetched: new Map(), inRange: true };
  }
  await entry?.body?.cancel();
  return discover(read, firstSlice, started, entry === undefined ? 'uri-miss' : 'stale');
}

/** Forget this tier's manifest (the object changed upstream). */
export function forgetObject(read: ObjectRead): Promise<boolean> {
  return remove(read.cache, read.key).catch(() => false);
}

/** Fetches spans of the version `meta` describes; forgets the manifest when that version is gone. */
export function pinnedSpans(read: ObjectRead, meta: ObjectMeta): (span: SliceSpan) => Promise<ReadableStream<Uint8Array>> {
  return async (span) => {
    try {
      const answer = await read.upstream.slices(span, meta);
      if (answer.kind !== 'span') throw new VersionChanged('upstream no longer serves this object in slices');
      return answer.body;
    } catch (error) {
      if (error instanceof VersionChanged) await forgetObject(read);
      throw error;
    }
  };
}

async function discover(read: ObjectRead, index: number, started: number, fwd: ForwardReason): Promise<Resolved> {
  let answer;
  try {
    answer = await read.upstream.slices({ first: index, last: index }, undefined);
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    const response = error.toResponse();
    const report: CacheStatusParams = { fwd };
    if (error.upstreamStatus !== undefined) report.fwdStatus = error.upstreamStatus;
    return { kind: 'whole', status: response.status, headers: new Headers(response.headers), body: response.body, age: 0, report };
  }
  const responseTime = read.now();
  const headers = new Headers(answer.response.headers);
  if (!headers.has('date')) headers.set('date', new Date(responseTime).toUTCString());
  const age = correctedInitialAge(headers, started, responseTime);
  if (answer.kind === 'whole') return storeWhole(read, answer.response, headers, age, responseTime, fwd);

  const verdict = storeVerdict(200, answer.meta.headers, { defaultTtl: read.defaultTtl, now: responseTime });
  let entry: EntryMeta | undefined;
  if (verdict.store) {
    entry = { storedAt: responseTime, initialAge: age, lifetime: verdict.lifetime };
    const manifest = { status: 200, headers: manifestHeaders(answer.meta), body: new Response('').body as ReadableStream, meta: entry, retention: verdict.lifetime - age };
    read.waitUntil(store(read.cache, read.key, manifest).catch(() => undefined));
  }
  const prefetched = new Map<number, ReadableStream<Uint8Array>>();
  if (answer.kind === 'span') prefetched.set(answer.span.first, answer.body);
  return { kind: 'sliced', meta: answer.meta, age, report: { fwd, stored: verdict.store }, upstreamHeaders: headers, entry, prefetched, inRange: answer.kind === 'span' };
}

function storeWhole(read: ObjectRead, response: Response, headers: Headers, age: number, responseTime: number, fwd: ForwardReason): WholeObject {
  let body = response.body;
  let stored = false;
  if (body !== null) {
    const verdict = storeVerdict(response.status, headers, { defaultTtl: read.defaultTtl, now: responseTime });
    if (verdict.store) {
      const [toClient, toCache] = body.tee();
      body = toClient;
      stored = true;
      const meta = { storedAt: responseTime, initialAge: age, lifetime: verdict.lifetime };
      read.waitUntil(store(read.cache, read.key, { status: response.status, headers, body: toCache, meta, retention: verdict.lifetime - age }).catch(() => undefined));
    }
  }
  const report: CacheStatusParams = { fwd, stored };
  if (response.status !== 200) report.fwdStatus = response.status;
  return { kind: 'whole', status: response.status, headers, body, age, report };
}
