// The shield's health answer to the edge's question (worker/health.ts): the shield answers, and whether the origin
// serves with the configured credentials (origin/origin-probe.ts).

import type { Config } from '../shared/config/config.ts';
import { VERSION } from '../shared/config/version.ts';
import { canServe } from '../shared/http/health-report.ts';
import { originHealth } from './origin/origin-probe.ts';

/**
 * 503 when the origin cannot serve; never cached; not counted as a request for an object (shield-app.ts).
 * `clockOffset`: how far the test clock is ahead (0 deployed); the finding is kept by that clock.
 */
export async function answerShieldHealth(config: Config, clockOffset: number): Promise<Response> {
  const health = await originHealth(config, () => Date.now() + clockOffset);
  const body = { shield: 'ok', ...health, version: VERSION };
  return new Response(`${JSON.stringify(body)}\n`, {
    status: canServe(health.origin) ? 200 : 503,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  });
}
