// A GET or HEAD a rule bypasses (docs/rules.md): never looked up, never stored, here or in the memory layer; asked of
// the shield as it came (the shield's own rules bypass it there too), and its answer sent back as the origin gave it.

import type { Config } from '../shared/config/config.ts';
import { originTraits } from '../shared/config/origin-traits.ts';
import { HOST_HEADER } from '../shared/hop/hop-fields.ts';
import { TIER_MANAGED } from '../shared/http/headers.ts';
import type { RequestTarget } from '../shared/request/request-target.ts';
import { ruleDetail } from '../shared/rules/rule-freshness.ts';
import { withTierReport } from '../shared/tier/tier-headers.ts';
import type { EdgeRequest } from './env.ts';
import { askShield, forwardedFor } from './shield-client.ts';

/**
 * The shield's answer to `request`, bypassed by `rule`. A site gets every end-to-end header the client sent (its
 * Range and conditions too: nothing is stored to answer them from); S3 only the Range and conditions, which the
 * shield signs into the object's GET or HEAD.
 */
export async function bypassed(
  request: Request,
  edge: EdgeRequest,
  url: URL,
  target: RequestTarget,
  rule: string,
  started: number,
): Promise<Response> {
  const { config } = edge;
  const answer = await askShield(edge.shield, config, {
    method: request.method,
    path: target.path + target.query,
    headers: hopHeaders(request, url, config),
    signal: request.signal,
  });
  // Counted by its length, or as it passes when it declares none; the shield fetched it from the origin.
  const response = edge.meter.fetchedAnswer(request.method, answer, true);
  return withTierReport(response, 'edge', { fwd: 'bypass', detail: ruleDetail(rule) }, Date.now() - started);
}

function hopHeaders(request: Request, url: URL, config: Config): Headers {
  const headers = originTraits(config).forwardsClientHeaders ? forwardedFor(request, url, []) : tierManaged(request);
  headers.set(HOST_HEADER, url.hostname);
  return headers;
}

/** The Range and conditions alone: what the shield signs into an S3 object's GET or HEAD. */
function tierManaged(request: Request): Headers {
  const headers = new Headers();
  for (const name of TIER_MANAGED) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  return headers;
}
