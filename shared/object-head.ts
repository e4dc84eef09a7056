// HEAD at either tier: the same headers GET would send, without a body. Answered from what the
// tier holds (a whole response, or a sliced object's manifest, which knows the full length);
// otherwise asked upstream as a HEAD and not stored: a HEAD must not cost a whole download.
// Range is ignored: RFC 9110 §14.2 defines range handling for GET only.

import { HttpError } from './http-error.ts';
import { readManifest } from './object-meta.ts';
import { type ObjectRead, lookupLive } from './object-read.ts';
import { currentAge, remainingFreshness } from './stored-entry.ts';
import { type Tier, reportTier } from './tier-headers.ts';

export async function headObject(read: ObjectRead, tier: Tier, started: number): Promise<Response> {
  const entry = await lookupLive(read);
  await entry?.body?.cancel();
  const now = read.now();
  if (entry !== undefined && remainingFreshness(entry.meta, now) > 0) {
    const meta = readManifest(entry.headers);
    const headers = meta === undefined ? new Headers(entry.headers) : new Headers(meta.headers);
    if (meta !== undefined) headers.set('content-length', String(meta.size));
    if (entry.status === 200) headers.set('accept-ranges', 'bytes');
    reportTier(headers, tier, { hit: true, ttl: remainingFreshness(entry.meta, now) }, read.now() - started);
    headers.set('age', String(Math.floor(currentAge(entry.meta, now))));
    return new Response(null, { status: entry.status, headers });
  }
  let response: Response;
  try {
    response = await read.upstream.head(read.signal);
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    response = error.toResponse('HEAD');
  }
  const headers = new Headers(response.headers);
  if (response.status === 200) headers.set('accept-ranges', 'bytes');
  reportTier(headers, tier, { fwd: entry === undefined ? 'uri-miss' : 'stale' }, read.now() - started);
  if (!headers.has('age')) headers.set('age', '0');
  return new Response(null, { status: response.status, headers });
}
