// The first half of every tier's read path (Varnish's recv → hash → hit|miss): what this tier holds for the
// object (a whole response, or a sliced object's manifest), or on a miss what the next hop's first slice says.

import { type CacheStatusParams, type ForwardReason, memberDetail } from '../http/cache-status.ts';
import { HttpError, isDisconnectedDetail, NotStored } from '../http/errors.ts';
import { staleUse, usableOnError, usableWhenDisconnected } from '../http/stale.ts';
import { indexedFields, variantLookups } from '../http/vary.ts';
import { staleSince } from '../purge/soft-purge.ts';
import { isManifest, readManifest } from '../slices/object-meta.ts';
import { currentAge, originAt, remainingFreshness } from '../store/stored-entry.ts';
import { type Claim, claim, claimOrWait, isFilling } from './collapse.ts';
import { type Filled, fill } from './object-fill.ts';
import type { ObjectRead } from './ports.ts';
import { cancelPrefetched, type Resolved } from './resolved.ts';
import { forgetObject, lookup, type StoredEntry } from './tier-cache.ts';

/**
 * What this tier has for the object, or what discovery found (which also tells whether the object is
 * sliced at all); `firstSlice` is the slice to discover with. What to send back is the caller's to
 * decide: the edge answers clients' ranges, the shield answers slice requests.
 */
export async function resolveObject(read: ObjectRead, firstSlice: number): Promise<Resolved> {
  const started = read.now();
  const entry = await lookupLive(read);
  if (entry !== undefined) {
    const use = staleUse(entry.meta, started, read.noStale);
    if (use === 'fresh') return fromEntry(entry, started, { hit: true });
    if (use === 'serve-stale-and-refresh') {
      // RFC 5861 §3: serve it stale now, refresh in the background (once per isolate).
      read.waitUntil(refreshInBackground(read, firstSlice));
      return fromEntry(entry, started, { hit: true, detail: 'stale-while-revalidate' });
    }
    if (read.onlyIfCached) await entry.body?.cancel();
    if (read.onlyIfCached) throw new NotStored();
    return revalidate(read, entry, firstSlice, started);
  }
  if (read.onlyIfCached) throw new NotStored();
  // Concurrent misses in this isolate share one upstream fetch: wait for it, then read what it stored.
  const claimed = await claimOrWait(read.key, () => freshEntry(read), read.collapseWait, true);
  const fwd = missReason(read);
  if (claimed.found !== undefined) return fromEntry(claimed.found, read.now(), { fwd, collapsed: true });
  return filling(read, claimed.claim, () => fill(read, firstSlice, started, fwd));
}

/**
 * Why a request that found nothing to answer with went forward (RFC 9211 §2.2): `vary-miss`
 * when the object's Vary index was found (lookupLive set `objectKey`) but not this request's
 * variant, `uri-miss` when nothing was held for the URL.
 */
export function missReason(read: ObjectRead): ForwardReason {
  return read.objectKey !== undefined ? 'vary-miss' : 'uri-miss';
}

/** A stale entry, validated upstream first; on an origin error, served stale if RFC 5861 §4 allows. */
async function revalidate(
  read: ObjectRead,
  entry: StoredEntry,
  firstSlice: number,
  started: number,
): Promise<Resolved> {
  const claimed = await claimOrWait(read.key, () => freshEntry(read), read.collapseWait, true);
  if (claimed.found !== undefined) {
    await entry.body?.cancel();
    return fromEntry(claimed.found, read.now(), { fwd: 'stale', collapsed: true });
  }
  let outcome: Resolved | HttpError;
  try {
    outcome = await filling(read, claimed.claim, () => fill(read, firstSlice, started, 'stale', entry));
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    outcome = error;
  }
  const failed = outcome instanceof HttpError || (outcome.kind === 'whole' && outcome.status >= 500);
  // RFC 9111 §4.2.4: disconnected (no answer from the next hop, or the next tier had none from
  // the origin), a stale copy may stand in unless forbidden; an answer of the origin's stands,
  // unless stale-if-error (the response's, or the operator's STALE_IF_ERROR) allows it.
  const disconnected = failed && isDisconnected(outcome, read.nextMember);
  const standsIn =
    usableOnError(entry.meta, read.now()) || (disconnected && usableWhenDisconnected(entry.meta, read.now()));
  // Answering the edge's own revalidation, the shield reports the failure: the edge decides with its copy.
  if (failed && !read.noStale && standsIn) {
    if (!(outcome instanceof HttpError)) await discardBody(outcome);
    const fwdStatus = outcome instanceof HttpError ? outcome.upstreamStatus : outcome.report.fwdStatus;
    return fromEntry(entry, read.now(), {
      fwd: 'stale',
      ...(fwdStatus !== undefined ? { fwdStatus } : {}),
      detail: 'stale-if-error',
    });
  }
  if (outcome instanceof HttpError) throw outcome;
  // A disconnection the tier behind reported (its member's detail) is said in this tier's own member too: the tier in
  // front, revalidating its own copy through this one, judges by this tier's member alone (RFC 9111 §4.2.4).
  if (disconnected && outcome.kind === 'whole' && outcome.report.detail === undefined && read.nextMember !== undefined)
    outcome.report.detail = memberDetail(outcome.headers.get('cache-status'), read.nextMember);
  // The held body is needed only when the answer was 304 (fill re-stored it); otherwise let it go.
  if (outcome.report.fwdStatus !== 304) void entry.body?.cancel().catch(() => undefined);
  return outcome;
}

/**
 * Whether a failed fill says this tier is disconnected (RFC 9111 §4.2.4): a disconnection thrown
 * to it, or one the next hop threw, which fill answers as our own 502/504 with the reason in its
 * report (RFC 9211 §2.8 detail), or the next tier's answer naming one in its Cache-Status member.
 */
