// Warming one target of a warm's list (worker/warm.ts): at the shield, one call over the binding (the shield reads it
// through its read path in an invocation of its own: shield/warm-object.ts); warming both tiers, then through this
// edge's own read path too (shared/tier/warm-read.ts), a hit at the shield by then, paid from the call's budget once
// the object's length says what its read costs. And a playlist read through the tier the warm reaches first.

import { originTraits } from '../shared/config/origin-traits.ts';
import { HOST_HEADER, PURGED_AT_HEADER, SOFT_PURGED_AT_HEADER } from '../shared/hop/hop-fields.ts';
import type { ObjectWarmed } from '../shared/hop/warm-protocol.ts';
import { RequestMeter } from '../shared/observe/request-meter.ts';
import { type PurgeList, purgeWatch } from '../shared/purge/purge-rules.ts';
import { softPurgeWatch } from '../shared/purge/soft-purge.ts';
import { warmRead } from '../shared/tier/warm-read.ts';
import { edgeReadCost, type Paced, SHIELD_WARM_COST, type WarmLedger } from '../shared/warm/warm-pacing.ts';
import type { WarmTally } from '../shared/warm/warm-report.ts';
import type { WarmTier } from '../shared/warm/warm-request.ts';
import { answerObject } from './edge-tier.ts';
import type { EdgeRequest } from './env.ts';
import { readAtShield, warmAtShield } from './shield-client.ts';
import type { ObjectTarget, PlaylistRead, WarmTarget } from './warm-list.ts';

/**
 * What a site's variant is chosen by on a warm's reads: the codings browsers and players accept, so that the copy warmed
 * is the one they are served (S3 gets no client header: the shield signs its own request).
 */
const WARM_ACCEPT_ENCODING = 'gzip, deflate, br';

/** What one call warms with: the edge, the tiers, the purges its copies are judged by, its budget and its tally. */
export interface WarmCall {
  edge: EdgeRequest;
  tier: WarmTier;
  purges: PurgeList;
  ledger: WarmLedger;
  tally: WarmTally;
}

/**
 * Warms `target` (the shield first; with "both", this edge after), tallied as it goes: `deferred` when its next part
 * does not fit the call's budget (nothing of it started), `done` otherwise. Never rejects.
 */
export async function warmTarget(target: WarmTarget, call: WarmCall): Promise<Paced> {
  const { tally, tier, ledger } = call;
  if (target.kind === 'settled') {
    const { settled } = target;
    if ('skip' in settled) tally.skip(target.url, settled.skip);
    else tally.warmed(target.url, settled.tier, settled.failed);
    return 'done';
  }
  const { edge } = call;
  const href = target.url.href;
  const forShield = ledger.pay(SHIELD_WARM_COST);
  if (forShield === 'later') return 'deferred';
  if (forShield === 'never') {
    tally.warmed(href, 'shield', unpaid(SHIELD_WARM_COST, ledger));
    return 'done';
  }
  const atShield = await warmAtShield(edge.shield, edge.config, { path: target.path }, hopFields(target, call));
  const shieldOnly = tier === 'shield' || atShield.outcome === 'failed' || atShield.outcome === 'skipped';
  tally.warmed(href, 'shield', atShield, shieldOnly);
  if (shieldOnly) return 'done';
  // What this edge's read costs, from the object's length (the shield's answer says it): a slice read each.
  const cost = edgeReadCost(atShield.size ?? 0, edge.config.slicing.sliceSize);
  const forEdge = ledger.pay(cost, SHIELD_WARM_COST);
  if (forEdge === 'later') return 'deferred';
  tally.warmed(href, 'edge', forEdge === 'never' ? unpaid(cost, ledger) : await warmAtEdge(target, edge));
  return 'done';
}

/** A part no call of this warm can pay for: a failure saying so (a larger SUBREQUEST_LIMIT, or fewer playlists). */
function unpaid(cost: number, ledger: WarmLedger): ObjectWarmed {
  return {
    outcome: 'failed',
    status: 0,
    bytes: 0,
    originBytes: 0,
    reason: `its read costs ${cost} subrequests, more than a call has for it (${ledger.forTargets} of SUBREQUEST_LIMIT, less the playlists)`,
  };
}

/** A playlist's read through the tier a warm reaches first: the shield's whole answer, or this edge's own read. */
export function playlistReader(call: Pick<WarmCall, 'edge' | 'tier' | 'purges'>): PlaylistRead {
  const { edge } = call;
  if (call.tier === 'shield')
    return (target) => readAtShield(edge.shield, edge.config, target.path, hopFields(target, call));
  return (target) => edgeRead(target, edge).get();
}

/** `target` read through this edge's read path, as a GET from a client would be, drained and judged. */
function warmAtEdge(target: ObjectTarget, edge: EdgeRequest): Promise<ObjectWarmed> {
  const read = edgeRead(target, edge);
  return warmRead({
    tier: 'edge',
    get: read.get,
    head: read.head,
    settled: () => read.meter.settled(),
    originBytes: () => read.meter.bytesFromOrigin,
  });
}

/**
 * This edge's GET and HEAD of `target` through its tier (the memory layer and the client's rules are the client's,
 * not the cache's), with a meter of their own: what they fetched, and what they left running, kept alive by the call.
 */
function edgeRead(
  target: ObjectTarget,
  edge: EdgeRequest,
): {
  meter: RequestMeter;
  get(): Promise<Response>;
  head(): Promise<Response>;
} {
  const meter = new RequestMeter(Date.now(), (work) => edge.meter.hold(work));
  const own: EdgeRequest = { ...edge, meter };
  const { url } = target;
  const headers = { 'accept-encoding': WARM_ACCEPT_ENCODING };
  const read = (method: 'GET' | 'HEAD'): Promise<Response> =>
    answerObject(new Request(url, { method, headers }), own, { started: Date.now(), now: edge.clock.now(), url });
  return { meter, get: () => read('GET'), head: () => read('HEAD') };
}

/**
 * The fields a read of `target` carries to the shield, as the edge's own reads do (shield-client.ts): its host (its
 * bucket), the newest purges this edge applied to it (so the shield fetches again what they removed, and never calls a
 * purged copy cached), the Accept-Encoding a site's variant is chosen by.
 */
function hopFields(target: ObjectTarget, call: Pick<WarmCall, 'edge' | 'purges'>): Headers {
  const headers = new Headers({ [HOST_HEADER]: target.url.hostname });
  const purgedAt = purgeWatch(call.purges, target.path).watermark();
  if (purgedAt !== undefined) headers.set(PURGED_AT_HEADER, String(Math.ceil(purgedAt)));
  const softAt = softPurgeWatch(call.purges, target.path).watermark();
  if (softAt !== undefined) headers.set(SOFT_PURGED_AT_HEADER, String(Math.ceil(softAt)));
  if (originTraits(call.edge.config).forwardsClientHeaders) headers.set('accept-encoding', WARM_ACCEPT_ENCODING);
  return headers;
}
