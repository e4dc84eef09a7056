// The tiers, listed once: each one's name (in stats, logs and Server-Timing), its Cache API namespace
// and its RFC 9211 Cache-Status member. Adding a tier is adding an entry here plus its adapter.

export const TIERS = [
  { name: 'edge', cacheName: 'tiercache-edge', statusMember: 'tiercache-edge' },
  { name: 'shield', cacheName: 'tiercache-shield', statusMember: 'tiercache-shield' },
] as const;

export type Tier = (typeof TIERS)[number];
export type TierName = Tier['name'];

/** The tiers' names, nearest the client first (the order Cache-Status lists them in reverse). */
export const TIER_NAMES: readonly TierName[] = TIERS.map((tier) => tier.name);

/** The entry for a tier by name. */
export function tier(name: TierName): Tier {
  const found = TIERS.find((entry) => entry.name === name);
  if (found === undefined) throw new TypeError(`no tier named ${name}`);
  return found;
}
