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
import { claimOrWait } from './collapse.ts';
import { type StoredEntry, type TierCache, lookup, remove, store } from './tier-cache.ts';
import type { SliceSpan } from './slice-plan.ts';
import { type Upstream, VersionChanged } from './upstream.ts';

export interface ObjectRead {
  cache: TierCache;
  /** Longest a request waits for another one already fetching the same entry. */
  collapseWait: number;
  /** The object's own key in this tier's cache. */
  key: string;
  defaultTtl: number;
  /** Freshness for 404/410 answers without their own (negative caching). */
  negativeTtl: number;
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
  if (entry !== undefined && remainingFreshness(entry.meta, started) > 0) return fromEntry(entry, started, { hit: true });
  await entry?.body?.cancel();
  const fwd = entry === undefined ? 'uri-miss' : 'stale';
  // Concurrent misses in this isolate share one upstream fetch: wait for it, then read what it stored.
  const claimed = await claimOrWait(read.key, () => freshEntry(read), read.collapseWait, true);
  if (claimed.found !== undefined) return fromEntry(claimed.found, read.now(), { fwd, collapsed: true });
  const { claim } = claimed;
  try {
    const { resolved, stored } = await discover(read, firstSlice, started, fwd);
    if (claim.collapsed) resolved.report.collapsed = true;
    read.waitUntil(stored.finally(claim.release));
    return resolved;
  } catch (error) {
    claim.release();
    throw error;
  }
}

async function freshEntry(read: ObjectRead): Promise<StoredEntry | undefined> {
  const entry = await lookup(read.cache, read.key);
  if (entry !== undefined && remainingFreshness(entry.meta, read.now()) > 0) return entry;
  await entry?.body?.cancel();
  return undefined;
}

async function fromEntry(entry: StoredEntry, now: number, base: CacheStatusParams): Promise<Resolved> {
  const age = currentAge(entry.meta, now);
  const report: CacheStatusParams = { ...base, ttl: remainingFreshness(entry.meta, now) };
  const meta = readManifest(entry.headers);
  if (meta === undefined) return { kind: 'whole', status: entry.status, headers: entry.headers, body: entry.body, age, report };
  await entry.body?.cancel();
  return { kind: 'sliced', meta, age, report, upstreamHeaders: undefined, entry: entry.meta, prefetched: new Map(), inRange: true };
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

/** What discovery found, and the promise of its stores (resolved when they are done or skipped). */
interface Discovered {
  resolved: Resolved;
  stored: Promise<unknown>;
}

async function discover(read: ObjectRead, index: number, started: number, fwd: ForwardReason): Promise<Discovered> {
  let answer;
  try {
    answer = await read.upstream.slices({ first: index, last: index }, undefined);
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    // An error answer is stored only if it may be (a 404 briefly, say); the next hop's status is kept for Cache-Status.
    const whole = storeWhole(read, error.toResponse(), new Headers(error.toResponse().headers), 0, read.now(), fwd);
    if (error.upstreamStatus !== undefined) whole.resolved.report.fwdStatus = error.upstreamStatus;
    else delete whole.resolved.report.fwdStatus;
    return whole;
  }
  const responseTime = read.now();
  const headers = new Headers(answer.response.headers);
  if (!headers.has('date')) headers.set('date', new Date(responseTime).toUTCString());
  const age = correctedInitialAge(headers, started, responseTime);
  if (answer.kind === 'whole') return storeWhole(read, answer.response, headers, age, responseTime, fwd);


  const verdict = storeVerdict(200, answer.meta.headers, { defaultTtl: read.defaultTtl, negativeTtl: read.negativeTtl, now: responseTime });
  let entry: EntryMeta | undefined;
  let stored: Promise<unknown> = Promise.resolve();
  if (verdict.store) {
    entry = { storedAt: responseTime, initialAge: age, lifetime: verdict.lifetime };
    const manifest = { status: 200, headers: manifestHeaders(answer.meta), body: emptyBody(), meta: entry, retention: verdict.lifetime - age };
    stored = store(read.cache, read.key, manifest).catch(() => undefined);
    read.waitUntil(stored);
  }
  const prefetched = new Map<number, ReadableStream<Uint8Array>>();
  if (answer.kind === 'span') prefetched.set(answer.span.first, answer.body);
  const resolved: SlicedObject = { kind: 'sliced', meta: answer.meta, age, report: { fwd, stored: verdict.store }, upstreamHeaders: headers, entry, prefetched, inRange: answer.kind === 'span' };
  return { resolved, stored };
}

function emptyBody(): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
}

function storeWhole(read: ObjectRead, response: Response, headers: Headers, age: number, responseTime: number, fwd: ForwardReason): Discovered {
  let body = response.body;
  let stored: Promise<unknown> = Promise.resolve();
  const verdict = storeVerdict(response.status, headers, { defaultTtl: read.defaultTtl, negativeTtl: read.negativeTtl, now: responseTime });
  if (body !== null && verdict.store) {
    const [toClient, toCache] = body.tee();
    body = toClient;
    const meta = { storedAt: responseTime, initialAge: age, lifetime: verdict.lifetime };
    stored = store(read.cache, read.key, { status: response.status, headers, body: toCache, meta, retention: verdict.lifetime - age }).catch(() => undefined);
    read.waitUntil(stored);
  }
  const report: CacheStatusParams = { fwd, stored: verdict.store && body !== null };
  if (response.status !== 200) report.fwdStatus = response.status;
  return { resolved: { kind: 'whole', status: response.status, headers, body, age, report }, stored };
}
