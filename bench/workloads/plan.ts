// What a run measures, full or quick, and what every workload is handed: the targets, the
// shaper's counters (to tell what reached the origin) and a progress line printer.

import type { Shaper } from '../setup/shaper.ts';
import type { BenchObject } from '../setup/site-origin.ts';
import type { Target, TargetName } from '../setup/targets.ts';
import type { LayerPlan } from './layer-costs.ts';

const KB = 1000;
const MB = 1000 * KB;
const MIB = 2 ** 20;

export interface SizeCase {
  label: string;
  size: number;
  /** Connections × requests per connection: requests = connections × perConnection. */
  connections: number;
  perConnection: number;
}

export interface Plan {
  mode: 'full' | 'quick';
  workloadS: SizeCase[];
  /** Sizes (labels) at which the naive baselines run Workload S, warm only. */
  naiveS: string[];
  workloadV: {
    sizes: { label: string; size: number }[];
    concurrency: number[];
    durationSec: number;
    /** The caches that run every cell (those installed). */
    targets: TargetName[];
    /** Where the naive baselines and tiercache through the local front run, at every size. */
    naiveConcurrency: number[];
    /**
     * Seconds per cell at the naive baselines' concurrency, for every target: the warm small
     * hits are judged there, and one second of wrk swings by a third between runs on this machine.
     */
    naiveDurationSec: number;
  };
  coldLarge: { label: string; size: number };
  /** Several cold downloads at once, each of another object, through tiercache (cold-concurrent.ts). */
  coldConcurrent: { count: number; label: string; size: number };
  /** The per-layer costs (layer-costs.ts), reduced; absent = skipped. */
  layers?: LayerPlan;
  /** memory-growth: run bench:memory (1 GiB through both tiers) in the suite, or report its latest results file. */
  memory: 'run' | 'latest';
  /** egress: run bench:egress (scripted clients on cold objects) in the suite, or report its latest results file. */
  egress: 'run' | 'latest';
  /** What the plan leaves out of the published workloads, said in the report. */
  reductions: string[];
}

export interface Context {
  plan: Plan;
  shaper: Shaper;
  /** Caches in report order (tiercache first), plus `direct` where a workload wants it. */
  targets: Target[];
  log(message: string): void;
}

export const FULL_PLAN: Plan = {
  mode: 'full',
  workloadS: [
    { label: '100 KB', size: 100 * KB, connections: 10, perConnection: 50 },
    { label: '1 MB', size: MB, connections: 10, perConnection: 50 },
    { label: '10 MB', size: 10 * MB, connections: 10, perConnection: 50 },
    { label: '50 MB', size: 50 * MB, connections: 10, perConnection: 50 },
  ],
  naiveS: ['100 KB', '1 MB', '10 MB', '50 MB'],
  workloadV: {
    sizes: [10, 15, 20, 25, 30, 40, 50].map((k) => ({ label: `${k} KB`, size: k * KB })),
    concurrency: [10, 25, 50, 100, 200, 400],
    durationSec: 1,
    targets: ['tiercache', 'varnish', 'nginx'],
    naiveConcurrency: [100],
    naiveDurationSec: 3,
  },
  coldLarge: { label: '256 MiB', size: 256 * MIB },
  coldConcurrent: { count: 5, label: '256 MiB', size: 256 * MIB },
  layers: { connections: 100, warmUpSec: 1, measureSec: 2 },
  memory: 'run',
  egress: 'run',
  reductions: [
    'Workload V: every size and concurrency of the 2009 test, 1 s of wrk each (3 s at c = 100, where the warm small hits are judged; ApacheBench there ran a fixed count), for tiercache, Varnish and nginx; not nginx slice (below its 8 MiB slice size it serves as plain nginx does, one slice per object); the naive baselines and tiercache through the local front at c = 100 only.',
    'Naive baselines in Workload S: warm only (primed by one GET).',
    'Per-layer costs: 20 KiB at c = 100, 1 s warm-up and 2 s measured per cell (npm run bench:layers measures 3 s).',
  ],
};

export const QUICK_PLAN: Plan = {
  mode: 'quick',
  workloadS: [
    { label: '100 KB', size: 100 * KB, connections: 10, perConnection: 10 },
    { label: '10 MB', size: 10 * MB, connections: 10, perConnection: 10 },
  ],
  naiveS: ['100 KB', '10 MB'],
  workloadV: {
    sizes: [{ label: '20 KB', size: 20 * KB }],
    concurrency: [10, 100],
    durationSec: 1,
    targets: ['tiercache', 'varnish', 'nginx'],
    naiveConcurrency: [100],
    naiveDurationSec: 1,
  },
  coldLarge: { label: '64 MiB', size: 64 * MIB },
  coldConcurrent: { count: 5, label: '64 MiB', size: 64 * MIB },
  memory: 'latest',
  egress: 'latest',
  reductions: [
    'Quick mode: Workload S 100 KB and 10 MB only, 10 × 10 requests (naive baselines warm); Workload V 20 KB at c = 10 and 100, 1 s each (naive baselines and tiercache through the local front at c = 100); cold object 64 MiB (cold-large and cold-first-byte judged on it); per-layer costs skipped (npm run bench, or npm run bench:layers); memory-growth from the latest bench:memory results file and egress from the latest bench:egress one, not measured.',
  ],
};

/**
 * Every object the plan reads, with a seed each: Workload S, Workload V, the cold large object, the concurrent cold
 * ones.
 */
export function planObjects(plan: Plan): BenchObject[] {
  return [
    ...plan.workloadS.map((c, i) => ({ path: objectPath('s', c.label), size: c.size, seed: 0x5000 + i })),
    ...plan.workloadV.sizes.map((c, i) => ({ path: objectPath('v', c.label), size: c.size, seed: 0x7000 + i })),
    { path: objectPath('cold', plan.coldLarge.label), size: plan.coldLarge.size, seed: 0xc01d },
    ...Array.from({ length: plan.coldConcurrent.count }, (_, i) => ({
      path: concurrentPath(plan, i),
      size: plan.coldConcurrent.size,
      seed: 0xc0c0 + i,
    })),
  ];
}

export function objectPath(prefix: 's' | 'v' | 'cold', label: string): string {
  return `/${prefix}-${label.replace(/\s+/g, '')}.bin`;
}

/** The `i`th object of the concurrent cold downloads. */
export function concurrentPath(plan: Plan, i: number): string {
  return `/together-${i}-${plan.coldConcurrent.label.replace(/\s+/g, '')}.bin`;
}

/** The origin's answers since `before`: requests started and bytes sent to the cache. */
export function originDelta(shaper: Shaper, before: ReturnType<Shaper['stats']>): { requests: number; bytes: number } {
  const now = shaper.stats();
  return { requests: now.requests - before.requests, bytes: now.bytesToClient - before.bytesToClient };
}
