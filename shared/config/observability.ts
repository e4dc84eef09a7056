// The settings of what a deployment tells about itself (docs/operating.md): the stats page's token, the
// flush interval, how many requests are logged, and the egress price the savings are counted at.

import type { ConfigProblems } from './config-problems.ts';
import { decimal, integer, nonEmpty, type Raw } from './config-values.ts';

export const OBSERVABILITY_CONFIG_NAMES = [
  'STATS_TOKEN',
  'STATS_FLUSH_MS',
  'LOG_SAMPLE',
  'EGRESS_PRICE_PER_TB',
] as const;
type ObservabilityName = (typeof OBSERVABILITY_CONFIG_NAMES)[number];

export interface ObservabilityConfig {
  /** Bearer (or Basic password) for GET /__tiercache/stats and stats.json; undefined = the page is disabled (403). */
  statsToken: string | undefined;
  /** STATS_FLUSH_MS: how long an isolate batches its records before writing them; 0 = after every request. */
  flushMs: number;
  /** LOG_SAMPLE: the share of requests logged as a JSON line (errors always are). */
  logSample: number;
  /** EGRESS_PRICE_PER_TB: USD per 10^12 bytes of origin egress (Storj: 7). */
  egressPricePerTB: number;
}

/**
 * STATS_FLUSH_MS when unset, and what the cost model prices a deployment by. A few seconds: one
 * write per isolate every five seconds at most, whatever its traffic.
 */
export const DEFAULT_FLUSH_MS = 5_000;
/** One request in a hundred: a busy site's tail stays readable, and Workers Logs stay cheap. */
const DEFAULT_LOG_SAMPLE = 0.01;
/** Storj's published egress price (USD per TB). */
const DEFAULT_EGRESS_PRICE = 7;

export function parseObservability(raw: Raw<ObservabilityName>, problems: ConfigProblems): ObservabilityConfig {
  return {
    statsToken: nonEmpty(raw.STATS_TOKEN),
    flushMs: problems.read(() => integer(raw, 'STATS_FLUSH_MS', DEFAULT_FLUSH_MS, 0), DEFAULT_FLUSH_MS),
    logSample: problems.read(() => decimal(raw, 'LOG_SAMPLE', DEFAULT_LOG_SAMPLE, 0, 1), DEFAULT_LOG_SAMPLE),
    egressPricePerTB: problems.read(
      () => decimal(raw, 'EGRESS_PRICE_PER_TB', DEFAULT_EGRESS_PRICE, 0, 1_000_000),
      DEFAULT_EGRESS_PRICE,
    ),
  };
}
