// The tiers, listed once, nearest the client first: each one's name (stats, logs, Server-Timing), where it keeps its
// entries (a Cache API namespace; the R2 tier's are objects of its bucket, under this prefix), its RFC 9211
// Cache-Status member, and, for one a deployment may run without, `optional`. Adding a tier is adding an entry here
// plus its adapter.

export const TIERS = [
  { name: 'edge', cacheName: 'tiercache-edge', statusMember: 'tiercache-edge' },
  { name: 'shield', cacheName: 'tiercache-shield', statusMember: 'tiercache-shield' },
  // Behind the shield, in front of the origin, only where an R2 bucket is bound (shield/r2/README.md).
  { name: 'r2', cacheName: 'tiercache-r2', statusMember: 'tiercache-r2', optional: true },
] as const;

export type Tier = (typeof TIERS)[number];
export type TierName = Tier['name'];

/** The tiers' names, nearest the client first (Cache-Status lists their members the other way round). */
export const TIER_NAMES: readonly TierName[] = TIERS.map((entry) => entry.name);

const BY_NAME: ReadonlyMap<string, Tier> = new Map(TIERS.map((entry) => [entry.name, entry]));

/** The entry for a tier by name. */
export function tier<N extends TierName>(name: N): Extract<Tier, { name: N }> {
  const found = BY_NAME.get(name);
  if (found === undefined) throw new TypeError(`no tier named ${name}`);
  return found as Extract<Tier, { name: N }>;
}

/**
 * Whether a deployment may run without the tier (the R2 tier, on only where its bucket is bound): the stats show it
 * only where it counted something. An entry that does not say so is every deployment's.
 */
export function isOptional(name: TierName): boolean {
  const entry = tier(name);
  return 'optional' in entry && entry.optional;
}

/** Whether `value` names a tier (a value read off the wire). */
export function isTierName(value: unknown): value is TierName {
  return typeof value === 'string' && BY_NAME.has(value);
}

/** One value per tier, in the list's order: a record over the tiers that a new entry extends by itself. */
export function perTier<T>(make: (name: TierName) => T): Record<TierName, T> {
  return Object.fromEntries(TIER_NAMES.map((name) => [name, make(name)])) as Record<TierName, T>;
}
