// Bounded tables: names beyond a table's bound are counted under OTHER, so that what clients send (hosts, paths)
// never grows a batch or a bucket without bound, and no request or byte is dropped: a folded row adds to OTHER's.

import { rankBy } from './ranking.ts';

/** The name every folded host, key or reason is counted under (no recorded host or path can be it: see record.ts). */
export const OTHER = '(other)';

/**
 * The name as a table that holds at most `max` names admits it: itself if already held or if
 * there is room (then it is held from now on), else OTHER. First come, first kept: what a batch
 * does on the hot path, with no ranking to keep up to date.
 */
export function admit(held: Set<string>, name: string, max: number): string {
  if (name === OTHER || held.has(name)) return name;
  if (held.size >= max) return OTHER;
  held.add(name);
  return name;
}

/** Weight per name: the sum of `weight` over the items of each name. */
export function weightsBy<T>(
  items: Iterable<T>,
  name: (item: T) => string,
  weight: (item: T) => number,
): Map<string, number> {
  const weights = new Map<string, number>();
  for (const item of items) weights.set(name(item), (weights.get(name(item)) ?? 0) + weight(item));
  return weights;
}

/**
 * The `max` names of most weight (ties by name), OTHER never among them: the names a table keeps when it is over its
 * bound.
 */
export function topNames(weights: ReadonlyMap<string, number>, max: number): Set<string> {
  const named = [...weights].filter(([name]) => name !== OTHER);
  return new Set(
    rankBy(
      named,
      ([, weight]) => weight,
      ([name]) => name,
    )
      .slice(0, Math.max(0, max))
      .map(([name]) => name),
  );
}
