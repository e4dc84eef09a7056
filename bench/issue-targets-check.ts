// `node bench/issue-targets-check.ts`: evaluateTargets on made-up results whose ratios are known:
// each target's pass, short and n/a (peer not installed, not measured), T1 judged on its worst
// size, T3's first-byte bound from the profile, T4 from a memory.json. No network, no processes.
// Exits 1 when a verdict or a ratio is not what it must be.

import type { ColdRun } from './cold-large.ts';
import { evaluateTargets, type TargetInputs, type TargetRow, targetsTable } from './issue-targets.ts';
import type { LoadResult } from './load.ts';
import { memoryEvidence } from './memory-report.ts';
import { ORIGIN_PROFILES } from './origin-profiles.ts';
import { formatTable } from './report.ts';
import type { TargetName } from './targets.ts';
import type { SRun } from './workload-s.ts';
import type { VRun } from './workload-v.ts';

const MIB = 2 ** 20;
const failures: string[] = [];
const expect = (ok: boolean, what: string) => void (ok || failures.push(what));

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
  coldLarge: [cold('direct', 20, 80), cold('tiercache', 80, 420), cold('varnish', 20, 85), cold('nginx-slice', 30, 90)],
  coldLabel: '256 MiB',
  profile: ORIGIN_PROFILES.ams,
  sliceSize: 8 * MIB,
  memory: memoryEvidence(memoryJson, 'a test'),
};

const rows = evaluateTargets(full);
console.log(formatTable(targetsTable(rows)));
const row = (id: TargetRow['id'], includes: string) => rows.find((r) => r.id === id && r.requirement.includes(includes));
const is = (r: TargetRow | undefined, verdict: TargetRow['verdict'], ratio?: number) => r?.verdict === verdict && (ratio === undefined || Math.abs((r.ratio ?? Number.NaN) - ratio) < 1e-9);

expect(rows.length === 12, `12 rows (got ${rows.length})`);
expect(is(row('T1', 'naive-map'), 'short', 0.8), 'T1 vs naive-map: the worst of 0.9 and 0.8 is 0.8, short of 0.9; 60 KB not judged');
expect(row('T1', 'naive-map')?.measured === '10 KB 0.90×, 50 KB 0.80×; min 0.80×', `T1 lists every size (got ${row('T1', 'naive-map')?.measured})`);
expect(is(row('T1', 'naive-cache'), 'pass', 8000 / 3000), 'T1 vs naive-cache: 2.67 ≥ 2');
expect(is(row('T2', ''), 'short', 0.6), 'T2: 1200 / 2000 = 0.6, short of 0.8');
expect(is(row('T3', 'direct'), 'pass', 4), 'T3 vs direct: 4 ≥ 3.5');
expect(is(row('T3', 'nginx slice'), 'short', 80 / 30), 'T3 vs nginx slice: 2.67, short of 3');
expect(is(row('T3', 'Varnish'), 'pass', 4), 'T3 vs Varnish: 4 ≥ 3');
expect(is(row('T3', 'first byte'), 'short', 420 / (80 + (8 * MIB) / 25e3)), "T3 first byte: 420 ms over one slice's 415.5 ms");
expect(row('T3', 'first byte')?.requirement.includes('= 416 ms') === true, 'T3 states the bound from the profile');
expect(is(row('T4', 'cold'), 'pass', 72.7 / 128), 'T4 cold: 72.7 MB < 128 MB');
expect(is(row('T4', 'warm'), 'short'), 'T4 warm: 130 MB is not < 128 MB');
expect(is(row('T5', '100 KB'), 'short', 0.5), 'T5 100 KB: 40× vs 80× = 0.5, short of 0.8');
expect(is(row('T5', '10 MB'), 'pass', 1), 'T5 10 MB: 5× vs 5× = 1.0 ≥ 1.0');
expect(is(row('T5', '50 MB'), 'short', 0.5), 'T5 50 MB: 5× vs 10× = 0.5');
expect(row('T2', '')?.ceiling === 'naive-map 0.80, naive-cache 0.63', `T2 beside the naive workers' 1600 and 1250 / 2000 (got ${row('T2', '')?.ceiling})`);
expect(row('T5', '50 MB')?.ceiling === 'naive-map 0.83, naive-cache 0.63', `T5 50 MB beside the naive workers' 100/12 and 100/16 over 10× (got ${row('T5', '50 MB')?.ceiling})`);
expect(row('T5', '10 MB')?.ceiling === undefined && row('T1', 'naive-map')?.ceiling === undefined, 'no naive runs at a size, or T1 (judged against them): no ceiling');

// Without the peers: their targets are n/a, the rest still judged.
const alone = evaluateTargets({ ...full, caches: ['tiercache'], workloadS: full.workloadS.filter((r) => r.target !== 'varnish'), coldLarge: full.coldLarge.filter((r) => r.target === 'direct' || r.target === 'tiercache') });
const aloneRow = (id: TargetRow['id'], includes: string) => alone.find((r) => r.id === id && r.requirement.includes(includes));
expect(aloneRow('T2', '')?.verdict === 'n/a (peer not installed)', 'no Varnish: T2 n/a (peer not installed)');
expect(aloneRow('T3', 'nginx slice')?.verdict === 'n/a (peer not installed)' && aloneRow('T3', 'Varnish')?.verdict === 'n/a (peer not installed)', 'no peers: T3 vs peers n/a');
expect(aloneRow('T3', 'direct')?.verdict === 'pass', 'no peers: T3 vs direct still judged');
expect(alone.filter((r) => r.id === 'T5').every((r) => r.verdict === 'n/a (peer not installed)'), 'no Varnish: T5 n/a (peer not installed)');
expect(aloneRow('T1', 'naive-map')?.verdict === 'short', 'no peers: T1 needs none');

// A quick run: sizes not measured, and no memory file.
const quick = evaluateTargets({ ...full, workloadS: full.workloadS.filter((r) => r.size !== '50 MB'), workloadV: [], memory: undefined });
expect(quick.filter((r) => r.id === 'T1' || r.id === 'T2' || r.id === 'T4').every((r) => r.verdict === 'n/a (not measured)'), 'quick: T1, T2 and T4 not measured');
expect(quick.find((r) => r.id === 'T5' && r.requirement.includes('50 MB'))?.verdict === 'n/a (not measured)', 'quick: T5 at 50 MB not measured');
expect(memoryEvidence({ benchmark: 'clients' }, 'x') === undefined, 'memoryEvidence refuses another benchmark\'s file');

for (const failure of failures) console.error(`FAIL ${failure}`);
console.log(failures.length === 0 ? '\nissue-targets-check: PASS' : `\nissue-targets-check: ${failures.length} FAILED`);
process.exitCode = failures.length === 0 ? 0 : 1;
