// GET/HEAD of one object from an S3-compatible origin: build the request (s3-request.ts),
// sign it (sigv4.ts), fetch it, and keep only the representation headers from the answer.

import type { Config, S3Config } from '../../shared/config.ts';
import { S3_RESPONSE_HEADERS, originResponseHeaders } from '../../shared/headers.ts';
import type { ReadMethod } from '../../shared/read-through.ts';
import { s3ErrorCode, s3Failure } from './origin-errors.ts';
import { originFetch, readErrorBody } from './origin-fetch.ts';
import { s3ObjectRequest } from './s3-request.ts';
import { signS3Request } from './sigv4.ts';

export async function fetchS3Object(config: Config, s3: S3Config, key: string, method: ReadMethod, now: number): Promise<Response> {
  const unsigned = s3ObjectRequest(s3, config.originUrl, key, method, {});
  const headers = await signS3Request(unsigned, s3, new Date(now));
  // Host is derived by fetch from the URL (and equals the signed one); it cannot be set.
  delete headers.host;
  const response = await originFetch(unsigned.url, { method, headers }, config.originTimeoutMs);
  if (response.status !== 200) {
    // HEAD answers carry no body, so no error code: the status alone must do.
    const code = s3ErrorCode(await readErrorBody(response));
    throw s3Failure(response.status, code);
  }
  return new Response(response.body, { status: 200, headers: originResponseHeaders(response.headers, S3_RESPONSE_HEADERS) });
}
