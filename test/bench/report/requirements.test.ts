// The suite's performance targets (bench/report/requirements.ts, listed in docs/benchmarks.md)
// judged on made-up results whose ratios are known: each one's met, not met and n/a (peer not
// installed, not measured), the warm small hits judged on their worst size, the memory growth
// from a memory.json (bench/report/memory-report.ts), the cold downloads together from
// concurrent cold downloads. No network, no processes.
import { describe, expect, it } from 'vitest';
import type { LoadResult } from '../../../bench/load/load-result.ts';
import { memoryEvidence } from '../../../bench/report/memory-report.ts';
import {
  evaluateTargets,
  hotHitTargets,
  type TargetInputs,
  type TargetRow,
  targetsTable,
} from '../../../bench/report/requirements.ts';
import { formatTable } from '../../../bench/report/results.ts';
import { ORIGIN_PROFILES } from '../../../bench/setup/origin-profiles.ts';
import { FRONT_NAME, type TargetName } from '../../../bench/setup/targets.ts';
import type { ConcurrentRun } from '../../../bench/workloads/cold-concurrent.ts';
import type { ColdRun } from '../../../bench/workloads/cold-large-object.ts';
import type { VRun } from '../../../bench/workloads/concurrency-sweep.ts';
import type { SRun } from '../../../bench/workloads/size-sweep.ts';

const MIB = 2 ** 20;

function load(fields: Partial<LoadResult>): LoadResult {
  return {
    tool: 'wrk 4.x',
    requests: 500,
    errors: 0,
    non2xx: 0,
    elapsedSec: 1,
    reqPerSec: 500,
    bytes: 0,
    mibPerSec: 0,
    latency: { meanMs: 1, p50Ms: 1, p99Ms: 1, maxMs: 1 },
    ...fields,
  };
}

function s(size: string, target: TargetName, phase: SRun['phase'], elapsedSec: number, mibPerSec = 0): SRun {
  return { size, target, phase, load: load({ elapsedSec, mibPerSec }), origin: { requests: 0, bytes: 0 } };
}

function v(size: string, target: TargetName, reqPerSec: number): VRun {
  return { size, concurrency: 100, target, load: load({ reqPerSec }) };
}

function cold(target: TargetName, mibPerSec: number, ttfbMs: number): ColdRun {
  return {
    target,
    status: 200,
    bytes: 256 * MIB,
    complete: true,
    ttfbMs,
    totalMs: 1000,
    mibPerSec,
    origin: { requests: 1, bytes: 256 * MIB },
  };
}

function together(each: number[], togetherMiBPerSec: number, growthBytes: number, complete = true): ConcurrentRun {
  return {
    count: each.length,
    label: '256 MiB',
    size: 256 * MIB,
    downloads: each.map((mibPerSec) => ({
      status: 200,
      bytes: complete ? 256 * MIB : MIB,
      complete,
      ttfbMs: 150,
      mibPerSec,
    })),
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
    // Outside the warm small hits' 10–50 KB: not judged.
    v('60 KB', 'tiercache', 1),
    v('60 KB', 'naive-map', 10_000),
  ],
  coldLarge: [
    cold('direct', 20, 80),
    cold('tiercache', 170, 150),
    cold('varnish', 20, 85),
    cold('nginx-slice', 30, 90),
  ],
  coldLabel: '256 MiB',
  profile: ORIGIN_PROFILES.ams,
  sliceSize: 8 * MIB,
  memory: memoryEvidence(memoryJson, 'a test'),
  together: together([25, 24, 23, 22, 21], 115, 90e6),
};

