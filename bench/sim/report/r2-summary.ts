// The R2 tier's run (`npm run sim --r2-tier`): what each system cost the origin behind small caches, what the R2 tier
// did to its bucket and kept, and the month at this rate at the published prices (shared/cost/prices.ts), every unit
// priced (no free allowance: what the tier adds to an account past them). Pure.

import { type PriceTable, PUBLISHED_PRICES } from '../../../shared/cost/prices.ts';
import { MONTH_MS } from '../../../shared/cost/usage.ts';
import type { R2Tally } from '../r2/r2-tally.ts';

/** A month at the run's rate, USD. */
interface R2Month {
  egressUSD: number;
  storageUSD: number;
  operationsUSD: number;
  totalUSD: number;
}

export interface R2Summary {
  originBytes: number;
  /** What its R2 tier did and kept; absent for a system without one. */
  tally?: R2Tally;
  /** A month is this many times the trace's span. */
  monthFactor: number;
  month: R2Month;
}

/**
 * The summary of one system's run: its origin bytes and operations scaled from the trace's span (`traceMs`, trace
 * time) to a month; the bytes its bucket holds at the end, kept all month (a run too short to reach its steady state
 * keeps less than a month would: said in docs/sim.md).
 */
export function r2Summary(
  originBytes: number,
  tally: R2Tally | undefined,
  traceMs: number,
  prices: PriceTable = PUBLISHED_PRICES,
): R2Summary {
  const monthFactor = traceMs > 0 ? MONTH_MS / traceMs : 0;
  const egressUSD = ((originBytes * monthFactor) / 1e12) * prices.originEgressPerTB.usd;
  const storageUSD = tally === undefined ? 0 : (tally.bytes / 1e9) * prices.r2StorageGbMonths.usd;
  const classA = tally === undefined ? 0 : (tally.puts + tally.lists) * monthFactor;
  const classB = tally === undefined ? 0 : (tally.gets + tally.heads) * monthFactor;
  const operationsUSD =
    (classA / prices.r2ClassA.per) * prices.r2ClassA.usd + (classB / prices.r2ClassB.per) * prices.r2ClassB.usd;
  return {
    originBytes,
    ...(tally === undefined ? {} : { tally }),
    monthFactor,
    month: { egressUSD, storageUSD, operationsUSD, totalUSD: egressUSD + storageUSD + operationsUSD },
  };
}
