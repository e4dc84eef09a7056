// A run on an origin at several endpoints (`--slow-endpoint`): the misses' first bytes over every location (what a
// slow endpoint costs them, and what hedging wins back), what each endpoint saw, and the hedges' egress: the bytes
// the endpoints passed on for requests the shield gave up, and the origin's own bytes beyond the unique ones.

import { percentile } from '../../report/statistics.ts';
import type { EndpointCounts } from '../system.ts';
import { pathTaken, tierVerdict } from './cache-verdict.ts';
import type { TimedSample } from './first-bytes.ts';

/** First bytes (ms) of a set of responses. */
export interface Spread {
  count: number;
  p50: number;
  p90: number;
  p99: number;
}

export interface EndpointSummary {
  /** Responses that were misses at every tier, all locations together: their first bytes (ms). */
  misses: Spread;
  /**
   * The misses of a path the slow endpoint held an answer for (what hedging is for), and the others: the held answers
   * are the same in every system of a run (origin-endpoints.ts), so these compare like with like.
   */
  heldMisses: Spread;
  otherMisses: Spread;
  endpoints: EndpointCounts[];
  /** Bytes the endpoints passed on for requests the shield gave up (a hedge's losers), and their share of the origin's. */
  gaveUpBytes: number;
  gaveUpShare: number | undefined;
  /**
   * The origin's own count of what it sent beyond the unique bytes asked, over what it sent: every byte a hedge cost,
   * those the origin pushed into buffers before a loser's connection closed included (the endpoints never passed those
   * on, so gaveUpBytes misses them), and anything else fetched twice. An upper bound on the hedges' egress.
   */
  beyondUniqueShare: number | undefined;
}

/** A response as the report knows it: which trace request it answered, for which path. */
export interface MissSample extends TimedSample {
  index: number;
  path: string;
}

export function endpointSummary(
  samples: readonly MissSample[],
  endpoints: readonly EndpointCounts[] | undefined,
  originBytes: number,
  uniqueBytes: number,
): EndpointSummary | undefined {
  if (endpoints === undefined) return undefined;
  const misses = samples.filter(isMiss);
  const heldPaths = new Set(endpoints.flatMap((endpoint) => endpoint.heldPaths));
  const held = (sample: MissSample): boolean => heldPaths.has(sample.path);
  const gaveUpBytes = endpoints.reduce((sum, endpoint) => sum + endpoint.gaveUpBytes, 0);
  return {
    misses: spread(misses.map((sample) => sample.ttfbMs)),
    heldMisses: spread(misses.filter(held).map((sample) => sample.ttfbMs)),
    otherMisses: spread(misses.filter((sample) => !held(sample)).map((sample) => sample.ttfbMs)),
    endpoints: [...endpoints],
    gaveUpBytes,
    gaveUpShare: originBytes === 0 ? undefined : gaveUpBytes / originBytes,
    beyondUniqueShare: originBytes === 0 ? undefined : Math.max(0, originBytes - uniqueBytes) / originBytes,
  };
}

/** p50, p90 and p99 of first bytes; NaN where there are none. */
export function spread(ms: readonly number[]): Spread {
  const at = (p: number): number => (ms.length === 0 ? Number.NaN : percentile(ms, p));
  return { count: ms.length, p50: at(50), p90: at(90), p99: at(99) };
}

/** A response that was a miss at every tier and whose first byte came. */
export function isMiss(sample: TimedSample): boolean {
  return Number.isFinite(sample.ttfbMs) && pathTaken(tierVerdict(sample)) === 'miss';
}