const finder = (rows: TargetRow[]) => (id: TargetRow['id'], includes: string) =>
  rows.find((r) => r.id === id && r.requirement.includes(includes));

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
    expect([...new Set(rows.map((r) => r.id))]).toEqual([
      'warm-small-hits',
      'warm-large',
      'cold-large',
      'cold-first-byte',
      'memory-growth',
      'workload-s-warm',
      'cold-together',
      'cold-together-memory',
    ]);
  });

  it('warm small hits: tiercache against each naive worker at c = 100, judged on the worst size from 10 to 50 KB', () => {
    expectJudged(row('warm-small-hits', 'naive-map'), 'not met', 0.8);
    expect(row('warm-small-hits', 'naive-map')?.measured).toBe('10 KB 0.90×, 50 KB 0.80×; min 0.80×');
    expectJudged(row('warm-small-hits', 'naive-cache'), 'met', 8000 / 3000);
  });

  it("warm small hits are judged on the edge's own socket; the same edge through the local front is said beside, not judged", () => {
    const fronted = finder(
      evaluateTargets({
        ...full,
        workloadV: [...full.workloadV, v('10 KB', FRONT_NAME, 5000), v('50 KB', FRONT_NAME, 6000)],
      }),
    );
    expectJudged(fronted('warm-small-hits', 'naive-map'), 'not met', 0.8);
    expect(fronted('warm-small-hits', 'naive-map')?.requirement).toContain("on the edge's own socket");
    expect(fronted('warm-small-hits', 'naive-map')?.measured).toBe(
      '10 KB 0.90×, 50 KB 0.80×; min 0.80× (through the local front, not judged: min 0.50×)',
    );
    expectJudged(fronted('warm-small-hits', 'naive-cache'), 'met', 8000 / 3000);
  });

  it("a warm 50 MB GET: MiB/s over Varnish's, with the naive workers' ratios beside it", () => {
    expectJudged(row('warm-large', ''), 'not met', 0.6);
    expect(row('warm-large', '')?.ceiling).toBe('naive-map 0.80, naive-cache 0.63');
  });

  it('the cold large object against direct (8×), nginx slice and Varnish (6× each); its first byte against 200 ms', () => {
    expectJudged(row('cold-large', 'direct'), 'met', 170 / 20);
    expect(row('cold-large', 'direct')?.bound).toBe(8);
    expectJudged(row('cold-large', 'nginx slice'), 'not met', 170 / 30);
    expectJudged(row('cold-large', 'Varnish'), 'met', 170 / 20);
    expect(row('cold-large', 'Varnish')?.bound).toBe(6);
    expectJudged(row('cold-first-byte', 'first byte'), 'met', 150 / 200);
    const late = finder(evaluateTargets({ ...full, coldLarge: [cold('direct', 20, 80), cold('tiercache', 170, 201)] }));
    expectJudged(late('cold-first-byte', 'first byte'), 'not met', 201 / 200);
  });

  it("the runtime's memory growth, 1 GiB cold and warm, from memory.json against 96 MB", () => {
    expectJudged(row('memory-growth', 'cold'), 'met', 72.7 / 96);
    expectJudged(row('memory-growth', 'warm'), 'not met', 130 / 96);
  });

  it('concurrent cold downloads together against one direct stream each, and their memory growth against 96 MB', () => {
    expectJudged(row('cold-together', 'together'), 'met', 115 / 20);
    expect(row('cold-together', 'together')?.requirement).toBe(
      '5 cold 256 MiB downloads at once: together ≥ 5× one direct single stream',
    );
    expectJudged(row('cold-together-memory', 'RSS'), 'met', 90 / 96);
    const slow = finder(evaluateTargets({ ...full, together: together([19, 19, 19, 19, 19], 95, 100e6) }));
    expectJudged(slow('cold-together', 'together'), 'not met', 95 / 20);
    expectJudged(slow('cold-together-memory', 'RSS'), 'not met', 100 / 96);
    // A download that did not complete fails both, whatever the numbers.
    const broken = finder(evaluateTargets({ ...full, together: together([30, 30, 30, 30, 30], 150, 10e6, false) }));
    expect(broken('cold-together', 'together')?.verdict).toBe('not met');
    expect(broken('cold-together-memory', 'RSS')?.verdict).toBe('not met');
    expect(broken('cold-together', 'together')?.measured).toContain('INCOMPLETE');
  });

  it("Workload S warm speed-ups against Varnish's, per size, with the naive workers' beside them where they ran", () => {
    expectJudged(row('workload-s-warm', '100 KB'), 'not met', 0.5);
    expectJudged(row('workload-s-warm', '10 MB'), 'met', 1);
    expectJudged(row('workload-s-warm', '50 MB'), 'not met', 0.5);
    expect(row('workload-s-warm', '50 MB')?.ceiling).toBe('naive-map 0.83, naive-cache 0.63');
    // No naive runs at 10 MB, and the warm small hits are judged against them: no ceiling.
    expect(row('workload-s-warm', '10 MB')?.ceiling).toBeUndefined();
    expect(row('warm-small-hits', 'naive-map')?.ceiling).toBeUndefined();
  });

  it('without the peers: their targets are n/a (peer not installed), the rest still judged', () => {
    const rowsAlone = evaluateTargets({
      ...full,
      caches: ['tiercache'],
      workloadS: full.workloadS.filter((r) => r.target !== 'varnish'),
      coldLarge: full.coldLarge.filter((r) => r.target === 'direct' || r.target === 'tiercache'),
    });
    const alone = finder(rowsAlone);
    expect(alone('warm-large', '')?.verdict).toBe('n/a (peer not installed)');
    expect(alone('cold-large', 'nginx slice')?.verdict).toBe('n/a (peer not installed)');
    expect(alone('cold-large', 'Varnish')?.verdict).toBe('n/a (peer not installed)');
    expect(alone('cold-large', 'direct')?.verdict).toBe('met');
    expect(rowsAlone.filter((r) => r.id === 'workload-s-warm').map((r) => r.verdict)).toEqual([
      'n/a (peer not installed)',
      'n/a (peer not installed)',
      'n/a (peer not installed)',
    ]);
    expect(alone('warm-small-hits', 'naive-map')?.verdict).toBe('not met');
  });

  it('a quick run: sizes not measured and no memory file are n/a (not measured)', () => {
    const quick = evaluateTargets({
      ...full,
      workloadS: full.workloadS.filter((r) => r.size !== '50 MB'),
      workloadV: [],
      memory: undefined,
      together: undefined,
    });
    const notMeasured = quick.filter(
      (r) =>
        r.id === 'warm-small-hits' ||
        r.id === 'warm-large' ||
        r.id === 'memory-growth' ||
        r.id === 'cold-together' ||
        r.id === 'cold-together-memory',
    );
    expect(notMeasured.length).toBeGreaterThan(0);
    for (const r of notMeasured) expect(r.verdict, `${r.id} ${r.requirement}`).toBe('n/a (not measured)');
    expect(quick.find((r) => r.id === 'workload-s-warm' && r.requirement.includes('50 MB'))?.verdict).toBe(
      'n/a (not measured)',
    );
  });
});

