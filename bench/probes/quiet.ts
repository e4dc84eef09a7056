// Waits for a stack to settle: the origin sending nothing and no answer of it open, and the runtime all but idle, so
// that every fill under way at either tier (the shield's from the origin, the edge's from the shield) is done.

import { setTimeout as delay } from 'node:timers/promises';

export interface QuietSignals {
  /** Bytes the origin has sent so far. */
  originBytes(): number;
  /** Origin answers still being sent. */
  originOpen(): number;
  /** CPU seconds the runtime has used so far (0 when it cannot be read). */
  runtimeCpu(): number;
}

export interface QuietOptions {
  /** Nothing from the origin for this long, and the runtime idle over it. */
  stillMs: number;
  /** Runtime CPU below this share of a core over `stillMs` counts as idle. */
  idleCpuShare: number;
  limitMs: number;
}

export const QUIET: QuietOptions = { stillMs: 750, idleCpuShare: 0.1, limitMs: 30_000 };

/** True once quiet; false when `limitMs` passed first. */
export async function untilQuiet(signals: QuietSignals, options: QuietOptions = QUIET): Promise<boolean> {
  const started = Date.now();
  let bytes = signals.originBytes();
  let still = Date.now();
  let cpuAt = signals.runtimeCpu();
  while (Date.now() - started < options.limitMs) {
    await delay(100);
    const now = signals.originBytes();
    if (now !== bytes || signals.originOpen() > 0) {
      bytes = now;
      still = Date.now();
      cpuAt = signals.runtimeCpu();
    } else if (Date.now() - still >= options.stillMs) {
      const busy = signals.runtimeCpu() - cpuAt;
      if (busy <= options.idleCpuShare * ((Date.now() - still) / 1000)) return true;
      still = Date.now();
      cpuAt = signals.runtimeCpu();
    }
  }
  return false;
}
