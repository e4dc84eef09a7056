// Methods other than GET/HEAD: for a site, forwarded uncached (origin/site-origin.ts), a successful one removing
// what the shield stored for that URL and the same-host URLs it names (RFC 9111 §4.4, as the edge does); for S3, 405.

import { MethodNotAllowed } from '../shared/http/errors.ts';
import { invalidatedUrls } from '../shared/http/invalidation.ts';
import { remove } from '../shared/tier/tier-cache.ts';
import type { ShieldRequest } from './env.ts';
import { READ_METHODS } from './origin/origin.ts';
import { originOf } from './origin/origin-of.ts';
import { originRelative, originUrlFor } from './origin/origin-url.ts';
import { shieldCache, shieldKey } from './shield-cache.ts';

export async function passThrough(request: Request, shield: ShieldRequest, url: URL): Promise<Response> {
  const { config, meter } = shield;
  const origin = originOf(config);
  if (!origin.traits.passesOtherMethods) throw new MethodNotAllowed(request.method, READ_METHODS);
  const target = origin.traits.target(url);
  // Counted by its length, or as it passes when it declares none (a site answering chunked).
  const response = meter.fetchedAnswer(request.method, await origin.passThrough(target, request), true);
  // RFC 9111 §4.4: a non-error answer to an unsafe method invalidates the stored URL, and the
  // Location / Content-Location URLs it names on the origin's own host.
  const cache = await shieldCache();
  for (const changed of invalidatedUrls(
    originUrlFor(config, target),
    response.status,
    response.headers,
    request.method,
  )) {
    const invalidated = origin.traits.target(changed);
    meter.hold(
      remove(cache, shieldKey(origin, { ...invalidated, path: originRelative(config, invalidated.path) })).catch(
        () => false,
      ),
    );
  }
  return response;
}
