// A GET or HEAD a rule bypasses (docs/rules.md), at the shield: never looked up, never stored; the object's own GET or
// HEAD at the origin (signed for S3: nothing else ever is), with the Range and conditions the edge passed on, and its
// answer sent back. S3's error documents never pass (origin/origin-errors.ts), a site's answers always do.

import { originResponseHeaders, S3_RESPONSE_HEADERS, TIER_MANAGED } from '../shared/http/headers.ts';
import type { RequestTarget } from '../shared/request/request-target.ts';
import { ruleDetail } from '../shared/rules/rule-freshness.ts';
import { responseAsIs } from '../shared/streams/response-as-is.ts';
import { withTierReport } from '../shared/tier/tier-headers.ts';
import type { ShieldRequest } from './env.ts';
import { fetchObject } from './origin/object-fetch.ts';
import { originFailure } from './origin/origin-errors.ts';
import type { ForwardedHeaders } from './origin/s3-request.ts';

/** S3 answers that are the object (or what a client's Range and conditions make of it), passed on. */
const S3_ANSWERS = new Set([200, 206, 304, 412]);
/** RFC 9110 §15.4.5, §15.5.13: S3 says these with an XML body (412) or none; the client gets none. */
const S3_WITHOUT_CONTENT = new Set([304, 412]);

/** The origin's answer to `request`, bypassed by `rule`; `client`: a site's end-to-end headers, all of them. */
export async function bypassed(
  request: Request,
  shield: ShieldRequest,
  target: RequestTarget,
  rule: string,
  client: Headers | undefined,
  started: number,
): Promise<Response> {
  const { config, meter } = shield;
  const method = request.method === 'HEAD' ? 'HEAD' : 'GET';
  const forwarded: ForwardedHeaders = {};
  for (const name of TIER_MANAGED) {
    const value = request.headers.get(name);
    if (value !== null && name !== 'if-range') forwarded[name as keyof ForwardedHeaders] = value;
  }
  const origin = await fetchObject(config, target, method, forwarded, Date.now, request.signal, client);
  if (config.originKind === 's3' && !S3_ANSWERS.has(origin.status)) throw await originFailure(config, origin);
  const headers = originResponseHeaders(
    origin.headers,
    config.originKind === 's3' ? [...S3_RESPONSE_HEADERS, 'content-range'] : undefined,
  );
  let body = origin.body;
  if (config.originKind === 's3' && S3_WITHOUT_CONTENT.has(origin.status)) {
    await origin.body?.cancel();
    body = null;
    for (const name of ['content-length', 'content-type', 'content-range']) headers.delete(name);
  }
  const answer = responseAsIs(body, { status: origin.status, statusText: origin.statusText, headers });
  const counted = meter.fetchedAnswer(method, answer, true);
  return withTierReport(counted, 'shield', { fwd: 'bypass', detail: ruleDetail(rule) }, Date.now() - started);
}
