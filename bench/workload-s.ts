// Workload S, after the 2024 Storj + Varnish test: for each object size, 10 connections share a
// fixed count of GETs of one object. The origin is read directly (through the shaper) once; each
// cache is read twice, cold (its first requests for that object) and warm (the same again).
// What reached the origin is counted at the shaper; tiercache's tiers are read from its headers.

import { type LoadResult, runLoad, sampleHeaders, type TierStats, tierStats } from './load.ts';
import { type Context, objectPath, originDelta } from './plan.ts';
import type { TargetName } from './targets.ts';

const REQUEST_TIMEOUT_SEC = 60;
const RUN_LIMIT_SEC = 240;
const HEADER_SAMPLES = 5;
const TIER_FIELDS = ['cache-status', 'server-timing'];

export interface SRun {
  size: string;
  target: TargetName;
  phase: 'direct' | 'cold' | 'warm';
  load: LoadResult;
  origin: { requests: number; bytes: number };
}

export interface SResult {
  runs: SRun[];
  /** tiercache's headers on a few sequential GETs after the warm run, by size. */
  tiers: Record<string, TierStats>;
}

export async function workloadS(context: Context): Promise<SResult> {
  const { plan, shaper, targets, log } = context;
  const runs: SRun[] = [];
  const tiers: Record<string, TierStats> = {};
  for (const sizeCase of plan.workloadS) {
    const requests = sizeCase.connections * sizeCase.perConnection;
    const path = objectPath('s', sizeCase.label);
    for (const target of targets) {
      const phases = target.name === 'direct' ? (['direct'] as const) : (['cold', 'warm'] as const);
      for (const phase of phases) {
        log(`S ${sizeCase.label} ${target.name} ${phase}: ${sizeCase.connections} × ${sizeCase.perConnection} requests`);
        const before = shaper.stats();
        const load = await runLoad({ url: `${target.url}${path}`, connections: sizeCase.connections, requests, timeoutSec: REQUEST_TIMEOUT_SEC, maxSeconds: RUN_LIMIT_SEC });
        const origin = originDelta(shaper, before);
        log(`  ${load.elapsedSec.toFixed(2)} s, mean ${load.latency.meanMs.toFixed(1)} ms, ${load.mibPerSec.toFixed(1)} MiB/s, ${load.errors} errors, origin ${origin.requests} requests`);
        runs.push({ size: sizeCase.label, target: target.name, phase, load, origin });
      }
      if (target.name === 'tiercache') tiers[sizeCase.label] = tierStats(await sampleHeaders(`${target.url}${path}`, TIER_FIELDS, HEADER_SAMPLES, REQUEST_TIMEOUT_SEC));
    }
  }
  return { runs, tiers };
}