function isDisconnected(outcome: Resolved | HttpError, nextMember: string | undefined): boolean {
  if (outcome instanceof HttpError) return isDisconnectedDetail(outcome.detail);
  if (outcome.kind !== 'whole') return false;
  return (
    isDisconnectedDetail(outcome.report.detail) ||
    (nextMember !== undefined && isDisconnectedDetail(memberDetail(outcome.headers.get('cache-status'), nextMember)))
  );
}

/** The background half of stale-while-revalidate: a conditional fill, one per isolate at a time. */
async function refreshInBackground(client: ObjectRead, firstSlice: number): Promise<void> {
  if (isFilling(client.key)) return;
  // Not the client's: the refresh outlives its answer, which was the stale copy, and its fill is the cache's own.
  const read: ObjectRead = { ...client, signal: undefined, fillsFor: 'cache' };
  const started = read.now();
  const entry = await lookupLive(read);
  if (entry === undefined) return;
  const leader = claim(read.key);
  try {
    const { resolved, stored } = await fill(read, firstSlice, started, 'stale', entry);
    await discardBody(resolved);
    await stored;
  } catch {
    // A failed refresh leaves the stale entry to be revalidated by the next request.
  } finally {
    leader.release();
  }
}

/** Runs a fill as the leader of `claim`: released once what it stores is stored. */
async function filling(read: ObjectRead, leader: Claim, run: () => Promise<Filled>): Promise<Resolved> {
  try {
    const { resolved, stored } = await run();
    if (leader.collapsed) resolved.report.collapsed = true;
    read.waitUntil(stored.finally(leader.release));
    return resolved;
  } catch (error) {
    leader.release();
    throw error;
  }
}

async function discardBody(resolved: Resolved): Promise<void> {
  if (resolved.kind === 'whole') await resolved.body?.cancel().catch(() => undefined);
  else await cancelPrefetched(resolved);
}

async function freshEntry(read: ObjectRead): Promise<StoredEntry | undefined> {
  const entry = await lookupLive(read);
  if (entry !== undefined && staleUse(entry.meta, read.now(), true) === 'fresh') return entry;
  await entry?.body?.cancel();
  return undefined;
}

async function fromEntry(entry: StoredEntry, now: number, base: CacheStatusParams): Promise<Resolved> {
  const age = currentAge(entry.meta, now);
  const report: CacheStatusParams = { ...base, ttl: remainingFreshness(entry.meta, now) };
  const meta = readManifest(entry.headers);
  const origin = originAt(entry.meta);
  if (meta === undefined)
    return {
      kind: 'whole',
      status: entry.status,
      headers: entry.headers,
      body: entry.body,
      age,
      report,
      originAt: origin,
      entry: entry.meta,
    };
  await entry.body?.cancel();
  return {
    kind: 'sliced',
    meta,
    age,
    report,
    originAt: origin,
    upstreamHeaders: undefined,
    entry: entry.meta,
    prefetched: new Map(),
    inRange: true,
  };
}

/**
 * The object's primary entry (whole or manifest); a purged one, or a manifest that does not read, is deleted and counts
 * as a miss. When the object varies, this request's variant: the first of those it may be served that is stored
 * (vary.ts), `read.key` then that variant's, else its own exact variant's key (where a miss is filled and collapsed).
 */
export async function lookupLive(read: ObjectRead): Promise<StoredEntry | undefined> {
  // Looked up before (a waiter, a refresh): from the object's index again, which may name a variant stored since.
  if (read.objectKey !== undefined) read.key = read.objectKey;
  const entry = await lookup(read.cache, read.key);
  const fields = entry === undefined || read.selecting === undefined ? undefined : indexedFields(entry.headers);
  if (entry === undefined || fields === undefined || read.selecting === undefined) return live(read, entry);
  // The object varies: this request's variant, if stored (its index purged: none is).
  await entry.body?.cancel();
  if (read.purged?.(entry) === true) {
    await forgetObject(read);
    return undefined;
  }
  // The index was found: a miss from here on is this variant's (missReason: RFC 9211 vary-miss).
  read.objectKey = read.key;
  const { served, exact } = variantLookups(read.key, fields, read.selecting, entry.headers);
  for (const key of [...served, ...(exact === undefined ? [] : [exact])]) {
    read.key = key;
    const variant = await live(read, await lookup(read.cache, key));
    if (variant !== undefined) return variant;
  }
  // None stored: a miss, filled (and collapsed) at the request's exact key; or, too long to key by, not stored.
  read.key = exact ?? read.objectKey;
  return undefined;
}

/**
 * `entry` (at `read.key`), unless purged or an unreadable manifest: then deleted, and undefined. Soft-purged, it is kept
 * but stale since the purge (staleSince): what follows revalidates it as it would any expired entry.
 */
async function live(read: ObjectRead, entry: StoredEntry | undefined): Promise<StoredEntry | undefined> {
  if (entry === undefined) return entry;
  if (read.purged?.(entry) !== true && !isUnreadableManifest(entry)) {
    const softAt = read.softPurgedAt?.(entry);
    return softAt === undefined ? entry : { ...entry, meta: staleSince(entry.meta, softAt) };
  }
  await entry.body?.cancel();
  // Awaited, so the delete cannot land after the fill that replaces the entry.
  await forgetObject(read);
  return undefined;
}

/**
 * An entry marked as a manifest whose marker does not read (garbled, or written before the
 * marker carried the pinned version): a miss, never a whole response, whose body would be the
 * manifest's empty one.
 */
function isUnreadableManifest(entry: StoredEntry): boolean {
  return isManifest(entry.headers) && readManifest(entry.headers) === undefined;
}
