// The origin as the shield's next hop of what it forwards as it came (shared/tier/ports.ts HopCalls, for
// shared/tier/bypass.ts and pass-through.ts), over the Origin of either kind: what passes of a bypassed answer, and
// whether other methods are taken at all, is the kind's (origin.ts `bypassAnswer`, `passThrough`).

import { forwardedRequestHeaders, TIER_MANAGED } from '../../shared/http/headers.ts';
import type { HopCalls } from '../../shared/tier/ports.ts';
import type { Origin } from './origin.ts';
import type { ForwardedHeaders } from './s3-request.ts';

/**
 * `origin` as a next hop. A bypassed GET or HEAD is the object's own GET or HEAD there (signed for S3: nothing else
 * ever is) with the Range and conditions the edge passed on and, for a site, every end-to-end header; its answer as
 * the kind lets it pass (S3's error documents never do, a site's answers always do).
 */
export function originCalls(origin: Origin): HopCalls {
  return {
    async bypass({ request, target }) {
      const method = request.method === 'HEAD' ? 'HEAD' : 'GET';
      const forwarded: ForwardedHeaders = {};
      for (const name of TIER_MANAGED) {
        const value = request.headers.get(name);
        if (value !== null && name !== 'if-range') forwarded[name as keyof ForwardedHeaders] = value;
      }
      const client = origin.traits.forwardsClientHeaders ? forwardedRequestHeaders(request.headers) : undefined;
      const fetched = await origin.fetch(target, method, forwarded, { signal: request.signal, client });
      return origin.bypassAnswer(fetched);
    },
    passThrough: ({ request, target }) => origin.passThrough(target, request),
  };
}
