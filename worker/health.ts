// GET /__tiercache/health (docs/operating.md): whether the edge runs, whether the shield answered in time, and what
// the shield found of the origin (shared/http/health-report.ts). No token, nothing sensitive, never cached.

import { VERSION } from '../shared/config/version.ts';
import { canServe, LOCAL_COLO } from '../shared/http/health-report.ts';
import { edgeTier } from './edge-tier.ts';
import type { EdgeRequest } from './env.ts';
import { shieldHop } from './shield-client.ts';

/**
 * 200 when the origin serves with the configured credentials, 503 when it cannot or the shield does not answer: a
 * monitor that reads only the status is told the truth. With it, how each tier's reads of the purge list went (an
 * isolate that cannot read KV still serves: docs/purge.md "When KV cannot be read"), read on the edge's clock.
 */
export async function answerHealth(edge: EdgeRequest, method: string, colo: string = LOCAL_COLO): Promise<Response> {
  const started = Date.now();
  const { next, purgeList } = await edgeTier(edge).health(shieldHop(edge.shield, edge.config));
  const { shield, health } = next;
  const serving = health !== undefined && canServe(health.origin);
  const body = {
    status: serving ? 'ok' : 'failing',
    edge: 'ok',
    shield,
    origin: health?.origin ?? 'unknown',
    originDetail: health?.detail ?? 'the shield did not answer, so the origin was not asked',
    ...(health === undefined ? {} : { probe: health.probe, probeMs: health.probeMs, age: health.age }),
    // Which cache the shield keeps its copies in (shared/tiers/shield-caches.ts), as it said.
    ...(health?.cache === undefined ? {} : { cache: health.cache }),
    // Each endpoint of an origin ORIGIN_URL lists several of, as the shield saw it (its circuit, its first bytes).
    ...(health?.endpoints === undefined ? {} : { originEndpoints: health.endpoints }),
    ...(health?.transfers === undefined ? {} : { originTransfers: health.transfers }),
    purgeList: {
      edge: purgeList,
      ...(health?.purgeList === undefined ? {} : { shield: health.purgeList }),
    },
    shieldMs: Date.now() - started,
    version: VERSION,
    // Where each tier ran (tierLocation): what `npm run verify` compares between two runs.
    colo,
    ...(health?.colo === undefined ? {} : { shieldColo: health.colo }),
  };
  const text = `${JSON.stringify(body)}\n`;
  return new Response(method === 'HEAD' ? null : text, {
    status: serving ? 200 : 503,
    headers: {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      'content-length': String(new TextEncoder().encode(text).byteLength),
    },
  });
}
