// One request to the origin, whichever kind it is, answered raw: the callers decide what a
// 206, 412 or 416 means. Errors are mapped here, once, to what a client may see.

import type { Config } from '../../shared/config/config.ts';
import { busyWait, isBusy } from '../../shared/http/busy-origin.ts';
import { type HttpError, OriginBusy } from '../../shared/http/errors.ts';
import { exposeS3CacheTag, originResponseHeaders, S3_RESPONSE_HEADERS } from '../../shared/http/headers.ts';

import type { RequestTarget } from '../../shared/request/request-target.ts';
import { httpFailure, s3ErrorCode, s3Failure } from './origin-errors.ts';
import { originFetch, readErrorBody } from './origin-fetch.ts';
import type { ForwardedHeaders } from './s3-request.ts';
import { s3ObjectRequest } from './s3-request.ts';
import { signS3Request } from './sigv4.ts';

/**
 * GET or HEAD of the object: `forwarded` (Range, If-Match …) is ours; `client` are the client's
 * end-to-end headers (shared/http/headers.ts), sent to an HTTP origin only, never to S3. An S3
 * origin answering busy (503, 429), or any origin busy while we read slices of a version we
 * pinned, is asked again as its Retry-After says, within ORIGIN_TIMEOUT_MS in all
 * (shared/http/busy-origin.ts); past that its busy answer is returned. A site's busy answer to a
 * first request is its answer, passed on at once. `now` signs each try.
 */
export async function fetchOrigin(
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
    return originFetch(unsigned.url, { method, headers }, config.originTimeoutMs, signal);
  }
  // The client's headers, then ours on top (the tiers' own Range and conditions, never the client's).
  const headers = new Headers(client);
  for (const [name, value] of Object.entries(forwarded)) if (typeof value === 'string') headers.set(name, value);
  return originFetch(originUrlFor(config, target), { method, headers }, config.originTimeoutMs, signal);
}

/** The error a client sees for an origin answer we cannot use; consumes the body. */
export async function originFailure(config: Config, response: Response): Promise<HttpError> {
  if (isBusy(response.status)) {
    // Still busy after the retries: the client may try again when the origin said to.
    await response.body?.cancel();
    const retryAfter = response.headers.get('retry-after');
    return new OriginBusy(retryAfter).from(response.status);
  }
  if (config.originKind === 's3') return s3Failure(response.status, s3ErrorCode(await readErrorBody(response)));
  await response.body?.cancel();
  return httpFailure(response.status);
}

/** The origin's headers worth keeping: S3's representation headers, or a site's minus per-hop ones. */
export function keptHeaders(config: Config, headers: Headers): Headers {
  if (config.originKind !== 's3') return originResponseHeaders(headers);
  return exposeS3CacheTag(originResponseHeaders(headers, S3_RESPONSE_HEADERS));
}

export function originUrlFor(config: Config, target: RequestTarget): URL {
  const base = config.originUrl.pathname.replace(/\/+$/, '');
  return new URL(`${config.originUrl.origin}${base}${target.path}${target.query}`);
}
