// The cold large object: one GET of an object no cache has seen, through each cache, against a
// single-stream GET straight from the shaped origin. Time to first byte, throughput, and what the
// origin sent. tiercache fetches 8 MiB slices in parallel (read-ahead), the peers one stream.

import { timedGet } from '../load/timed-get.ts';
import { type TierVerdicts, tierVerdicts } from '../probes/tier-verdicts.ts';
import type { Shaper } from '../setup/shaper.ts';
import type { Target, TargetName } from '../setup/targets.ts';
import { type Context, objectPath, originDelta } from './plan.ts';

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
  tiers?: TierVerdicts;
}

/**
 * `shaperOf` answers the shaper in front of each target's origin. tiercache reads slices in
 * parallel and works the CPU: it runs alone, first. The others read one stream each, capped at
 * one connection's bandwidth by the shaper, so they run at once, each through a shaper of its
 * own, whose counters then say what that target alone took from the origin.
 */
export async function coldLarge(context: Context, shaperOf: (target: TargetName) => Shaper): Promise<ColdRun[]> {
  const { plan, targets, log } = context;
  const path = objectPath('cold', plan.coldLarge.label);
  const one = async (target: Target): Promise<ColdRun> => {
    const shaper = shaperOf(target.name);
    const before = shaper.stats();
    const answer = await timedGet(`${target.url}${path}`, GET_TIMEOUT_MS);
    const origin = originDelta(shaper, before);
    const complete = answer.status === 200 && answer.bytes === plan.coldLarge.size;
    const mibPerSec = answer.bytes / MIB / (answer.totalMs / 1000);
    log(
      `  ${target.name}: ${answer.status}, first byte ${answer.ttfbMs.toFixed(0)} ms, ${mibPerSec.toFixed(1)} MiB/s${complete ? '' : ' INCOMPLETE'}`,
    );
    const tiers =
      target.name === 'tiercache' ? tierVerdicts([{ status: answer.status, headers: answer.headers }]) : undefined;
    return {
      target: target.name,
      status: answer.status,
      bytes: answer.bytes,
      complete,
      ttfbMs: answer.ttfbMs,
      totalMs: answer.totalMs,
      mibPerSec,
      origin,
      ...(tiers && { tiers }),
    };
  };
  const alone = targets.filter((target) => target.name === 'tiercache');
  const together = targets.filter((target) => target.name !== 'tiercache');
  const runs: ColdRun[] = [];
  for (const target of alone) {
    log(`cold ${plan.coldLarge.label} ${target.name}: one GET, alone`);
    runs.push(await one(target));
  }
  log(`cold ${plan.coldLarge.label} ${together.map((target) => target.name).join(', ')}: one GET each, at once`);
  runs.push(...(await Promise.all(together.map(one))));
  // Report order: as the targets were given.
  return targets.flatMap((target) => runs.filter((run) => run.target === target.name));
}
