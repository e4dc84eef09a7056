// Where a tier behind another in the same isolate (tier-hop.ts) keeps an object: its bucket is the client's host, its
// key the object's target; its slices' keys are made from this one (shared/slices/slice-plan.ts sliceKey). And the
// target read back from such a key: what a purge names (shared/purge/purge-rules.ts purgedBy), for a tier that judges
// its entries by the key alone (the R2 tier's walk of its index, shield/r2/r2-sweep.ts). Pure.

import type { RequestTarget } from '../request/request-target.ts';
import type { TierName } from '../tiers/tiers.ts';

/** The key under which the tier named `name` keeps the object `target` names for the client's `host`. */
export function hopTierKey(name: TierName, host: string, target: Pick<RequestTarget, 'path' | 'query'>): string {
  return `${tierOrigin(name)}/${encodeURIComponent(host)}${target.path}${target.query}`;
}

/**
 * The path and query of the object a hopTierKey of the tier named `name` keeps (as purges name it); undefined for a
 * key that is not one. The host is encoded whole (no "/" in it), so the target begins at the first "/" after it.
 */
export function hopTierTarget(name: TierName, key: string): string | undefined {
  const origin = `${tierOrigin(name)}/`;
  if (!key.startsWith(origin)) return undefined;
  const rest = key.slice(origin.length);
  const at = rest.indexOf('/');
  return at === -1 ? undefined : rest.slice(at);
}

function tierOrigin(name: TierName): string {
  return `https://${name}.tiercache.internal`;
}
