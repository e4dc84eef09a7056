// HTTP origins only: methods other than GET/HEAD go to the origin uncached (through the shield,
// which owns the origin connection), and a successful one invalidates what the edge stored for
// that URL (the shield does the same for its own entry), as RFC 9111 §4.4 asks.

import type { Config } from '../shared/config.ts';
import { passThroughRequestHeaders } from '../shared/headers.ts';
import type { RequestTarget } from '../shared/request-target.ts';
import { type TierCache, remove } from '../shared/tier-cache.ts';
import { askShield } from './shield-client.ts';

export interface PassThroughDeps {
  config: Config;
  shield: Fetcher;
  cache: TierCache;
  waitUntil(promise: Promise<unknown>): void;
}

export async function passThrough(request: Request, target: RequestTarget, key: string, deps: PassThroughDeps): Promise<Response> {
  const response = await askShield(deps.shield, deps.config, {
    method: request.method,
    path: target.path + target.query,
    headers: passThroughRequestHeaders(request.headers),
    body: request.body,
  });
  // §4.4: "A cache MUST invalidate the target URI ... when it receives a non-error status code
  // in response to an unsafe request method".
  if (response.status < 400) deps.waitUntil(remove(deps.cache, key).catch(() => false));
  return response;
}
