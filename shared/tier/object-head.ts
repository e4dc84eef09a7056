// HEAD at either tier: the same headers GET would send, without a body.

import { type CacheStatusParams, memberDetail } from '../http/cache-status.ts';
import { HttpError, isDisconnectedDetail, NotStored } from '../http/errors.ts';
import { staleUse, usableOnError, usableWhenDisconnected } from '../http/stale.ts';
import { readManifest } from '../slices/object-meta.ts';
import { currentAge, remainingFreshness } from '../store/stored-entry.ts';
import { lookupLive, missReason } from './object-read.ts';
import type { ObjectRead } from './ports.ts';
import type { StoredEntry } from './tier-cache.ts';
import { reportTier, type Tier } from './tier-headers.ts';

/**
 * Answered from what the tier holds (a whole response, or a sliced object's manifest, which knows the full length);
 * otherwise asked upstream as a HEAD and not stored: a HEAD must not cost a whole download. Range is ignored: RFC 9110
 * §14.2 defines range handling for GET only.
 */
export async function headObject(read: ObjectRead, tier: Tier, started: number): Promise<Response> {
  const entry = await lookupLive(read);
  await entry?.body?.cancel();
  const now = read.now();
  if (
    entry !== undefined &&
    (remainingFreshness(entry.meta, now) > 0 || staleUse(entry.meta, now, read.noStale) === 'serve-stale-and-refresh')
  ) {
    // Fresh, or stale within its stale-while-revalidate window (the next GET refreshes it).
    return fromEntry(
      entry,
      read,
      tier,
      started,
      remainingFreshness(entry.meta, now) > 0 ? { hit: true } : { hit: true, detail: 'stale-while-revalidate' },
    );
  }
  if (read.onlyIfCached) throw new NotStored();
  let response: Response;
  let detail: string | undefined;
  let fwdStatus: number | undefined;
  try {
    response = await read.upstream.head(read.signal);
    // The next tier's own answer for a disconnection says so in its member (object-fill.ts).
    detail =
      read.nextMember === undefined ? undefined : memberDetail(response.headers.get('cache-status'), read.nextMember);
    fwdStatus = response.status;
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    response = error.toResponse('HEAD');
    detail = error.detail;
    fwdStatus = error.upstreamStatus;
  }
  // RFC 9111 §4.2.4: HEAD uses a stale copy when GET would (disconnected, or stale-if-error).
  const disconnected = response.status >= 500 && isDisconnectedDetail(detail);
  if (
    response.status >= 500 &&
    entry !== undefined &&
    !read.noStale &&
    (usableOnError(entry.meta, read.now()) || (disconnected && usableWhenDisconnected(entry.meta, read.now())))
  ) {
    // RFC 9211 §2.2: it went forward first, so `fwd=stale` with the next hop's status (§2.3
    // fwd-status; none when no answer came), not a hit: as GET reports it (object-read.ts).
    return fromEntry(entry, read, tier, started, {
      fwd: 'stale',
      ...(fwdStatus !== undefined ? { fwdStatus } : {}),
      detail: 'stale-if-error',
    });
  }
  const headers = new Headers(response.headers);
  if (response.status === 200) headers.set('accept-ranges', 'bytes');
  // RFC 9211 §2.2: nothing held (uri-miss, or vary-miss: the object's index without this variant), or stale.
  const report: CacheStatusParams = { fwd: entry === undefined ? missReason(read) : 'stale' };
  reportTier(
    headers,
    tier,
    disconnected && detail !== undefined && read.nextMember === undefined ? { ...report, detail } : report,
    read.now() - started,
  );
  if (!headers.has('age')) headers.set('age', '0');
  return new Response(null, { status: response.status, headers });
}

/** The HEAD answer from a stored entry: the headers its GET would carry, reported as `base` with its ttl. */
function fromEntry(
  entry: StoredEntry,
  read: ObjectRead,
  tier: Tier,
  started: number,
  base: CacheStatusParams,
): Response {
  const now = read.now();
  const meta = readManifest(entry.headers);
  const headers = meta === undefined ? new Headers(entry.headers) : new Headers(meta.headers);
  if (meta !== undefined) headers.set('content-length', String(meta.size));
  if (entry.status === 200) headers.set('accept-ranges', 'bytes');
  const ttl = remainingFreshness(entry.meta, now);
  reportTier(headers, tier, { ...base, ttl }, read.now() - started);
  headers.set('age', String(Math.floor(currentAge(entry.meta, now))));
  return new Response(null, { status: entry.status, headers });
}
