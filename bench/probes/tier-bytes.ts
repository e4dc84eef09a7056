// What each tier says it moved, read off the edge's GET /__tiercache/stats.json (the stats store's sums of every
// record both tiers flushed): taken before and after a scenario, the difference is the scenario's.

import { setTimeout as delay } from 'node:timers/promises';
import { STATS_JSON_PATH } from '../../shared/request/reserved-paths.ts';
import type { StatsJson, Totals } from '../../shared/stats/stats-json.ts';
import { TIER_NAMES, type TierName } from '../../shared/tiers/tiers.ts';

/** The part of each tier's totals a scenario is judged by. */
export type TierBytes = Record<TierName, Pick<Totals, 'requests' | 'bytesSent' | 'bytesFromNextHop'>>;

/** Every tier's totals in the stats window now. */
async function readTierBytes(edge: string, statsToken: string): Promise<TierBytes> {
  const response = await fetch(new URL(STATS_JSON_PATH, edge), {
    headers: { authorization: `Bearer ${statsToken}` },
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new Error(`stats.json answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
  const stats = (await response.json()) as StatsJson;
  return Object.fromEntries(
    TIER_NAMES.map((name) => {
      const totals = stats.tiers[name]?.totals;
      return [
        name,
        {
          requests: totals?.requests ?? 0,
          bytesSent: totals?.bytesSent ?? 0,
          bytesFromNextHop: totals?.bytesFromNextHop ?? 0,
        },
      ];
    }),
  ) as TierBytes;
}

/** `after` − `before`, tier by tier. */
export function tierBytesSince(before: TierBytes, after: TierBytes): TierBytes {
  return Object.fromEntries(
    TIER_NAMES.map((name) => [
      name,
      {
        requests: after[name].requests - before[name].requests,
        bytesSent: after[name].bytesSent - before[name].bytesSent,
        bytesFromNextHop: after[name].bytesFromNextHop - before[name].bytesFromNextHop,
      },
    ]),
  ) as TierBytes;
}

/**
 * The totals once two readings `intervalMs` apart agree (every isolate flushes within its STATS_FLUSH_MS, and a
 * request's record is told once the work it left running has settled), at most `limitMs`.
 */
export async function settledTierBytes(
  edge: string,
  statsToken: string,
  intervalMs: number,
  limitMs = 15_000,
): Promise<TierBytes> {
  const started = Date.now();
  let last = await readTierBytes(edge, statsToken);
  while (Date.now() - started < limitMs) {
    await delay(intervalMs);
    const now = await readTierBytes(edge, statsToken);
    if (JSON.stringify(now) === JSON.stringify(last)) return now;
    last = now;
  }
  return last;
}
