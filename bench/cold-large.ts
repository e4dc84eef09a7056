// The cold large object: one GET of an object no cache has seen, through each cache, against a
// single-stream GET straight from the shaped origin. Time to first byte, throughput, and what the
// origin sent. tiercache fetches 8 MiB slices in parallel (read-ahead), the peers one stream.

import { type TierStats, tierStats } from './load.ts';
import { type Context, objectPath, originDelta } from './plan.ts';
import type { TargetName } from './targets.ts';
import { timedGet } from './timed-get.ts';

const MIB = 2 ** 20;
const GET_TIMEOUT_MS = 120_000;

export interface ColdRun {
  target: TargetName;
  status: number;
  bytes: number;
  /** Bytes received match the object's size. */
  complete: boolean;
  ttfbMs: number;
  totalMs: number;
  mibPerSec: number;
  origin: { requests: number; bytes: number };
  /** tiercache only: from this response's Cache-Status and Server-Timing. */
  tiers?: TierStats;
}

export async function coldLarge(context: Context): Promise<ColdRun[]> {
  const { plan, shaper, targets, log } = context;
  const path = objectPath('cold', plan.coldLarge.label);
  const runs: ColdRun[] = [];
  for (const target of targets) {
    log(`cold ${plan.coldLarge.label} ${target.name}: one GET`);
    const before = shaper.stats();
    const answer = await timedGet(`${target.url}${path}`, GET_TIMEOUT_MS);
    const origin = originDelta(shaper, before);
    const complete = answer.status === 200 && answer.bytes === plan.coldLarge.size;
    const mibPerSec = answer.bytes / MIB / (answer.totalMs / 1000);
    log(`  ${answer.status}, first byte ${answer.ttfbMs.toFixed(0)} ms, ${mibPerSec.toFixed(1)} MiB/s${complete ? '' : ' INCOMPLETE'}`);
    const tiers = target.name === 'tiercache' ? tierStats([{ status: answer.status, headers: answer.headers }]) : undefined;
    runs.push({ target: target.name, status: answer.status, bytes: answer.bytes, complete, ttfbMs: answer.ttfbMs, totalMs: answer.totalMs, mibPerSec, origin, ...(tiers && { tiers }) });
  }
  return runs;
}
