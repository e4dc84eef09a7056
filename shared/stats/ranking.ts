// One order for every ranked list (hosts, keys, reasons): most first, ties by name, so that the same counts always
// give the same list, whatever order they arrived in.

/** Code-unit order: the same on every runtime and in every locale (String#localeCompare is neither). */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A copy of `items`, most first by `count`, ties by `name`. */
export function rankBy<T>(items: Iterable<T>, count: (item: T) => number, name: (item: T) => string): T[] {
  return [...items].sort((a, b) => count(b) - count(a) || compareNames(name(a), name(b)));
}
