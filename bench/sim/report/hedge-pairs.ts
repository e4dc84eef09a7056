// Hedging off against on, request by request (`--slow-endpoint`): both systems replay one trace and meet the same
// slow answers (origin-endpoints.ts), so a request that was a miss in both runs is one measurement taken twice. Its
// two first bytes differ by the hedge, where it cut a held answer, and by the runner's noise everywhere; the counts of
// misses that came sooner or later by more than NOTICEABLE_MS tell the two apart, as percentiles of two runs cannot.

import { isMiss, type MissSample, type Spread, spread } from './endpoint-summary.ts';

/** A difference of first bytes taken to be more than the runner's jitter: a quarter of the slow endpoint's hold. */
export const NOTICEABLE_MS = 100;

export interface PairedMisses {
  /** The misses of both runs' first bytes: hedging off, then on. */
  off: Spread;
  on: Spread;
  /** Pairs whose first byte came more than NOTICEABLE_MS sooner with hedging on, and those that came later. */
  sooner: number;
  later: number;
}

export interface HedgePairs {
  /** Every request that was a miss in both runs. */
  all: PairedMisses;
  /** Those of a path the slow endpoint held an answer for. */
  held: PairedMisses;
}

/** The requests that were misses in both runs, paired by their index in the trace. */
export function hedgePairs(
  off: readonly MissSample[],
  on: readonly MissSample[],
  heldPaths: ReadonlySet<string>,
): HedgePairs {
  const onByIndex = new Map(on.filter(isMiss).map((sample) => [sample.index, sample]));
  const pairs = off.filter(isMiss).flatMap((before) => {
    const after = onByIndex.get(before.index);
    return after === undefined ? [] : [{ path: before.path, off: before.ttfbMs, on: after.ttfbMs }];
  });
  return { all: paired(pairs), held: paired(pairs.filter((pair) => heldPaths.has(pair.path))) };
}

function paired(pairs: readonly { off: number; on: number }[]): PairedMisses {
  return {
    off: spread(pairs.map((pair) => pair.off)),
    on: spread(pairs.map((pair) => pair.on)),
    sooner: pairs.filter((pair) => pair.off - pair.on > NOTICEABLE_MS).length,
    later: pairs.filter((pair) => pair.on - pair.off > NOTICEABLE_MS).length,
  };
}
