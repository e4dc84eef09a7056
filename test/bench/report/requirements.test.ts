// The suite's requirements (issue 6's targets T1–T5, T3 and T4 raised by issue 15, and its T6;
// bench/report/requirements.ts) judged on made-up results whose ratios are known: each one's
// pass, short and n/a (peer not installed, not measured), T1 judged on its worst size, T4 from
// a memory.json (bench/report/memory-report.ts), T6 from concurrent cold downloads. No network,
// no processes.
import { describe, expect, it } from 'vitest';
import type { LoadResult } from '../../../bench/load/load-result.ts';
import { memoryEvidence } from '../../../bench/report/memory-report.ts';
import { evaluateTargets, type TargetInputs, type TargetRow, targetsTable } from '../../../bench/report/requirements.ts';
import { formatTable } from '../../../bench/report/results.ts';
import { ORIGIN_PROFILES } from '../../../bench/setup/origin-profiles.ts';
import type { TargetName } from '../../../bench/setup/targets.ts';
import type { ColdRun } from '../../../bench/workloads/cold-large-object.ts';
import type { ConcurrentRun } from '../../../bench/workloads/cold-concurrent.ts';
import type { VRun } from '../../../bench/workloads/concurrency-sweep.ts';
import type { SRun } from '../../../bench/workloads/size-sweep.ts';

const MIB = 2 ** 20;

function load(fields: Partial<LoadResult>): LoadResult {
  return { tool: 'wrk 4.x', requests: 500, errors: 0, non2xx: 0, elapsedSec: 1, reqPerSec: 500, bytes: 0, mibPerSec: 0, latency: { meanMs: 1, p50Ms: 1, p99Ms: 1, maxMs: 1 }, ...fields };
}

function s(size: string, target: TargetName, phase: SRun['phase'], elapsedSec: number, mibPerSec = 0): SRun {
  return { size, target, phase, load: load({ elapsedSec, mibPerSec }), origin: { requests: 0, bytes: 0 } };
}

function v(size: string, target: TargetName, reqPerSec: number): VRun {
  return { size, concurrency: 100, target, load: load({ reqPerSec }) };
}

function cold(target: TargetName, mibPerSec: number, ttfbMs: number): ColdRun {
  return { target, status: 200, bytes: 256 * MIB, complete: true, ttfbMs, totalMs: 1000, mibPerSec, origin: { requests: 1, bytes: 256 * MIB } };
}

function together(each: number[], togetherMiBPerSec: number, growthBytes: number, complete = true): ConcurrentRun {
  return {
    count: each.length,
    label: '256 MiB',
    size: 256 * MIB,
    downloads: each.map((mibPerSec) => ({ status: 200, bytes: complete ? 256 * MIB : MIB, complete, ttfbMs: 150, mibPerSec })),
    togetherMiBPerSec,
    totalMs: 10_000,
    runtime: { pids: [1], baselineBytes: 80e6, peakBytes: 80e6 + growthBytes, growthBytes },
  };
}

const memoryJson = {
  benchmark: 'memory',
  object: { size: 1024 * MIB },
  phases: [
    { phase: 'cold', growthBytes: 72.7e6, bytesOk: true },
    { phase: 'warm', growthBytes: 130e6, bytesOk: true },
  ],
};

