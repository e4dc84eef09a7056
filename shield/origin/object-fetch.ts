// The GET or HEAD of an object at the origin, made for its kind (signed for S3, the client's headers for a site) and
// asked again while a busy origin says to; answered raw: the callers decide what a 206, 412 or 416 means.

import type { Config } from '../../shared/config/config.ts';
import { busyWait, isBusy } from '../../shared/http/busy-origin.ts';
import type { RequestTarget } from '../../shared/request/request-target.ts';
import { originUrlFor } from './origin-url.ts';
import { type ForwardedHeaders, s3ObjectRequest } from './s3-request.ts';
import { signS3Request } from './sigv4.ts';
import { timedFetch } from './timed-fetch.ts';

/**
 * GET or HEAD of the object: `forwarded` (Range, If-Match …) is ours; `client` are the client's
 * end-to-end headers (shared/http/headers.ts), sent to an HTTP origin only, never to S3. An S3
 * origin answering busy (503, 429), or any origin busy while we read slices of a version we
 * pinned, is asked again as its Retry-After says, within ORIGIN_TIMEOUT_MS in all
 * (shared/http/busy-origin.ts); past that its busy answer is returned. A site's busy answer to a
 * first request is its answer, passed on at once. `now` signs each try.
 */
export async function fetchObject(
  config: Config,
  target: RequestTarget,
  method: 'GET' | 'HEAD',
  forwarded: ForwardedHeaders,
  now: () => number,
  signal?: AbortSignal,
  client?: Headers,
): Promise<Response> {
  const deadline = Date.now() + config.originTimeoutMs;
  const retriesBusy = config.originKind === 's3' || forwarded['if-match'] !== undefined;
  for (let retry = 1; ; retry++) {
    const response = await fetchOnce(config, target, method, forwarded, now(), signal, client);
    if (!retriesBusy || !isBusy(response.status)) return response;
    const wait = busyWait(retry, response.headers.get('retry-after'), Date.now(), deadline);
    if (wait === undefined) return response;
    await response.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

async function fetchOnce(
  config: Config,
  target: RequestTarget,
  method: 'GET' | 'HEAD',
  forwarded: ForwardedHeaders,
  now: number,
  signal: AbortSignal | undefined,
  client: Headers | undefined,
): Promise<Response> {
  if (config.s3 !== undefined && target.key !== undefined) {
    const unsigned = s3ObjectRequest(config.s3, config.originUrl, target.key, method, forwarded);
    const headers = await signS3Request(unsigned, config.s3, new Date(now));
    // Host is derived by fetch from the URL (and equals the signed one); it cannot be set.
    delete headers.host;
    return timedFetch(unsigned.url, { method, headers }, config.originTimeoutMs, signal);
  }
  // The client's headers, then ours on top (the tiers' own Range and conditions, never the client's).
  const headers = new Headers(client);
  for (const [name, value] of Object.entries(forwarded)) if (typeof value === 'string') headers.set(name, value);
  return timedFetch(originUrlFor(config, target), { method, headers }, config.originTimeoutMs, signal);
}
