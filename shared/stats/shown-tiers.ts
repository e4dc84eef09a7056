// Which tiers the stats page and `npm run stats` show (stats.json keeps every tier, zeros and all): each tier every
// deployment has (the edge, the shield), and one a deployment may run without (the R2 tier: shared/tiers/tiers.ts
// `optional`) only where it made records in the window, so that a deployment without it shows no empty card, line or
// column, and each tier's bytes are said to come from the next tier shown.

import { isOptional, TIER_NAMES, type TierName } from '../tiers/tiers.ts';
import type { Totals } from './stats-json.ts';

/** Where the last tier's bytes come from. */
const ORIGIN = 'origin';

/**
 * The tiers to show, nearest the client first: every one but an optional tier without records in the window; a tier
 * `tiers` lacks (stats.json from an edge older than it) is shown only when every deployment has it.
 */
export function shownTiers(tiers: Partial<Record<TierName, { totals: Pick<Totals, 'requests'> }>>): TierName[] {
  return TIER_NAMES.filter((name) => !isOptional(name) || (tiers[name]?.totals.requests ?? 0) > 0);
}

/** What `tier` fetched from, as shown: the next tier of `shown` after it, the origin after the last. */
export function shownNextHop(shown: readonly TierName[], tier: TierName): string {
  const at = shown.indexOf(tier);
  return (at === -1 ? undefined : shown[at + 1]) ?? ORIGIN;
}
