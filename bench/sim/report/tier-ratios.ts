// Hit ratio and byte hit ratio per tier and per location, from what each response said of its tiers
// (cache-verdict.ts): the edge's over every response that told it, the shield's over the edge's misses that told it.
// A ratio nothing told is undefined (printed `n/a`).

import { type TierAnswer, type TierVerdict, tierVerdict } from './cache-verdict.ts';

export interface VerdictSample {
  location: number;
  bytes: number;
  cacheStatus?: string;
  xCacheStatus?: string;
}

interface TierRatio {
  /** Responses that told this tier's answer. */
  told: number;
  hitRatio: number | undefined;
  byteHitRatio: number | undefined;
}

export interface LocationRatios {
  /** A location's index, or `all`. */
  location: number | 'all';
  requests: number;
  edge: TierRatio;
  shield: TierRatio;
}

/** One row per location (0 … locations − 1), then `all`. */
export function tierRatios(samples: readonly VerdictSample[], locations: number): LocationRatios[] {
  const verdicts = samples.map((sample) => ({ sample, verdict: tierVerdict(sample) }));
  const row = (location: number | 'all') => {
    const mine = verdicts.filter(({ sample }) => location === 'all' || sample.location === location);
    return {
      location,
      requests: mine.length,
      edge: ratio(mine, (verdict) => verdict.edge),
      shield: ratio(mine, (verdict) => verdict.shield),
    };
  };
  return [...Array.from({ length: locations }, (_, index) => row(index)), row('all')];
}

function ratio(
  verdicts: readonly { sample: VerdictSample; verdict: TierVerdict }[],
  answerOf: (verdict: TierVerdict) => TierAnswer | undefined,
): TierRatio {
  let told = 0;
  let hits = 0;
  let bytes = 0;
  let hitBytes = 0;
  for (const { sample, verdict } of verdicts) {
    const answer = answerOf(verdict);
    if (answer === undefined) continue;
    told += 1;
    bytes += sample.bytes;
    if (answer === 'hit') {
      hits += 1;
      hitBytes += sample.bytes;
    }
  }
  return {
    told,
    hitRatio: told === 0 ? undefined : hits / told,
    byteHitRatio: bytes === 0 ? undefined : hitBytes / bytes,
  };
}
