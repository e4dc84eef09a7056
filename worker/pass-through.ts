// Methods other than GET and HEAD at the edge: to an HTTP origin uncached, through the shield (which owns the origin
// connection); for S3, 405.

import { originTraits } from '../shared/config/origin-traits.ts';
import { MethodNotAllowed } from '../shared/http/errors.ts';
import { invalidatedUrls } from '../shared/http/invalidation.ts';
import { remove } from '../shared/tier/tier-cache.ts';
import { invalidatedKey } from './edge-address.ts';
import { edgeCache } from './edge-cache.ts';
import type { EdgeRequest } from './env.ts';
import { askShield, forwardedFor } from './shield-client.ts';

/** The methods the edge answers itself, whatever the origin. */
export const CACHED_METHODS = ['GET', 'HEAD', 'OPTIONS'];

/**
 * A successful unsafe method invalidates what the edge stored for that URL and the same-host URLs its Location and
 * Content-Location name, as RFC 9111 §4.4 asks (the shield does the same for its own entries).
 */
export async function passThrough(request: Request, edge: EdgeRequest, url: URL): Promise<Response> {
  const { config } = edge;
  const origin = originTraits(config);
  if (!origin.passesOtherMethods) throw new MethodNotAllowed(request.method, CACHED_METHODS);
  const target = origin.target(url);
  const answer = await askShield(edge.shield, config, {
    method: request.method,
    path: target.path + target.query,
    // Every end-to-end header goes along: none is managed by the tiers on an unsafe method.
    headers: forwardedFor(request, url, []),
    body: request.body,
  });
  // Counted by its length, or as it passes when it declares none (a site answering chunked).
  const response = edge.meter.fetchedAnswer(request.method, answer, true);
  // RFC 9111 §4.4: the target and the same-host Location / Content-Location it names.
  const cache = await edgeCache(config);
  for (const invalidated of invalidatedUrls(new URL(request.url), response.status, response.headers, request.method)) {
    const key = invalidatedKey(invalidated, config);
    if (key !== undefined) edge.meter.hold(remove(cache, key).catch(() => false));
  }
  return response;
}