const full: TargetInputs = {
  caches: ['tiercache', 'varnish', 'nginx', 'nginx-slice'],
  vSizes: [
    { label: '10 KB', size: 10_000 },
    { label: '50 KB', size: 50_000 },
    { label: '60 KB', size: 60_000 },
  ],
  workloadS: [
    s('100 KB', 'direct', 'direct', 4),
    s('100 KB', 'tiercache', 'warm', 0.1),
    s('100 KB', 'varnish', 'warm', 0.05),
    s('10 MB', 'direct', 'direct', 20),
    s('10 MB', 'tiercache', 'warm', 4),
    s('10 MB', 'varnish', 'warm', 4),
    s('50 MB', 'direct', 'direct', 100),
    s('50 MB', 'tiercache', 'warm', 20, 1200),
    s('50 MB', 'varnish', 'warm', 10, 2000),
    s('50 MB', 'naive-map', 'warm', 12, 1600),
    s('50 MB', 'naive-cache', 'warm', 16, 1250),
  ],
  workloadV: [
    v('10 KB', 'tiercache', 9000),
    v('10 KB', 'naive-map', 10_000),
    v('10 KB', 'naive-cache', 3000),
    v('50 KB', 'tiercache', 8000),
    v('50 KB', 'naive-map', 10_000),
    v('50 KB', 'naive-cache', 3000),
    // Outside T1's 10–50 KB: not judged.
    v('60 KB', 'tiercache', 1),
    v('60 KB', 'naive-map', 10_000),
  ],
  coldLarge: [cold('direct', 20, 80), cold('tiercache', 170, 150), cold('varnish', 20, 85), cold('nginx-slice', 30, 90)],
  coldLabel: '256 MiB',
  profile: ORIGIN_PROFILES.ams,
  sliceSize: 8 * MIB,
  memory: memoryEvidence(memoryJson, 'a test'),
  together: together([25, 24, 23, 22, 21], 115, 90e6),
};

const finder = (rows: TargetRow[]) => (id: TargetRow['id'], includes: string) => rows.find((r) => r.id === id && r.requirement.includes(includes));

/** The row's verdict and, when given, its ratio (to 1e-9). */
function expectJudged(row: TargetRow | undefined, verdict: TargetRow['verdict'], ratio?: number): void {
  expect(row?.verdict).toBe(verdict);
  if (ratio !== undefined) expect(row?.ratio ?? Number.NaN).toBeCloseTo(ratio, 9);
}

