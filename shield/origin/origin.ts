// One request to the origin, whichever kind it is, answered raw: the callers decide what a
// 206, 412 or 416 means. Errors are mapped here, once, to what a client may see.

import type { Config } from '../../shared/config.ts';
import { S3_RESPONSE_HEADERS, exposeS3CacheTag, originResponseHeaders } from '../../shared/headers.ts';
import type { HttpError } from '../../shared/http-error.ts';

import type { RequestTarget } from '../../shared/request-target.ts';
import { httpFailure, s3ErrorCode, s3Failure } from './origin-errors.ts';
import { originFetch, readErrorBody } from './origin-fetch.ts';
import type { ForwardedHeaders } from './s3-request.ts';
import { s3ObjectRequest } from './s3-request.ts';
import { signS3Request } from './sigv4.ts';

/** GET or HEAD of the object, carrying only `forwarded` (Range, If-Match …) from us. */
export async function fetchOrigin(config: Config, target: RequestTarget, method: 'GET' | 'HEAD', forwarded: ForwardedHeaders, now: number): Promise<Response> {
  if (config.s3 !== undefined && target.key !== undefined) {
    const unsigned = s3ObjectRequest(config.s3, config.originUrl, target.key, method, forwarded);
    const headers = await signS3Request(unsigned, config.s3, new Date(now));
    // Host is derived by fetch from the URL (and equals the signed one); it cannot be set.
    delete headers.host;
    return originFetch(unsigned.url, { method, headers }, config.originTimeoutMs);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(forwarded)) if (typeof value === 'string') headers[name] = value;
  return originFetch(originUrlFor(config, target), { method, headers }, config.originTimeoutMs);
}

/** The error a client sees for an origin answer we cannot use; consumes the body. */
export async function originFailure(config: Config, response: Response): Promise<HttpError> {
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
