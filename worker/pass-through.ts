// HTTP origins only: methods other than GET/HEAD go to the origin uncached (through the shield,
// which owns the origin connection), and a successful one invalidates what the edge stored for
// that URL and the same-host URLs its Location and Content-Location name (the shield does the
// same for its own entries), as RFC 9111 §4.4 asks.

import type { Config } from '../shared/config/config.ts';
import { invalidatedUrls } from '../shared/http/invalidation.ts';
import type { RequestTarget } from '../shared/target/request-target.ts';
import { type TierCache, remove } from '../shared/tier/tier-cache.ts';
import { askShield } from './shield-client.ts';

export interface PassThroughDeps {
  config: Config;
  shield: Fetcher;
  cache: TierCache;
  waitUntil(promise: Promise<unknown>): void;
}

/** `headers`: the client's end-to-end request headers, forwarding fields added (worker/index.ts). */
export async function passThrough(request: Request, headers: Headers, target: RequestTarget, keyOf: (url: URL) => string | undefined, deps: PassThroughDeps): Promise<Response> {
  const response = await askShield(deps.shield, deps.config, {
    method: request.method,
    path: target.path + target.query,
    headers,
    body: request.body,
  });
  // RFC 9111 §4.4: the target and the same-host Location / Content-Location it names.
  for (const url of invalidatedUrls(new URL(request.url), response.status, response.headers, request.method)) {
    const key = keyOf(url);
    if (key !== undefined) deps.waitUntil(remove(deps.cache, key).catch(() => false));
  }
  return response;
}
