// The shield's health answer to the edge's question (worker/health.ts): the shield answers, and whether the origin
// serves with the configured credentials (origin/origin-probe.ts).

import type { Clock } from '../shared/clock/clock.ts';
import type { Config } from '../shared/config/config.ts';
import { VERSION } from '../shared/config/version.ts';
import { canServe, LOCAL_COLO } from '../shared/http/health-report.ts';
import { isolatePurges, type PurgeKv } from '../shared/purge/purge-store.ts';
import type { ShieldCache } from '../shared/tiers/shield-caches.ts';
import { originHealth } from './origin/origin-probe.ts';

/**
 * 503 when the origin cannot serve; never cached; not counted as a request for an object (shield-app.ts).
 * The finding is kept by the shield's `clock`, as its entries are. With it, how this isolate's reads of the purge list
 * went (read when due, as a lookup would: docs/purge.md "When KV cannot be read"), and which cache the shield keeps its
 * copies in (`cache`).
 */
export async function answerShieldHealth(
  config: Config,
  purges: PurgeKv | undefined,
  clock: Clock,
  cache: ShieldCache,
  colo: string = LOCAL_COLO,
): Promise<Response> {
  const now = (): number => clock.now();
  const [health] = await Promise.all([originHealth(config, now), isolatePurges.purgeList(purges, now())]);
  const purgeList = isolatePurges.purgeListState(purges, now());
  const body = { shield: 'ok', ...health, purgeList, cache, version: VERSION, colo };
  return new Response(`${JSON.stringify(body)}\n`, {
    status: canServe(health.origin) ? 200 : 503,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  });
}
