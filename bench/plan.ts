// What a run measures, full or quick, and what every workload is handed: the targets, the
// shaper's counters (to tell what reached the origin) and a progress line printer.

import type { BenchObject } from './site-origin.ts';
import type { Shaper } from './shaper.ts';
import type { Target } from './targets.ts';

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
  workloadV: { sizes: { label: string; size: number }[]; concurrency: number[]; durationSec: number };
  coldLarge: { label: string; size: number };
  /** What the plan leaves out of the workloads, said in the report. */
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
    { label: '10 MB', size: 10 * MB, connections: 10, perConnection: 20 },
    { label: '50 MB', size: 50 * MB, connections: 10, perConnection: 5 },
  ],
  workloadV: {
    sizes: [10, 15, 20, 25, 30, 40, 50].map((k) => ({ label: `${k} KB`, size: k * KB })),
    concurrency: [10, 25, 50, 100, 200, 400],
    durationSec: 1,
  },
  coldLarge: { label: '256 MiB', size: 256 * MIB },
  reductions: [
    'Workload S: 10 MB runs 10 × 20 requests and 50 MB 10 × 5 (not 10 × 50), to keep the whole suite under 10 minutes on 2 cores.',
    'Workload V: every size and concurrency of the 2009 test, 1 s of wrk each (ApacheBench there ran a fixed count).',
  ],
};

export const QUICK_PLAN: Plan = {
  mode: 'quick',
  workloadS: [
    { label: '100 KB', size: 100 * KB, connections: 10, perConnection: 10 },
    { label: '10 MB', size: 10 * MB, connections: 10, perConnection: 10 },
  ],
  workloadV: { sizes: [{ label: '20 KB', size: 20 * KB }], concurrency: [10, 100], durationSec: 1 },
  coldLarge: { label: '64 MiB', size: 64 * MIB },
  reductions: ['Quick mode: Workload S 100 KB and 10 MB only, 10 × 10 requests; Workload V 20 KB at c = 10 and 100, 1 s each; cold object 64 MiB.'],
};

/** Every object the plan reads, with a seed each: Workload S, Workload V, the cold large object. */
export function planObjects(plan: Plan): BenchObject[] {
  return [
    ...plan.workloadS.map((c, i) => ({ path: objectPath('s', c.label), size: c.size, seed: 0x5000 + i })),
    ...plan.workloadV.sizes.map((c, i) => ({ path: objectPath('v', c.label), size: c.size, seed: 0x7000 + i })),
    { path: objectPath('cold', plan.coldLarge.label), size: plan.coldLarge.size, seed: 0xc01d },
  ];
}

export function objectPath(prefix: 's' | 'v' | 'cold', label: string): string {
  return `/${prefix}-${label.replace(/\s+/g, '')}.bin`;
}

/** The origin's answers since `before`: requests started and bytes sent to the cache. */
export function originDelta(shaper: Shaper, before: ReturnType<Shaper['stats']>): { requests: number; bytes: number } {
  const now = shaper.stats();
  return { requests: now.requests - before.requests, bytes: now.bytesToClient - before.bytesToClient };
}
