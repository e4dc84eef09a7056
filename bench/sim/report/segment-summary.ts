// A run of HLS viewers (`--hls`): the segments' first bytes per system (all of them, those that reached the shield,
// those that reached the origin), what the system says it prefetched, and what the origin sent that no client asked
// for: the egress prefetching wasted, the origin's count, not the system's word. And prefetching off against on,
// request by request: the segment requests that missed at a cold shield without it, and what they became with it.

import type { PrefetchCounts } from '../../../shared/stats/store-operations.ts';
import { pathTaken, tierVerdict } from './cache-verdict.ts';
import { type Spread, spread } from './endpoint-summary.ts';
import type { TimedSample } from './first-bytes.ts';

/**
 * A difference of first bytes taken to be more than the runner's jitter: half of what the origin adds to a miss on the
 * default map (topology.ts: its 10 ms link and its 20 ms first byte), what a shield hit saves at the least.
 */
export const NOTICEABLE_MS = 15;

/** A response as this report knows it: which trace request, for which path. */
export interface SegmentSample extends TimedSample {
  index: number;
  path: string;
}

export interface SegmentSummary {
  /** Segment requests answered (a first byte came), every location together: their first bytes (ms). */
  all: Spread;
  /** Of those, the ones the edge did not hold (answered by the shield or the origin). */
  atShield: Spread;
  /** Of those, the ones the shield held. */
  shieldHits: number;
  /** Of those, the ones that missed at every tier. */
  misses: Spread;
  /** What the system's stats say it prefetched; absent for a system that says nothing. */
  prefetches?: PrefetchCounts;
  /** The origin's answers, and bytes, for paths no client of the run asked for. */
  unaskedRequests: number;
  unaskedBytes: number;
  /** unaskedBytes over the origin's bytes: the share of egress nobody read (target ≤ 5 %). */
  unaskedShare: number | undefined;
}

export interface PrefetchPairs {
  /**
   * The segment requests that were misses at every tier with prefetching off (their shield cold), paired by their place
   * in the trace with the same request with it on: both runs' first bytes, how many became hits (at the shield or the
   * edge), and how many came more than NOTICEABLE_MS sooner or later.
   */
  coldMisses: { off: Spread; on: Spread; hits: number; sooner: number; later: number };
  /** Every segment request answered in both runs: both runs' first bytes. */
  all: { off: Spread; on: Spread };
}

export function segmentSummary(
  samples: readonly SegmentSample[],
  segments: ReadonlySet<string>,
  origin: { bytes: number; unasked: { requests: number; bytes: number } },
  prefetches: PrefetchCounts | undefined,
): SegmentSummary | undefined {
  const answered = samples.filter((sample) => segments.has(sample.path) && Number.isFinite(sample.ttfbMs));
  if (answered.length === 0) return undefined;
  const taken = answered.map((sample) => ({ sample, path: pathTaken(tierVerdict(sample)) }));
  const atShield = taken.filter(({ path }) => path === 'shield-hit' || path === 'miss');
  const ms = (list: readonly { sample: SegmentSample }[]): number[] => list.map(({ sample }) => sample.ttfbMs);
  return {
    all: spread(ms(taken)),
    atShield: spread(ms(atShield)),
    shieldHits: atShield.filter(({ path }) => path === 'shield-hit').length,
    misses: spread(ms(taken.filter(({ path }) => path === 'miss'))),
    ...(prefetches === undefined ? {} : { prefetches }),
    unaskedRequests: origin.unasked.requests,
    unaskedBytes: origin.unasked.bytes,
    unaskedShare: origin.bytes === 0 ? undefined : origin.unasked.bytes / origin.bytes,
  };
}

/** The segment requests of both runs, paired by their index in the trace. */
export function prefetchPairs(
  off: readonly SegmentSample[],
  on: readonly SegmentSample[],
  segments: ReadonlySet<string>,
): PrefetchPairs {
  const answered = (sample: SegmentSample): boolean => segments.has(sample.path) && Number.isFinite(sample.ttfbMs);
  const onByIndex = new Map(on.filter(answered).map((sample) => [sample.index, sample]));
  const pairs = off.filter(answered).flatMap((before) => {
    const after = onByIndex.get(before.index);
    return after === undefined ? [] : [{ before, after }];
  });
  const cold = pairs.filter(({ before }) => pathTaken(tierVerdict(before)) === 'miss');
  const hit = (sample: SegmentSample): boolean => {
    const path = pathTaken(tierVerdict(sample));
    return path === 'hit' || path === 'shield-hit';
  };
  return {
    coldMisses: {
      off: spread(cold.map(({ before }) => before.ttfbMs)),
      on: spread(cold.map(({ after }) => after.ttfbMs)),
      hits: cold.filter(({ after }) => hit(after)).length,
      sooner: cold.filter(({ before, after }) => before.ttfbMs - after.ttfbMs > NOTICEABLE_MS).length,
      later: cold.filter(({ before, after }) => after.ttfbMs - before.ttfbMs > NOTICEABLE_MS).length,
    },
    all: {
      off: spread(pairs.map(({ before }) => before.ttfbMs)),
      on: spread(pairs.map(({ after }) => after.ttfbMs)),
    },
  };
}
