// What a GET or HEAD of the edge names at the shield: the origin its client's host reads, the object's request target
// there and the rules that match it. No I/O: the read path (shield-tier.ts) derives it, and so does Workers Cache's
// front (workers-cache-layer.ts) for the key it keeps an answer under, so that the two never disagree on an object.

import type { Config } from '../shared/config/config.ts';
import { SHIELD_ORIGIN } from '../shared/hop/hop-fields.ts';
import type { RequestTarget } from '../shared/request/request-target.ts';
import { type AppliedRules, NOTHING_APPLIED } from '../shared/rules/rules.ts';
import { applyRules } from '../shared/rules/rules-match.ts';
import type { Origin } from './origin/origin.ts';
import { originOf } from './origin/origin-of.ts';

export interface ObjectTarget {
  /** The origin the edge's client host reads (S3: that host's bucket, HOST_BUCKETS). */
  origin: Origin;
  /** The object's target there, joined to the shield's origin, not resolved against it (`//host/x` stays a path). */
  target: RequestTarget;
  /** The rules matching the edge's client's request, as the edge matched them: the same RULES, host and path. */
  rules: AppliedRules;
}

/**
 * The object `url` names for `host` (`sliced`: the edge's slice request, which names the object's path inside its
 * own); throws the 421 for a host that reads no bucket.
 */
export function objectTarget(
  config: Config,
  host: string,
  method: string,
  url: URL,
  sliced: { objectPath: string } | undefined,
): ObjectTarget {
  const origin = originOf(config).forHost(host);
  const objectUrl = sliced ? new URL(`${SHIELD_ORIGIN}${sliced.objectPath}${url.search}`) : url;
  let rules = NOTHING_APPLIED;
  const target = origin.traits.target(objectUrl, {
    keyQuery: origin.config.cacheKeyQuery,
    ruleQuery: (path) => {
      rules = applyRules(origin.config.rules, { host, path, method });
      return rules.cacheKeyQuery;
    },
  });
  return { origin, target, rules };
}
