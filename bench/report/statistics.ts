// The few summaries the benchmarks take of their numbers.

/** The arithmetic mean; NaN when there are no values. */
export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** The middle value (the upper one of an even count); NaN when there are no values. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}
