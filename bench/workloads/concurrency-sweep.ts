// Workload V, after the 2009 Varnish vs Squid test: small objects served from a warm cache at
// rising concurrency, for a fixed time each (wrk when installed): requests per second, mean and
// p99 latency, errors. The caches of the plan run every cell; the naive baselines (the
// floor for tiercache's edge hits) and tiercache through the local front (what the front costs
// a hit) at the plan's concurrencies only. Each target is warmed with one GET of each object first.

import type { LoadResult } from '../load/load-result.ts';
import { runLoad } from '../load/run-load.ts';
import { JUDGED_CELLS_ONLY, type TargetName } from '../setup/targets.ts';
import { type Context, objectPath } from './plan.ts';

const REQUEST_TIMEOUT_SEC = 10;
const WARM_TIMEOUT_MS = 30_000;
/** Past the run's duration: wrk's start-up and its last responses. */
const RUN_SLACK_SEC = 30;

export interface VRun {
  size: string;
  concurrency: number;
  target: TargetName;
  load: LoadResult;
}

export async function workloadV(context: Context): Promise<VRun[]> {
  const { plan, targets, log } = context;
  const { sizes, concurrency, naiveConcurrency } = plan.workloadV;
  const runs: VRun[] = [];
  for (const target of targets) {
    for (const size of sizes) await warm(`${target.url}${objectPath('v', size.label)}`);
  }
  for (const size of sizes) {
    for (const connections of concurrency) {
      for (const target of targets) {
        if (JUDGED_CELLS_ONLY.includes(target.name) && !naiveConcurrency.includes(connections)) continue;
        const durationSec = naiveConcurrency.includes(connections)
          ? plan.workloadV.naiveDurationSec
          : plan.workloadV.durationSec;
        log(`V ${size.label} c=${connections} ${target.name}: ${durationSec} s`);
        const url = `${target.url}${objectPath('v', size.label)}`;
        const load = await runLoad({
          url,
          connections,
          durationSec,
          timeoutSec: REQUEST_TIMEOUT_SEC,
          maxSeconds: durationSec + RUN_SLACK_SEC,
        });
        log(
          `  ${load.reqPerSec.toFixed(0)} req/s, mean ${load.latency.meanMs.toFixed(2)} ms, p99 ${load.latency.p99Ms.toFixed(2)} ms, ${load.errors} errors (${load.tool})`,
        );
        runs.push({ size: size.label, concurrency: connections, target: target.name, load });
      }
    }
  }
  return runs;
}

/** One GET, then a second: the first fills the cache, the second proves it answers. */
async function warm(url: string): Promise<void> {
  for (let i = 0; i < 2; i++) {
    const response = await fetch(url, { signal: AbortSignal.timeout(WARM_TIMEOUT_MS) });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`warming ${url}: expected 200, got ${response.status}`);
  }
}
