// A GET or HEAD a rule bypasses (docs/rules.md), at either tier: never looked up, never stored, here or in a layer in
// front (the edge's memory layer, the shield's Workers Cache); asked of the next hop as it came (what the hop sends on
// of it, and what of its answer may pass, is the hop's: HopCalls.bypass), and its answer sent back counted and
// reported as `fwd=bypass` with the rule's name. The next tier's own rules bypass it there too.

import { ruleDetail } from '../rules/rule-freshness.ts';
import type { ForwardingTier, HopCall } from './ports.ts';
import { withTierReport } from './tier-headers.ts';

/** The next hop's answer to `call`, bypassed by `rule`; `started`: when this tier took the request (Date.now). */
export async function bypassed(call: HopCall, rule: string, tier: ForwardingTier, started: number): Promise<Response> {
  const answer = await tier.hop.bypass(call);
  // Counted by its length, or as it passes when it declares none; the next hop fetched it from the origin.
  const counted = tier.meter.fetchedAnswer(call.request.method, answer, true);
  return withTierReport(counted, tier.name, { fwd: 'bypass', detail: ruleDetail(rule) }, Date.now() - started);
}
