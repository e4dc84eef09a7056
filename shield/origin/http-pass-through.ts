// Methods other than GET/HEAD for a plain HTTP origin: forwarded as they came (minus per-hop
// headers and the tiers' own), answered as the origin answered. Never cached.

import type { Config } from '../../shared/config/config.ts';
import { forwardedRequestHeaders, originResponseHeaders } from '../../shared/http/headers.ts';
import type { RequestTarget } from '../../shared/request/request-target.ts';
import { responseAsIs } from '../../shared/streams/response-as-is.ts';
import { originUrlFor } from './origin-url.ts';
import { timedFetch } from './timed-fetch.ts';

export async function passThroughToHttp(config: Config, target: RequestTarget, request: Request): Promise<Response> {
  const init: RequestInit = { method: request.method, headers: forwardedRequestHeaders(request.headers) };
  if (request.body !== null) init.body = request.body;
  const response = await timedFetch(originUrlFor(config, target), init, config.originTimeoutMs);
  return responseAsIs(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers: originResponseHeaders(response.headers),
  });
}
