// A GET or HEAD a rule bypasses (docs/rules.md), at the shield: never looked up, never stored; the object's own GET or
// HEAD at the origin (signed for S3: nothing else ever is), with the Range and conditions the edge passed on, and its
// answer sent back as the origin's kind lets it pass (origin/origin.ts `bypassAnswer`: S3's error documents never do,
// a site's answers always do).

import { TIER_MANAGED } from '../shared/http/headers.ts';
import type { RequestTarget } from '../shared/request/request-target.ts';
import { ruleDetail } from '../shared/rules/rule-freshness.ts';
import { withTierReport } from '../shared/tier/tier-headers.ts';
import type { ShieldRequest } from './env.ts';
import type { Origin } from './origin/origin.ts';
import type { ForwardedHeaders } from './origin/s3-request.ts';

/** The origin's answer to `request`, bypassed by `rule`; `client`: a site's end-to-end headers, all of them. */
export async function bypassed(
  request: Request,
  shield: ShieldRequest,
  origin: Origin,
  target: RequestTarget,
  rule: string,
  client: Headers | undefined,
  started: number,
): Promise<Response> {
  const method = request.method === 'HEAD' ? 'HEAD' : 'GET';
  const forwarded: ForwardedHeaders = {};
  for (const name of TIER_MANAGED) {
    const value = request.headers.get(name);
    if (value !== null && name !== 'if-range') forwarded[name as keyof ForwardedHeaders] = value;
  }
  const fetched = await origin.fetch(target, method, forwarded, { signal: request.signal, client });
  const answer = await origin.bypassAnswer(fetched);
  const counted = shield.meter.fetchedAnswer(method, answer, true);
  return withTierReport(counted, 'shield', { fwd: 'bypass', detail: ruleDetail(rule) }, Date.now() - started);
}
