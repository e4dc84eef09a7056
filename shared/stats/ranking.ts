// One order for every ranked list (hosts, keys, reasons): most first, ties by name in code-unit
// order, so that the same counts always give the same list, whatever order they arrived in
// and whatever the locale (String#localeCompare is neither).

/** Code-unit order: the same on every runtime. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A copy of `items`, most first by `count`, ties by `name`. */
export function rankBy<T>(items: Iterable<T>, count: (item: T) => number, name: (item: T) => string): T[] {
  return [...items].sort((a, b) => count(b) - count(a) || compareNames(name(a), name(b)));
}
