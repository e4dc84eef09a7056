// The suite's tables, from its raw results: every number relative to what this run measured
// (direct through the shaper, and Varnish when installed), since the machine is shared.

import { FRONT_NAME, type TargetName } from '../setup/targets.ts';
import type { ColdRun } from '../workloads/cold-large-object.ts';
import type { VRun } from '../workloads/concurrency-sweep.ts';
import type { SResult, SRun } from '../workloads/size-sweep.ts';
import type { Table } from './results.ts';

const MB = 1e6;
const DOLLARS_PER_TB = 7;

/** `a / b` as `2.31×`, or `–` when either is missing or not finite. */
export function ratio(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined || !Number.isFinite(a / b)) return '–';
  return `${(a / b).toFixed(2)}×`;
}

export function fixed(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : '–';
}

/** Elapsed, mean, p99, throughput; × faster than direct and than Varnish (elapsed ratios). */
export function sTable(s: SResult): Table {
  const find = (size: string, target: TargetName, phase: SRun['phase']) =>
    s.runs.find((r) => r.size === size && r.target === target && r.phase === phase);
  const rows = s.runs.map((run) => {
    const direct = find(run.size, 'direct', 'direct');
    const varnish = find(run.size, 'varnish', run.phase);
    return [
      run.size,
      run.target,
      run.phase,
      String(run.load.requests),
      run.load.sent === undefined ? '–' : String(run.load.sent),
      String(run.load.errors + run.load.non2xx),
      fixed(run.load.elapsedSec, 2),
      fixed(run.load.latency.meanMs, 1),
      fixed(run.load.latency.p99Ms, 1),
      fixed(run.load.mibPerSec, 1),
      ratio(direct?.load.elapsedSec, run.load.elapsedSec),
      run.phase === 'direct' ? '–' : ratio(varnish?.load.elapsedSec, run.load.elapsedSec),
    ];
  });
  return {
    columns: [
      'size',
      'target',
      'phase',
      'responses',
      'sent',
      'errors',
      'elapsed s',
      'mean ms',
      'p99 ms',
      'MiB/s',
      '× faster than direct',
      '× faster than Varnish',
    ],
    rows,
  };
}

/** What reached the origin per run, and the egress a cache saved against reading it directly. */
export function originTable(s: SResult): Table {
  const rows = s.runs.map((run) => {
    const direct = s.runs.find((r) => r.size === run.size && r.phase === 'direct');
    const saved = direct ? direct.origin.bytes - run.origin.bytes : Number.NaN;
    const varnish = s.runs.find((r) => r.size === run.size && r.target === 'varnish' && r.phase === run.phase);
    return [
      run.size,
      run.target,
      run.phase,
      String(run.origin.requests),
      fixed(run.origin.bytes / MB, 1),
      run.phase === 'direct' ? '–' : fixed(saved / MB, 1),
      run.phase === 'direct' ? '–' : `$${fixed((saved / 1e12) * DOLLARS_PER_TB, 4)}`,
      run.phase === 'direct' ? '–' : ratio(run.origin.bytes, varnish?.origin.bytes),
    ];
  });
  return {
    columns: [
      'size',
      'target',
      'phase',
      'origin requests',
      'origin MB',
      'egress saved MB',
      `saved at $${DOLLARS_PER_TB}/TB`,
      'origin bytes vs Varnish',
    ],
    rows,
  };
}

/**
 * tiercache's tiers on each cold phase's first response and after each warm run, from Cache-Status and Server-Timing.
 */
export function tierTable(s: SResult): Table {
  const rows = Object.entries(s.tiers).flatMap(([size, phases]) =>
    (['cold', 'warm'] as const).map((phase) => {
      const t = phases[phase];
      const what = phase === 'cold' ? 'cold (first response)' : `warm (${t.samples} GETs after)`;
      return [
        size,
        what,
        String(t.samples),
        pct(t.edge.hitRatio),
        pct(t.shield.hitRatio),
        fixed(t.timing.edge.meanMs, 1),
        fixed(t.timing.shield.meanMs, 1),
        fixed(t.timing.origin.meanMs, 1),
      ];
    }),
  );
  return {
    columns: [
      'size',
      'phase',
      'samples',
      'edge hit ratio',
      'shield hit ratio (of edge forwards)',
      'edge ms',
      'shield ms',
      'origin ms',
    ],
    rows,
  };
}

export function vTable(runs: readonly VRun[]): Table {
  const rows = runs.map((run) => {
    const cell = (target: TargetName) =>
      runs.find((r) => r.size === run.size && r.concurrency === run.concurrency && r.target === target)?.load.reqPerSec;
    return [
      run.size,
      String(run.concurrency),
      run.target,
      fixed(run.load.reqPerSec, 0),
      fixed(run.load.latency.meanMs, 2),
      fixed(run.load.latency.p99Ms, 2),
      String(run.load.errors),
      String(run.load.non2xx),
      ratio(run.load.reqPerSec, cell('varnish')),
      ratio(run.load.reqPerSec, cell('naive-map')),
    ];
  });
  return {
    columns: [
      'size',
      'concurrency',
      'target',
      'req/s',
      'mean ms',
      'p99 ms',
      'errors',
      'non-2xx',
      'req/s vs Varnish',
      'req/s vs naive-map',
    ],
    rows,
  };
}

/**
 * The local front as a layer of its own: per Workload V cell where tiercache ran both ways, the
 * edge's own socket against the same edge through the front, and what the front took off.
 */
export function frontTable(runs: readonly VRun[]): Table {
  const rows = runs
    .filter((run) => run.target === 'tiercache')
    .flatMap((own) => {
      const cell = (target: TargetName) =>
        runs.find((r) => r.size === own.size && r.concurrency === own.concurrency && r.target === target)?.load
          .reqPerSec;
      const fronted = cell(FRONT_NAME);
      if (fronted === undefined) return [];
      const direct = own.load.reqPerSec;
      return [
        [
          own.size,
          String(own.concurrency),
          fixed(direct, 0),
          fixed(fronted, 0),
          ratio(fronted, direct),
          pct(1 - fronted / direct),
          ratio(direct, cell('naive-map')),
          ratio(fronted, cell('naive-map')),
        ],
      ];
    });
  return {
    columns: [
      'size',
      'concurrency',
      "edge's own socket req/s",
      'through the front req/s',
      'through / own',
      'the front takes',
      'own socket vs naive-map',
      'through the front vs naive-map',
    ],
    rows,
  };
}

export function coldTable(runs: readonly ColdRun[]): Table {
  const direct = runs.find((r) => r.target === 'direct');
  const varnish = runs.find((r) => r.target === 'varnish');
  const rows = runs.map((run) => [
    run.target,
    String(run.status),
    run.complete ? 'yes' : 'NO',
    fixed(run.ttfbMs, 0),
    fixed(run.totalMs / 1000, 2),
    fixed(run.mibPerSec, 1),
    run.target === 'direct' ? '–' : ratio(run.mibPerSec, direct?.mibPerSec),
    run.target === 'direct' ? '–' : ratio(run.mibPerSec, varnish?.mibPerSec),
    String(run.origin.requests),
    fixed(run.origin.bytes / 2 ** 20, 1),
  ]);
  return {
    columns: [
      'target',
      'status',
      'complete',
      'first byte ms',
      'total s',
      'MiB/s',
      'vs direct single stream',
      'vs Varnish',
      'origin requests',
      'origin MiB',
    ],
    rows,
  };
}

function pct(value: number): string {
  return Number.isFinite(value) ? `${(value * 100).toFixed(0)} %` : '–';
}
