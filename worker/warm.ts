// POST /__tiercache/warm (docs/warming.md): the objects a request names (its URLs, and its prefixes expanded from a
// playlist or a list of names) read through the shield, and with "both" through this location's edge too, so that the
// first client to ask for one is answered from the cache. The operator's, with purge's token; paced and bounded
// (shared/warm/warm-pacing.ts): each call warms a part of the list and answers where the next one starts.

import { purgeAdmission } from '../shared/admission/tier-credentials.ts';
import { originTraits } from '../shared/config/origin-traits.ts';
import { BadRequest, Forbidden, Unauthorized } from '../shared/http/errors.ts';
import { tierLocation } from '../shared/http/health-report.ts';
import { isolatePurges } from '../shared/purge/purge-store.ts';
import { SHIELD_WARM_COST, WARM_CONCURRENCY, WarmLedger, warmPaced } from '../shared/warm/warm-pacing.ts';
import { WarmTally } from '../shared/warm/warm-report.ts';
import { parseWarmBody, WARM_BODY_LIMIT } from '../shared/warm/warm-request.ts';
import type { EdgeRequest } from './env.ts';
import { readBody } from './purge.ts';
import { warmList } from './warm-list.ts';
import { playlistReader, warmTarget } from './warm-tiers.ts';

/**
 * Checks purge's bearer token, parses the body, makes the request's list (its playlists read), warms what of it this
 * call may from `from` on, and answers the report: what each tier did, what was skipped, where the next call starts.
 * Only the warm's own mistakes are 4xx; an object that cannot be warmed is a line of the report, never an error.
 */
export async function warm(request: Request, edge: EdgeRequest): Promise<Response> {
  const { config } = edge;
  const admission = purgeAdmission(request.headers.get('authorization'), config.purgeToken);
  if (admission === 'disabled')
    throw new Forbidden('warm is disabled: it takes the purge token; set the PURGE_TOKEN secret to enable it');
  // RFC 6750 §3: a request without valid credentials is answered 401 with WWW-Authenticate.
  if (admission === 'unauthorized')
    throw new Unauthorized('warm needs Authorization: Bearer <PURGE_TOKEN>', 'Bearer realm="tiercache warm"');
  const parsed = parseWarmBody(await readBody(request, WARM_BODY_LIMIT));
  if (!parsed.ok) throw new BadRequest(parsed.reason);
  const { tier, from } = parsed.request;
  const ledger = WarmLedger.forCall(config.slicing.subrequests, Date.now(), Date.now);
  const call = {
    edge,
    tier,
    ledger,
    purges: await isolatePurges.purgeList(edge.purges, edge.clock.now()),
    tally: new WarmTally(),
  };
  const scope = { call: new URL(request.url), hosts: originTraits(config).namedHosts };
  const list = await warmList(parsed.request, scope, config, {
    playlist: playlistReader(call),
    ledger,
    tier: tier === 'shield' ? 'shield' : 'edge',
  });
  ledger.listMade();
  const total = list.targets.length;
  if (from > total)
    throw new BadRequest(`expected "from" to be at most ${total}, the length of this request's list; got ${from}`);
  const next = await warmPaced(
    from,
    total,
    WARM_CONCURRENCY[tier],
    () => ledger.mayStart(SHIELD_WARM_COST),
    (index) => {
      const target = list.targets[index];
      return target === undefined ? Promise.resolve('done') : warmTarget(target, call);
    },
  );
  const report = call.tally.report({
    tier,
    ...(tier === 'both' ? { location: tierLocation(request) } : {}),
    total,
    from,
    next: next >= total ? null : next,
    playlists: list.playlists,
    subrequests: ledger.used,
  });
  return Response.json(report, { headers: { 'cache-control': 'no-store' } });
}