describe('hotHitTargets', () => {
  const inputs = {
    label: '20 KB',
    tiercache: { cpuUsPerRequest: 100 },
    baselines: { 'naive-map': { cpuUsPerRequest: 85 }, 'naive-cache': { cpuUsPerRequest: 500 } },
    front: { cpuUsPerRequest: 110, frontCpuUsPerRequest: 70 },
  };

  it("judges hits per workerd CPU second on the edge's own socket against each naive worker, the front said beside", () => {
    const [map, cache] = hotHitTargets(inputs);
    expect(map?.id).toBe('hot-hit-cpu');
    expect(map?.requirement).toContain("on the edge's own socket");
    expectJudged(map, 'not met', 0.85);
    expect(map?.bound).toBe(0.9);
    expect(map?.measured).toBe(
      'tiercache 100.0 µs, naive-map 85.0 µs per hit (through the local front, not judged: workerd 110.0 µs + the front 70.0 µs)',
    );
    expectJudged(cache, 'met', 5);
    expect(cache?.bound).toBe(2);
  });

  it('a baseline that did not run is n/a (not measured); without the front nothing is said of it', () => {
    const [map, cache] = hotHitTargets({
      ...inputs,
      baselines: { 'naive-map': { cpuUsPerRequest: 95 } },
      front: undefined,
    });
    expectJudged(map, 'met', 0.95);
    expect(map?.measured).toBe('tiercache 100.0 µs, naive-map 95.0 µs per hit');
    expect(cache?.verdict).toBe('n/a (not measured)');
  });
});

describe('memoryEvidence', () => {
  it("reads a memory.json's phases and refuses another benchmark's file", () => {
    expect(memoryEvidence(memoryJson, 'x')).toEqual({
      source: 'x',
      objectBytes: 1024 * MIB,
      phases: memoryJson.phases,
    });
    expect(memoryEvidence({ benchmark: 'clients' }, 'x')).toBeUndefined();
  });
});
