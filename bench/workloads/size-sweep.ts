// Workload S, after the 2024 Storj + Varnish test: for each object size, 10 connections share a fixed count of GETs
// of one object (10 × 50 = 500), read cold then warm through each cache, once directly from the shaped origin.

import type { LoadResult } from '../load/load-result.ts';
import { sampleHeaders } from '../load/node-http.ts';
import { runLoad, withFirstAnswer } from '../load/run-load.ts';
import { type TimedAnswer, timedGet } from '../load/timed-get.ts';
import { type TierVerdicts, tierVerdicts } from '../probes/tier-verdicts.ts';
import { NAIVE_NAMES, type Target, type TargetName } from '../setup/targets.ts';
import { type Context, objectPath, originDelta, type SizeCase } from './plan.ts';

/** Per request; also how long a wrk run waits without any answer before it reports what it got. */
const REQUEST_TIMEOUT_SEC = 15;
const RUN_LIMIT_SEC = 240;
const HEADER_SAMPLES = 5;
const TIER_FIELDS = ['cache-status', 'server-timing'];

export interface SRun {
  size: string;
  target: TargetName;
  phase: 'direct' | 'cold' | 'warm';
  load: LoadResult;
  origin: { requests: number; bytes: number };
  /** Cold phases: the first request, made alone before the load. */
  first?: { status: number; ttfbMs: number; totalMs: number };
}

interface STiers {
  /** The cold phase's first response: the miss. */
  cold: TierVerdicts;
  /** A few sequential GETs after the warm run. */
  warm: TierVerdicts;
}

export interface SResult {
  runs: SRun[];
  /** tiercache's tiers from its Cache-Status and Server-Timing, by size. */
  tiers: Record<string, STiers>;
}

/**
 * Each cache is read twice, cold (its first 500 requests for that object) and warm (the same again). The naive
 * baselines run warm only (primed by one GET): how far any worker gets on tiercache's runtime. What reached the origin
 * is counted at the shaper; tiercache's tiers are read from its headers.
 */
export async function workloadS(context: Context): Promise<SResult> {
  const { plan, targets } = context;
  const runs: SRun[] = [];
  const tiers: Record<string, STiers> = {};
  for (const sizeCase of plan.workloadS) {
    for (const target of targets) {
      const naive = NAIVE_NAMES.includes(target.name);
      if (naive && !plan.naiveS.includes(sizeCase.label)) continue;
      const url = `${target.url}${objectPath('s', sizeCase.label)}`;
      if (target.name === 'direct') {
        runs.push((await phase(context, sizeCase, target, 'direct')).run);
        continue;
      }
      if (naive) {
        await prime(url, sizeCase.size);
        runs.push((await phase(context, sizeCase, target, 'warm')).run);
        continue;
      }
      const cold = await phase(context, sizeCase, target, 'cold');
      runs.push(cold.run, (await phase(context, sizeCase, target, 'warm')).run);
      if (target.name === 'tiercache' && cold.first) {
        const warm = tierVerdicts(await sampleHeaders(url, TIER_FIELDS, HEADER_SAMPLES, REQUEST_TIMEOUT_SEC));
        tiers[sizeCase.label] = { cold: tierVerdicts([cold.first]), warm };
      }
    }
  }
  return { runs, tiers };
}

/**
 * One phase's run, and for a cold one its first answer (with the headers the tier table reads): made alone and timed,
 * so that it is the miss (tiercache's per-tier timings of a miss come from it); the other 499 are the load.
 */
async function phase(
  context: Context,
  sizeCase: SizeCase,
  target: Target,
  name: SRun['phase'],
): Promise<{ run: SRun; first?: TimedAnswer }> {
  const { shaper, log } = context;
  const count = sizeCase.connections * sizeCase.perConnection;
  const url = `${target.url}${objectPath('s', sizeCase.label)}`;
  log(
    `S ${sizeCase.label} ${target.name} ${name}: ${sizeCase.connections} × ${sizeCase.perConnection} requests${name === 'cold' ? ' (the first alone)' : ''}`,
  );
  const before = shaper.stats();
  const first = name === 'cold' ? await timedGet(url, REQUEST_TIMEOUT_SEC * 1000) : undefined;
  const options = {
    url,
    connections: sizeCase.connections,
    timeoutSec: REQUEST_TIMEOUT_SEC,
    maxSeconds: RUN_LIMIT_SEC,
    bodyBytes: sizeCase.size,
  };
  const rest = await runLoad({ ...options, requests: first ? count - 1 : count });
  const load = first ? withFirstAnswer(first, rest) : rest;
  const origin = originDelta(shaper, before);
  log(
    `  ${load.elapsedSec.toFixed(2)} s, mean ${load.latency.meanMs.toFixed(1)} ms, ${load.mibPerSec.toFixed(1)} MiB/s, ${load.requests} responses, ${load.errors} errors, ${load.non2xx} non-2xx, origin ${origin.requests} requests (${load.tool})`,
  );
  const run: SRun = {
    size: sizeCase.label,
    target: target.name,
    phase: name,
    load,
    origin,
    ...(first && { first: { status: first.status, ttfbMs: first.ttfbMs, totalMs: first.totalMs } }),
  };
  return { run, ...(first && { first }) };
}

/** One GET that fills a naive baseline's cache before its warm phase. */
async function prime(url: string, size: number): Promise<void> {
  const answer = await timedGet(url, REQUEST_TIMEOUT_SEC * 1000);
  if (answer.status !== 200 || answer.bytes !== size)
    throw new Error(`priming ${url}: expected 200 and ${size} bytes, got ${answer.status} and ${answer.bytes}`);
}
