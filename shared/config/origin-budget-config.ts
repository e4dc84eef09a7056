// How hard the shield may press its origin (docs/configuration.md): how many transfers it keeps under way at once, and
// how long a request waits its turn, or on an origin that said it is busy, before it is answered busy itself. Read into
// `Config.originBudget`; kept by shield/origin/transfer-budget.ts.

import type { ConfigProblems } from './config-problems.ts';
import { integer } from './config-values.ts';

export const ORIGIN_BUDGET_CONFIG_NAMES = ['ORIGIN_CONCURRENCY', 'ORIGIN_BUSY_WAIT_MS'] as const;
type OriginBudgetRawConfig = Partial<Record<(typeof ORIGIN_BUDGET_CONFIG_NAMES)[number], string>>;

/**
 * Storj's gateway allows 500 transfers under way per project, every access key and deployment of it together
 * (storj/edge pkg/server/config.go: the limiter's key is the project ID), and answers `429 SlowDown` past it. Half of
 * it by default, so that a project's other users (uploads, backups, another deployment) keep room.
 */
const DEFAULT_CONCURRENCY = 250;
/**
 * Long enough for a short Retry-After (Storj's are often 1 s) to be waited out in the request, short enough that a
 * client is answered (with a stale copy, or a 503 it may retry) before it gives up itself.
 */
const DEFAULT_BUSY_WAIT_MS = 2_000;
/** Beyond any origin's limit: a larger number is a typo, refused rather than read as no budget at all. */
const MAX_CONCURRENCY = 100_000;

export interface OriginBudgetConfig {
  /** ORIGIN_CONCURRENCY: the most transfers (requests with their bodies) under way to the origin at once, per isolate. */
  concurrency: number;
  /**
   * ORIGIN_BUSY_WAIT_MS: the longest a request waits for a free transfer, or on an origin that answered busy (its
   * Retry-After waited out only when it fits), before it is answered busy at once.
   */
  busyWaitMs: number;
}

export function parseOriginBudget(raw: OriginBudgetRawConfig, problems: ConfigProblems): OriginBudgetConfig {
  return {
    concurrency: problems.read(
      () => integer(raw, 'ORIGIN_CONCURRENCY', DEFAULT_CONCURRENCY, 1, MAX_CONCURRENCY),
      DEFAULT_CONCURRENCY,
    ),
    busyWaitMs: problems.read(
      () => integer(raw, 'ORIGIN_BUSY_WAIT_MS', DEFAULT_BUSY_WAIT_MS, 0, 60_000, 'a client waits no longer'),
      DEFAULT_BUSY_WAIT_MS,
    ),
  };
}
