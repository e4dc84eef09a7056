// The R2 tier's settings (docs/configuration.md, docs/costs.md "The R2 tier"): how it admits an entry and at what
// prices, and how many puts it may make an hour. The tier itself is on only where the shield has an R2 bucket bound
// (R2_TIER, shield/env.ts); these are read either way, so that a bad value is refused before the bucket is bound.

import { PUBLISHED_PRICES } from '../cost/prices.ts';
import { R2_ADMISSIONS, type R2Admission } from '../store/r2-admission.ts';
import type { ConfigProblems } from './config-problems.ts';
import { decimal, integer, oneOf } from './config-values.ts';

export const R2_TIER_CONFIG_NAMES = [
  'R2_TIER_ADMIT',
  'R2_STORAGE_PRICE_PER_GB_MONTH',
  'R2_WRITE_PRICE_PER_MILLION',
  'R2_READ_PRICE_PER_MILLION',
  'R2_WRITES_PER_HOUR',
] as const;
type R2TierRawConfig = Partial<Record<(typeof R2_TIER_CONFIG_NAMES)[number], string>>;

export interface R2TierConfig {
  /** R2_TIER_ADMIT: `cost` (kept only where it pays: shared/store/r2-admission.ts) or `all`. */
  admit: R2Admission;
  /** R2_STORAGE_PRICE_PER_GB_MONTH: USD per 10^9 bytes kept 30 days. */
  storagePerGbMonth: number;
  /** R2_WRITE_PRICE_PER_MILLION: USD per million Class A operations (a put). */
  writePerMillion: number;
  /** R2_READ_PRICE_PER_MILLION: USD per million Class B operations (a get). */
  readPerMillion: number;
  /** R2_WRITES_PER_HOUR: the most puts per hour per shield isolate (a minute of them at once); 0 = none. */
  writesPerHour: number;
}

/**
 * One put a second per isolate: at most 2.6 million a month ($11.70 at R2's Class A price), however many entries ask
 * to be kept; what is refused is fetched from the origin again, and asked to be kept again then.
 */
const DEFAULT_WRITES_PER_HOUR = 3600;
/** Far past any price: a larger number is a typo. */
const MAX_PRICE = 1_000_000;

export function parseR2Tier(raw: R2TierRawConfig, problems: ConfigProblems): R2TierConfig {
  const { r2StorageGbMonths, r2ClassA, r2ClassB } = PUBLISHED_PRICES;
  const price = (name: (typeof R2_TIER_CONFIG_NAMES)[number], fallback: number): number =>
    problems.read(() => decimal(raw, name, fallback, 0, MAX_PRICE), fallback);
  return {
    admit: problems.read(() => oneOf(raw, 'R2_TIER_ADMIT', R2_ADMISSIONS, 'cost'), 'cost'),
    storagePerGbMonth: price('R2_STORAGE_PRICE_PER_GB_MONTH', r2StorageGbMonths.usd),
    writePerMillion: price('R2_WRITE_PRICE_PER_MILLION', r2ClassA.usd),
    readPerMillion: price('R2_READ_PRICE_PER_MILLION', r2ClassB.usd),
    writesPerHour: problems.read(
      () => integer(raw, 'R2_WRITES_PER_HOUR', DEFAULT_WRITES_PER_HOUR, 0, 100_000_000),
      DEFAULT_WRITES_PER_HOUR,
    ),
  };
}
