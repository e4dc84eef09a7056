// A cost ratio a noisy machine cannot fake: each candidate measured between two measurements of the baseline, judged
// against their mean (a drift of the machine during the round cancels), and the rounds summarised by their median (a
// round a neighbour's burst spoiled does not move it).

import { median } from './statistics.ts';

/** One round: the baseline, each candidate in turn, the baseline again (the next round's first). */
export interface SandwichedRound {
  before: number;
  candidates: Readonly<Record<string, number>>;
  after: number;
}

/** Per candidate: its ratio to the baseline in each round, and their median. */
export interface PairedRatio {
  perRound: number[];
  median: number;
}

/** The candidates' ratios to the baseline, round by round; a candidate missing from a round is left out of it. */
export function pairedRatios(rounds: readonly SandwichedRound[]): Record<string, PairedRatio> {
  const ratios: Record<string, number[]> = {};
  for (const round of rounds) {
    const baseline = (round.before + round.after) / 2;
    for (const [name, value] of Object.entries(round.candidates)) {
      ratios[name] ??= [];
      ratios[name].push(value / baseline);
    }
  }
  return Object.fromEntries(
    Object.entries(ratios).map(([name, perRound]) => [name, { perRound, median: median(perRound) }]),
  );
}
