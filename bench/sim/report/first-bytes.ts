// Time to first byte per location and per path a response took (a hit at the edge, a hit at the shield, a miss to
// the origin, or forwarded by an edge whose next tier said nothing), beside the physical floor of that path
// (topology.ts firstByteFloorMs: the round trips it crosses plus the origin's own first byte).

import { percentile } from '../../report/statistics.ts';
import { firstByteFloorMs, type SimTopology } from '../topology.ts';
import { type PathTaken, pathTaken, tierVerdict } from './cache-verdict.ts';
import type { VerdictSample } from './tier-ratios.ts';

export interface TimedSample extends VerdictSample {
  ttfbMs: number;
}

export interface FirstByteRow {
  location: number;
  path: PathTaken;
  count: number;
  p50: number;
  p95: number;
  p99: number;
  /**
   * The path's floor; for `forwarded`, the shield hit's (the least such a response may have crossed); NaN for
   * `unknown` (a system whose answers say no path).
   */
  floorMs: number;
}

const PATHS: readonly PathTaken[] = ['hit', 'shield-hit', 'miss', 'forwarded', 'unknown'];

/** A row per location and path with at least one response, locations in order. */
export function firstByteRows(samples: readonly TimedSample[], topology: SimTopology): FirstByteRow[] {
  const rows: FirstByteRow[] = [];
  for (const [location] of topology.locations.entries()) {
    for (const path of PATHS) {
      const times = samples
        .filter((sample) => sample.location === location && Number.isFinite(sample.ttfbMs))
        .filter((sample) => pathTaken(tierVerdict(sample)) === path)
        .map((sample) => sample.ttfbMs);
      if (times.length === 0) continue;
      rows.push({
        location,
        path,
        count: times.length,
        p50: percentile(times, 50),
        p95: percentile(times, 95),
        p99: percentile(times, 99),
        floorMs: floorOf(topology, location, path),
      });
    }
  }
  return rows;
}

function floorOf(topology: SimTopology, location: number, path: PathTaken): number {
  if (path === 'unknown') return Number.NaN;
  return firstByteFloorMs(topology, location, path === 'forwarded' ? 'shield-hit' : path);
}
