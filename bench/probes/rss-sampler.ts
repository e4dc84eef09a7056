// RSS sampled on an interval until stopped, never for more than `maxSamples`: the runtime's
// (summed over its processes) and this Node process's own, which hosts the origin and client.

import { residentBytes } from './process-rss.ts';

export interface RssSample {
  /** Milliseconds since the sampler started. */
  atMs: number;
  runtimeBytes: number;
  nodeBytes: number;
}

export interface RssSeries {
  samples: RssSample[];
  runtimePeakBytes: number;
  nodePeakBytes: number;
  /** Samples in which some runtime process had no VmRSS (it had exited). */
  missing: number;
}

export interface RssSampler {
  stop(): RssSeries;
}

export function startSampler(pids: readonly number[], intervalMs: number, maxSamples: number): RssSampler {
  const started = performance.now();
  const samples: RssSample[] = [];
  let missing = 0;
  const sample = () => {
    if (samples.length >= maxSamples) return clearInterval(timer);
    const sizes = pids.map(residentBytes);
    if (sizes.includes(undefined)) missing++;
    const runtimeBytes = sizes.reduce<number>((sum, size) => sum + (size ?? 0), 0);
    samples.push({ atMs: Math.round(performance.now() - started), runtimeBytes, nodeBytes: process.memoryUsage.rss() });
  };
  const timer = setInterval(sample, intervalMs);
  sample();
  return {
    stop() {
      clearInterval(timer);
      sample();
      return {
        samples,
        runtimePeakBytes: Math.max(0, ...samples.map((s) => s.runtimeBytes)),
        nodePeakBytes: Math.max(0, ...samples.map((s) => s.nodeBytes)),
        missing,
      };
    },
  };
}

/** The median runtime RSS of a series: a baseline one stray sample cannot move. */
export function medianRuntimeBytes(series: RssSeries): number {
  const sorted = series.samples.map((s) => s.runtimeBytes).sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
