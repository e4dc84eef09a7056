// The origin as the shield's next hop (shared/tier/next-hop.ts), over the Origin of either kind: the read path's asks
// (origin-upstream.ts), what the shield forwards as it came (for shared/tier/bypass.ts and pass-through.ts: what passes
// of a bypassed answer, and whether other methods are taken at all, is the kind's: origin.ts `bypassAnswer`,
// `passThrough`), a purge (the origin keeps nothing) and its health (origin-probe.ts).

import { forwardedRequestHeaders, TIER_MANAGED } from '../../shared/http/headers.ts';
import type { ShieldHealth } from '../../shared/http/health-report.ts';
import { originHealing } from '../../shared/tier/healing-upstream.ts';
import type { NextHop } from '../../shared/tier/next-hop.ts';
import type { HopCalls } from '../../shared/tier/ports.ts';
import type { Origin } from './origin.ts';
import { originHealth } from './origin-probe.ts';
import { originUpstream } from './origin-upstream.ts';
import type { ForwardedHeaders } from './s3-request.ts';

/**
 * `origin` as the shield's next hop: every answer came from it, its bodies heal within ORIGIN_IDLE_TIMEOUT_MS and
 * every attempt; its health is probed at most once per window, on `clock` (the shield's).
 */
export function originHop(origin: Origin, clock: () => number): NextHop<ShieldHealth> {
  const { config } = origin;
  return {
    ...originCalls(origin),
    member: undefined,
    object: ({ target, client }) => originUpstream(config, target, Date.now, client),
    healing: originHealing(config.originIdleTimeoutMs),
    fromOrigin: () => true,
    // Nothing is ever sent to the origin for a purge: it keeps no copies.
    purge: async () => undefined,
    health: () => originHealth(config, clock),
  };
}

/**
 * What the shield forwards as it came. A bypassed GET or HEAD is the object's own GET or HEAD there (signed for S3: nothing else
 * ever is) with the Range and conditions the edge passed on and, for a site, every end-to-end header; its answer as
 * the kind lets it pass (S3's error documents never do, a site's answers always do).
 */
function originCalls(origin: Origin): HopCalls {
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