describe('evaluateTargets', () => {
  const rows = evaluateTargets(full);
  const row = finder(rows);

  it('judges every target of a full run with every peer, into a table of 14 rows', () => {
    expect(rows).toHaveLength(14);
    expect(formatTable(targetsTable(rows)).split('\n')).toHaveLength(2 + 14);
  });

  it('T1: tiercache against each naive worker at c = 100, judged on the worst size from 10 to 50 KB', () => {
    expectJudged(row('T1', 'naive-map'), 'short', 0.8);
    expect(row('T1', 'naive-map')?.measured).toBe('10 KB 0.90×, 50 KB 0.80×; min 0.80×');
    expectJudged(row('T1', 'naive-cache'), 'pass', 8000 / 3000);
  });

  it("T2: 50 MB warm MiB/s over Varnish's, with the naive workers' ratios beside it", () => {
    expectJudged(row('T2', ''), 'short', 0.6);
    expect(row('T2', '')?.ceiling).toBe('naive-map 0.80, naive-cache 0.63');
  });

  it('T3: the cold large object against direct (8×), nginx slice and Varnish (6× each); its first byte against 200 ms', () => {
    expectJudged(row('T3', 'direct'), 'pass', 170 / 20);
    expect(row('T3', 'direct')?.bound).toBe(8);
    expectJudged(row('T3', 'nginx slice'), 'short', 170 / 30);
    expectJudged(row('T3', 'Varnish'), 'pass', 170 / 20);
    expect(row('T3', 'Varnish')?.bound).toBe(6);
    expectJudged(row('T3', 'first byte'), 'pass', 150 / 200);
    const late = finder(evaluateTargets({ ...full, coldLarge: [cold('direct', 20, 80), cold('tiercache', 170, 201)] }));
    expectJudged(late('T3', 'first byte'), 'short', 201 / 200);
  });

  it('T4: memory growth from memory.json against 96 MB', () => {
    expectJudged(row('T4', 'cold'), 'pass', 72.7 / 96);
    expectJudged(row('T4', 'warm'), 'short', 130 / 96);
  });

  it('T6: concurrent cold downloads together against one direct stream each, and their memory growth against 96 MB', () => {
    expectJudged(row('T6', 'together'), 'pass', 115 / 20);
    expect(row('T6', 'together')?.requirement).toBe('5 cold 256 MiB downloads at once: together ≥ 5× one direct single stream');
    expectJudged(row('T6', 'RSS'), 'pass', 90 / 96);
    const slow = finder(evaluateTargets({ ...full, together: together([19, 19, 19, 19, 19], 95, 100e6) }));
    expectJudged(slow('T6', 'together'), 'short', 95 / 20);
    expectJudged(slow('T6', 'RSS'), 'short', 100 / 96);
    // A download that did not complete fails both, whatever the numbers.
    const broken = finder(evaluateTargets({ ...full, together: together([30, 30, 30, 30, 30], 150, 10e6, false) }));
    expect(broken('T6', 'together')?.verdict).toBe('short');
    expect(broken('T6', 'RSS')?.verdict).toBe('short');
    expect(broken('T6', 'together')?.measured).toContain('INCOMPLETE');
  });

  it("T5: Workload S warm speed-ups against Varnish's, per size, with the naive workers' beside them where they ran", () => {
    expectJudged(row('T5', '100 KB'), 'short', 0.5);
    expectJudged(row('T5', '10 MB'), 'pass', 1);
    expectJudged(row('T5', '50 MB'), 'short', 0.5);
    expect(row('T5', '50 MB')?.ceiling).toBe('naive-map 0.83, naive-cache 0.63');
    // No naive runs at 10 MB, and T1 is judged against them: no ceiling.
    expect(row('T5', '10 MB')?.ceiling).toBeUndefined();
    expect(row('T1', 'naive-map')?.ceiling).toBeUndefined();
  });

  it('without the peers: their targets are n/a (peer not installed), the rest still judged', () => {
    const rowsAlone = evaluateTargets({ ...full, caches: ['tiercache'], workloadS: full.workloadS.filter((r) => r.target !== 'varnish'), coldLarge: full.coldLarge.filter((r) => r.target === 'direct' || r.target === 'tiercache') });
    const alone = finder(rowsAlone);
    expect(alone('T2', '')?.verdict).toBe('n/a (peer not installed)');
    expect(alone('T3', 'nginx slice')?.verdict).toBe('n/a (peer not installed)');
    expect(alone('T3', 'Varnish')?.verdict).toBe('n/a (peer not installed)');
    expect(alone('T3', 'direct')?.verdict).toBe('pass');
    expect(rowsAlone.filter((r) => r.id === 'T5').map((r) => r.verdict)).toEqual(['n/a (peer not installed)', 'n/a (peer not installed)', 'n/a (peer not installed)']);
    expect(alone('T1', 'naive-map')?.verdict).toBe('short');
  });

  it('a quick run: sizes not measured and no memory file are n/a (not measured)', () => {
    const quick = evaluateTargets({ ...full, workloadS: full.workloadS.filter((r) => r.size !== '50 MB'), workloadV: [], memory: undefined, together: undefined });
    const notMeasured = quick.filter((r) => r.id === 'T1' || r.id === 'T2' || r.id === 'T4' || r.id === 'T6');
    expect(notMeasured.length).toBeGreaterThan(0);
    for (const r of notMeasured) expect(r.verdict, `${r.id} ${r.requirement}`).toBe('n/a (not measured)');
    expect(quick.find((r) => r.id === 'T5' && r.requirement.includes('50 MB'))?.verdict).toBe('n/a (not measured)');
  });
});

describe('memoryEvidence', () => {
  it("reads a memory.json's phases and refuses another benchmark's file", () => {
    expect(memoryEvidence(memoryJson, 'x')).toEqual({ source: 'x', objectBytes: 1024 * MIB, phases: memoryJson.phases });
    expect(memoryEvidence({ benchmark: 'clients' }, 'x')).toBeUndefined();
  });
});
