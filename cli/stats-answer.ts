// The body of a 200 from /__tiercache/stats.json, read as StatsJson (shared/stats/stats-json.ts).
// Checked only as far as the tables read it: a URL that answers something else (a site's HTML
// page, an older deployment) is named for what it is instead of printing a table of blanks.

import type { StatsJson } from '../shared/stats/stats-json.ts';
import { TIER_NAMES } from '../shared/tiers/tiers.ts';
import { CliFailure } from './cli-failure.ts';

const LISTS = ['minutes', 'hosts', 'topMisses', 'bypassReasons', 'errors', 'recentPurges'] as const;

export function parseStatsAnswer(text: string, from: string): StatsJson {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CliFailure(
      `${from} answered 200 with something that is not JSON (is it a tiercache edge?): ${JSON.stringify(text.slice(0, 80))}`,
    );
  }
  const missing = missingField(value);
  if (missing !== undefined)
    throw new CliFailure(
      `${from} answered JSON that is not tiercache's stats (no ${missing}): is the edge older than the CLI?`,
    );
  return value as StatsJson;
}

/** The first field the tables need that `value` lacks, or undefined. */
function missingField(value: unknown): string | undefined {
  if (!isObject(value)) return 'object';
  if (typeof value.generatedAt !== 'string') return 'generatedAt';
  if (!isObject(value.tiers)) return 'tiers';
  for (const tier of TIER_NAMES) {
    const stats = value.tiers[tier];
    if (!isObject(stats) || !isObject(stats.totals) || !isObject(stats.outcomes)) return `tiers.${tier}`;
  }
  if (!isObject(value.egress)) return 'egress';
  return LISTS.find((name) => !Array.isArray(value[name]));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
