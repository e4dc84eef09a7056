// A tier's numbers from its rows: its totals, each outcome's, and the ratios the stats page leads with
// (definitions in stats-json.ts).

import { HIT_OUTCOMES, OUTCOMES, type Outcome } from './record.ts';
import type { MinuteStats, TierStats, Totals } from './stats-json.ts';
import { addInto, emptyTotals, sumTotals } from './totals.ts';

type OutcomeRow = { outcome: Outcome } & Totals;

/** Totals per outcome, every outcome present (zeros where none). */
export function outcomeTotals(rows: Iterable<OutcomeRow>): Record<Outcome, Totals> {
  const outcomes = Object.fromEntries(OUTCOMES.map((outcome) => [outcome, emptyTotals()])) as Record<Outcome, Totals>;
  for (const row of rows) addInto(outcomes[row.outcome], row);
  return outcomes;
}

/** Requests answered without fetching the object from the next hop. */
export function hitsOf(outcomes: Record<Outcome, Totals>): number {
  return OUTCOMES.filter((outcome) => HIT_OUTCOMES.has(outcome)).reduce(
    (sum, outcome) => sum + outcomes[outcome].requests,
    0,
  );
}

/** The stats of one tier from its rows (rows of the other tier must be left out by the caller). */
export function tierStats(rows: Iterable<OutcomeRow>): TierStats {
  const outcomes = outcomeTotals(rows);
  const totals = sumTotals(OUTCOMES.map((outcome) => outcomes[outcome]));
  const counted = totals.requests > 0;
  return {
    totals,
    // A ratio over nothing is null, not 0 or NaN: no requests is not a hit ratio of zero.
    hitRatio: counted ? hitsOf(outcomes) / totals.requests : null,
    // Bytes fetched can exceed bytes sent (a slice fetched whole for a small range, a HEAD that filled): at least 0.
    byteHitRatio: totals.bytesSent > 0 ? Math.max(0, 1 - totals.bytesFromNextHop / totals.bytesSent) : null,
    ttfbMsMean: counted ? totals.ttfbMsSum / totals.requests : null,
    outcomes,
  };
}

/** One minute's line of a tier's charts. */
export function minuteTier(rows: Iterable<OutcomeRow>): MinuteStats['tiers']['edge'] {
  const outcomes = outcomeTotals(rows);
  const totals = sumTotals(OUTCOMES.map((outcome) => outcomes[outcome]));
  return {
    requests: totals.requests,
    hits: hitsOf(outcomes),
    bytesSent: totals.bytesSent,
    bytesFromNextHop: totals.bytesFromNextHop,
  };
}
