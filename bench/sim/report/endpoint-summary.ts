// A run on an origin at several endpoints (`--slow-endpoint`): the misses' first bytes over every location (what a
// slow endpoint costs them, and what hedging wins back), what each endpoint saw, and the hedges' egress: the bytes
// the endpoints passed on for requests the shield gave up, and the origin's own bytes beyond the unique ones.

import { percentile } from '../../report/statistics.ts';
import type { EndpointCounts } from '../system.ts';
import { pathTaken, tierVerdict } from './cache-verdict.ts';
import type { TimedSample } from './first-bytes.ts';

export interface EndpointSummary {
  /** Responses that were misses at every tier, all locations together: their first bytes (ms). */
  misses: { count: number; p50: number; p90: number; p99: number };
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

export function endpointSummary(
  samples: readonly TimedSample[],
  endpoints: readonly EndpointCounts[] | undefined,
  originBytes: number,
  uniqueBytes: number,
): EndpointSummary | undefined {
  if (endpoints === undefined) return undefined;
  const misses = samples
    .filter((sample) => Number.isFinite(sample.ttfbMs) && pathTaken(tierVerdict(sample)) === 'miss')
    .map((sample) => sample.ttfbMs);
  const gaveUpBytes = endpoints.reduce((sum, endpoint) => sum + endpoint.gaveUpBytes, 0);
  return {
    misses: {
      count: misses.length,
      p50: misses.length === 0 ? Number.NaN : percentile(misses, 50),
      // The slow endpoint's fifth shows here: a slow first byte on a fifth of one endpoint's answers is the misses'
      // 80th to 95th percentile, while their 99th is the run's other tails (large transfers, the runner's own).
      p90: misses.length === 0 ? Number.NaN : percentile(misses, 90),
      p99: misses.length === 0 ? Number.NaN : percentile(misses, 99),
    },
    endpoints: [...endpoints],
    gaveUpBytes,
    gaveUpShare: originBytes === 0 ? undefined : gaveUpBytes / originBytes,
    beyondUniqueShare: originBytes === 0 ? undefined : Math.max(0, originBytes - uniqueBytes) / originBytes,
  };
}
