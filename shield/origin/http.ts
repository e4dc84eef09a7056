// A plain HTTP(S) origin (any static web server): unsigned, path and query forwarded.

import type { Config } from '../../shared/config.ts';
import { originResponseHeaders, passThroughRequestHeaders } from '../../shared/headers.ts';
import type { ReadMethod } from '../../shared/read-through.ts';
import type { RequestTarget } from '../../shared/request-target.ts';
import { httpFailure } from './origin-errors.ts';
import { originFetch } from './origin-fetch.ts';

/** GET/HEAD: nothing from the client is forwarded, so every client gets the same object. */
export async function fetchHttpObject(config: Config, target: RequestTarget, method: ReadMethod): Promise<Response> {
  const response = await originFetch(originUrlFor(config, target), { method }, config.originTimeoutMs);
  if (response.status !== 200) {
    await response.body?.cancel();
    throw httpFailure(response.status);
  }
  return new Response(response.body, { status: 200, headers: originResponseHeaders(response.headers) });
}

/** Any other method: forwarded as it came (minus credentials and per-hop headers), answered as the origin answered. */
export async function passThroughToHttp(config: Config, target: RequestTarget, request: Request): Promise<Response> {
  const init: RequestInit = { method: request.method, headers: passThroughRequestHeaders(request.headers) };
  if (request.body !== null) init.body = request.body;
  const response = await originFetch(originUrlFor(config, target), init, config.originTimeoutMs);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: originResponseHeaders(response.headers) });
}

function originUrlFor(config: Config, target: RequestTarget): URL {
  const base = config.originUrl.pathname.replace(/\/+$/, '');
  return new URL(`${config.originUrl.origin}${base}${target.path}${target.query}`);
}
