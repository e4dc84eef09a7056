// Which Origin the shield reaches: the one place an origin kind picks its implementation (the edge's pure traits are
// shared/config/origin-traits.ts). A new kind is an entry here, an implementation beside these two, and the contract
// it must keep (test/shield/origin/origin-contract.ts); nothing else in the shield changes.

import type { Config, OriginKind } from '../../shared/config/config.ts';
import { budgetedOrigin } from './budgeted-origin.ts';
import { isolateEndpoints } from './endpoint-health.ts';
import { failoverOrigin } from './failover-origin.ts';
import { HedgePolicy, hedgeLimits } from './hedge-policy.ts';
import type { Origin } from './origin.ts';
import { s3Origin } from './s3-origin.ts';
import { siteOrigin } from './site-origin.ts';
import { isolateBudget } from './transfer-budget.ts';

/**
 * Each kind's implementation: every kind has its entry, or this does not compile. `remember` is told of every origin
 * one makes, the one it was asked for and those it derives (S3: one per bucket a host reads), so that each
 * configuration's origin is found again, made once.
 */
const ORIGINS: { readonly [Kind in OriginKind]: (config: Config, remember: (origin: Origin) => void) => Origin } = {
  s3: s3Origin,
  http: siteOrigin,
};

/** Per configuration (one per isolate, and one per bucket a host reads): its origin. */
const made = new WeakMap<Config, Origin>();
const remember = (origin: Origin): void => {
  made.set(origin.config, origin);
};

/**
 * The origin `config` names (S3: reading S3_BUCKET; `forHost` gives a host's own bucket): the kind's implementation,
 * at each of ORIGIN_URL's endpoints when it lists several (failover-origin.ts), within this isolate's transfer budget
 * (budgeted-origin.ts). Only the outermost origins are remembered: a derived configuration finds the budgeted one.
 */
export function originOf(config: Config): Origin {
  let origin = made.get(config);
  if (origin === undefined) {
    const inner = config.originEndpoints.length > 1 ? endpointsOf(config) : ORIGINS[config.originKind](config, forget);
    origin = budgetedOrigin(inner, isolateBudget(config), remember);
    made.set(config, origin);
  }
  return origin;
}

const forget = (): void => undefined;

/**
 * ORIGIN_URL's endpoints as one origin: the kind's implementation at each, the preferred one on `config` itself,
 * hedging as ORIGIN_HEDGE says (its policy learns per configuration, so per isolate).
 */
function endpointsOf(config: Config): Origin {
  const make = ORIGINS[config.originKind];
  const endpoints = config.originEndpoints.map((url, index) =>
    make(index === 0 ? config : { ...config, originUrl: url }, forget),
  );
  const hedge = config.originHedge ? new HedgePolicy(hedgeLimits(config.originTimeoutMs)) : undefined;
  return failoverOrigin(endpoints, isolateEndpoints, forget, hedge);
}
