// The project's performance targets (docs/benchmarks.md lists them), judged from one run's results (`npm run bench`'s,
// and bench:hit-cost's hot hits): each a measured ratio beside its bound. Pure: suite-report.ts prints it.

import type { OriginProfile } from '../setup/origin-profiles.ts';
import { FRONT_NAME, type TargetName } from '../setup/targets.ts';
import type { ConcurrentRun } from '../workloads/cold-concurrent.ts';
import type { ColdRun } from '../workloads/cold-large-object.ts';
import type { VRun } from '../workloads/concurrency-sweep.ts';
import type { SRun } from '../workloads/size-sweep.ts';
import type { Table } from './results.ts';

const MB = 1e6;
const KB = 1e3;
/** The warm small hits' sizes: Workload V's objects from 10 to 50 KB, at c = 100. */
const SMALL_MIN_BYTES = 10 * KB;
const SMALL_MAX_BYTES = 50 * KB;
const SMALL_CONCURRENCY = 100;
/**
 * The hot hits' bounds, judged on the edge's own socket (as deployed, no local front before it):
 * at least 0.9× the naive Map worker (the runtime's ceiling for a hit) and 2× the naive
 * caches.default worker, in req/s (Workload V) and in hits per workerd CPU second (bench:hit-cost).
 */
const HOT_HIT_BOUNDS = [
  ['naive-map', 0.9],
  ['naive-cache', 2],
] as const;
/**
 * workerd's resident memory growth while it moves a 1 GiB download, or five at once: large
 * downloads must fit well inside the 128 MB a Worker's isolate has in production.
 */
const MEMORY_LIMIT_BYTES = 96 * MB;
/** The cold large object's first byte: slicing it must not keep a reader waiting for the first slices. */
const FIRST_BYTE_MS = 200;

/** Each target named by what it measures, as docs/benchmarks.md's table describes it. */
type TargetId =
  | 'warm-small-hits'
  | 'hot-hit-cpu'
  | 'warm-large'
  | 'cold-large'
  | 'cold-first-byte'
  | 'memory-growth'
  | 'workload-s-warm'
  | 'cold-together'
  | 'cold-together-memory'
  | 'egress';

/**
 * A target whose measurement is missing says why: a peer not installed, or a size the plan (quick mode) did not run.
 */
type Verdict = 'met' | 'not met' | 'n/a (peer not installed)' | 'n/a (not measured)';

export interface TargetRow {
  /** What the target measures (docs/benchmarks.md's table, in its order). */
  id: TargetId;
  requirement: string;
  /** The numbers the ratio comes from. */
  measured: string;
  /** Measured over the reference (or over the bound, for the first byte and the memory growths). */
  ratio?: number;
  /** `ratio` must be at least this (`atLeast`), or at most / under it. */
  bound: number;
  compare: '≥' | '≤' | '<';
  verdict: Verdict;
  /**
   * warm-large and workload-s-warm: the same ratio for the naive workers on tiercache's runtime,
   * where they ran: how far any worker gets on it, so a target not met on this runtime can be
   * told apart from a slow tiercache.
   */
  ceiling?: string;
}

/** bench:memory's phases, from this run or from its latest results file. */
export interface MemoryEvidence {
  /** Where it comes from: this run, or an earlier results file (short: it is printed in the table). */
  source: string;
  objectBytes: number;
  phases: { phase: 'cold' | 'warm'; growthBytes: number; bytesOk: boolean }[];
}

export interface TargetInputs {
  /** The caches that ran (tiercache first); peers absent here were not installed. */
  caches: readonly TargetName[];
  /** Workload V's objects. */
  vSizes: { label: string; size: number }[];
  workloadS: readonly SRun[];
  workloadV: readonly VRun[];
  coldLarge: readonly ColdRun[];
  coldLabel: string;
  profile: OriginProfile;
  sliceSize: number;
  memory?: MemoryEvidence;
  /** Several cold downloads at once (cold-concurrent.ts). */
  together?: ConcurrentRun;
}

export function evaluateTargets(inputs: TargetInputs): TargetRow[] {
  return [
    ...warmSmallHits(inputs),
    warmLarge(inputs),
    ...coldLarge(inputs),
    ...memoryGrowth(inputs),
    ...workloadSWarm(inputs),
    ...coldTogether(inputs),
  ];
}

export function targetsTable(rows: readonly TargetRow[]): Table {
  return {
    columns: [
      'target',
      'requirement',
      'measured',
      'ratio',
      'verdict',
      "same ratio, naive workers on tiercache's runtime",
    ],
    rows: rows.map((row) => [
      row.id,
      row.requirement,
      row.measured,
      row.ratio === undefined ? '–' : `${row.ratio.toFixed(2)} (${row.compare} ${row.bound})`,
      row.verdict,
      row.ceiling ?? '–',
    ]),
  };
}

/**
 * warm-small-hits: tiercache's edge hits on 10–50 KB at c = 100, on the edge's own socket, against
 * the naive baselines, per size; judged on the minimum. The same edge through the local front,
 * where it ran, is said beside it and not judged: the front is `npm start`'s, not production's.
 */
function warmSmallHits(inputs: TargetInputs): TargetRow[] {
  const sizes = inputs.vSizes.filter((s) => s.size >= SMALL_MIN_BYTES && s.size <= SMALL_MAX_BYTES);
  const rate = (size: string, target: TargetName) =>
    inputs.workloadV.find((r) => r.size === size && r.concurrency === SMALL_CONCURRENCY && r.target === target)?.load
      .reqPerSec;
  return HOT_HIT_BOUNDS.map(([baseline, bound]) => {
    const ratiosOf = (ours: TargetName) =>
      sizes.flatMap((s) => {
        const mine = rate(s.label, ours);
        const theirs = rate(s.label, baseline);
        return mine !== undefined && theirs ? [{ label: s.label, ratio: mine / theirs }] : [];
      });
    const ratios = ratiosOf('tiercache');
    const requirement = `hot hits, 10–50 KB at c = ${SMALL_CONCURRENCY}, on the edge's own socket: tiercache req/s ≥ ${bound}× ${baseline}'s (each size; judged on the minimum)`;
    if (ratios.length === 0)
      return { id: 'warm-small-hits', requirement, measured: '–', bound, compare: '≥', verdict: 'n/a (not measured)' };
    const minimum = Math.min(...ratios.map((r) => r.ratio));
    const fronted = ratiosOf(FRONT_NAME);
    const front =
      fronted.length === 0
        ? ''
        : ` (through the local front, not judged: min ${Math.min(...fronted.map((r) => r.ratio)).toFixed(2)}×)`;
    const measured = `${ratios.map((r) => `${r.label} ${r.ratio.toFixed(2)}×`).join(', ')}; min ${minimum.toFixed(2)}×${front}`;
    return judged({ id: 'warm-small-hits', requirement, measured, bound, compare: '≥' }, minimum);
  });
}

/** One target's warm hits in bench:hit-cost: workerd's CPU per request. */
interface HitCost {
  cpuUsPerRequest: number;
}

/** bench:hit-cost's readings of one run: tiercache's memory hits on the edge's own socket, and the baselines'. */
export interface HotHitInputs {
  /** The object's size as printed, `20 KB`. */
  label: string;
  tiercache: HitCost;
  baselines: Partial<Record<'naive-map' | 'naive-cache', HitCost>>;
  /** The same edge through the local front, said beside and not judged: its workerd CPU and the front's own (Node). */
  front?: HitCost & { frontCpuUsPerRequest: number };
}

/**
 * hot-hit-cpu: warm hits per workerd CPU second, tiercache's edge memory hit on its own socket
 * against each naive baseline's (their CPU per hit over tiercache's), with the warm small hits' bounds.
 */
export function hotHitTargets(inputs: HotHitInputs): TargetRow[] {
  const ours = inputs.tiercache.cpuUsPerRequest;
  const front = inputs.front
    ? ` (through the local front, not judged: workerd ${inputs.front.cpuUsPerRequest.toFixed(1)} µs + the front ${inputs.front.frontCpuUsPerRequest.toFixed(1)} µs)`
    : '';
  return HOT_HIT_BOUNDS.map(([baseline, bound]) => {
    const requirement = `hot hits, CPU: a warm ${inputs.label} memory hit on the edge's own socket, hits per workerd CPU second ≥ ${bound}× ${baseline}'s`;
    const base = { id: 'hot-hit-cpu', requirement, bound, compare: '≥' } as const;
    const theirs = inputs.baselines[baseline]?.cpuUsPerRequest;
    if (theirs === undefined) return { ...base, measured: '–', verdict: 'n/a (not measured)' };
    const measured = `tiercache ${ours.toFixed(1)} µs, ${baseline} ${theirs.toFixed(1)} µs per hit${front}`;
    return judged({ ...base, measured }, theirs / ours);
  });
}

/** warm-large: tiercache's 50 MB warm throughput against Varnish's (Workload S). */
function warmLarge(inputs: TargetInputs): TargetRow {
  const requirement = "large warm: tiercache 50 MB warm MiB/s ≥ 0.8× Varnish's (Workload S)";
  const base = { id: 'warm-large', requirement, bound: 0.8, compare: '≥' } as const;
  const ours = sRun(inputs, '50 MB', 'tiercache', 'warm');
  if (!ours) return { ...base, measured: '–', verdict: 'n/a (not measured)' };
  if (!inputs.caches.includes('varnish'))
    return {
      ...base,
      measured: `tiercache ${ours.load.mibPerSec.toFixed(0)} MiB/s`,
      verdict: 'n/a (peer not installed)',
    };
  const varnish = sRun(inputs, '50 MB', 'varnish', 'warm');
  if (!varnish) return { ...base, measured: '–', verdict: 'n/a (not measured)' };
  const row = judged(
    {
      ...base,
      measured: `tiercache ${ours.load.mibPerSec.toFixed(0)} MiB/s, Varnish ${varnish.load.mibPerSec.toFixed(0)} MiB/s`,
    },
    ours.load.mibPerSec / varnish.load.mibPerSec,
  );
  return withCeiling(row, inputs, '50 MB', (naive) => naive.load.mibPerSec / varnish.load.mibPerSec);
}

/**
 * cold-large: the cold large object against a direct single stream, nginx slice and Varnish; cold-first-byte: its first
 * byte.
 */
function coldLarge(inputs: TargetInputs): TargetRow[] {
  const find = (target: TargetName) => inputs.coldLarge.find((r) => r.target === target && r.complete);
  const ours = find('tiercache');
  const label = `${inputs.coldLabel} cold`;
  const versus = (target: TargetName, name: string, bound: number): TargetRow => {
    const requirement = `cold large: ${label} throughput ≥ ${bound}× ${name}`;
    const base = { id: 'cold-large', requirement, bound, compare: '≥' } as const;
    if (target !== 'direct' && !inputs.caches.includes(target))
      return { ...base, measured: '–', verdict: 'n/a (peer not installed)' };
    const theirs = find(target);
    if (!ours || !theirs) return { ...base, measured: '–', verdict: 'n/a (not measured)' };
    return judged(
      {
        ...base,
        measured: `tiercache ${ours.mibPerSec.toFixed(1)} MiB/s, ${name} ${theirs.mibPerSec.toFixed(1)} MiB/s`,
      },
      ours.mibPerSec / theirs.mibPerSec,
    );
  };
  const requirement = `cold large: first byte ≤ ${FIRST_BYTE_MS} ms`;
  const firstByte: TargetRow = ours
    ? judged(
        { id: 'cold-first-byte', requirement, measured: `${ours.ttfbMs.toFixed(0)} ms`, bound: 1, compare: '≤' },
        ours.ttfbMs / FIRST_BYTE_MS,
      )
    : { id: 'cold-first-byte', requirement, measured: '–', bound: 1, compare: '≤', verdict: 'n/a (not measured)' };
  return [
    versus('direct', 'a direct single stream', 8),
    versus('nginx-slice', 'nginx slice', 6),
    versus('varnish', 'Varnish', 6),
    firstByte,
  ];
}

/** memory-growth: bench:memory's 1 GiB download, cold and warm: workerd's resident memory growth under 96 MB. */
function memoryGrowth(inputs: TargetInputs): TargetRow[] {
  return (['cold', 'warm'] as const).map((name) => {
    const memory = inputs.memory;
    const size = memory
      ? `${(memory.objectBytes / 2 ** 30).toFixed(memory.objectBytes % 2 ** 30 === 0 ? 0 : 2)} GiB`
      : '1 GiB';
    const requirement = `memory: ${size} ${name} through both tiers, workerd RSS growth < ${MEMORY_LIMIT_BYTES / MB} MB`;
    const phase = memory?.phases.find((p) => p.phase === name);
    if (!memory || !phase)
      return { id: 'memory-growth', requirement, measured: '–', bound: 1, compare: '<', verdict: 'n/a (not measured)' };
    const row = judged(
      {
        id: 'memory-growth',
        requirement,
        measured: `${(phase.growthBytes / MB).toFixed(1)} MB${phase.bytesOk ? '' : ' (WRONG BYTES)'} (${memory.source})`,
        bound: 1,
        compare: '<',
      },
      phase.growthBytes / MEMORY_LIMIT_BYTES,
    );
    return phase.bytesOk ? row : { ...row, verdict: 'not met' };
  });
}

/** workload-s-warm: Workload S warm, tiercache's speed-up over direct against Varnish's. */
function workloadSWarm(inputs: TargetInputs): TargetRow[] {
  return (
    [
      ['100 KB', 0.8],
      ['10 MB', 1],
      ['50 MB', 1],
    ] as const
  ).map(([size, bound]) => {
    const requirement = `Workload S warm, ${size}: tiercache's × faster than direct ≥ ${bound}× Varnish's`;
    const base = { id: 'workload-s-warm', requirement, bound, compare: '≥' } as const;
    const direct = sRun(inputs, size, 'direct', 'direct');
    const ours = sRun(inputs, size, 'tiercache', 'warm');
    if (!direct || !ours) return { ...base, measured: '–', verdict: 'n/a (not measured)' };
    const speedUp = direct.load.elapsedSec / ours.load.elapsedSec;
    if (!inputs.caches.includes('varnish'))
      return { ...base, measured: `tiercache ${speedUp.toFixed(2)}×`, verdict: 'n/a (peer not installed)' };
    const varnish = sRun(inputs, size, 'varnish', 'warm');
    if (!varnish) return { ...base, measured: '–', verdict: 'n/a (not measured)' };
    const theirs = direct.load.elapsedSec / varnish.load.elapsedSec;
    const row = judged(
      { ...base, measured: `tiercache ${speedUp.toFixed(2)}×, Varnish ${theirs.toFixed(2)}×` },
      speedUp / theirs,
    );
    return withCeiling(row, inputs, size, (naive) => direct.load.elapsedSec / naive.load.elapsedSec / theirs);
  });
}

const NAIVE: readonly TargetName[] = ['naive-map', 'naive-cache'];

/** `row` with the naive workers' ratio at `size` beside it (their warm Workload S runs), where they ran. */
function withCeiling(row: TargetRow, inputs: TargetInputs, size: string, ratioOf: (naive: SRun) => number): TargetRow {
  const ratios = NAIVE.flatMap((name) => {
    const run = sRun(inputs, size, name, 'warm');
    const ratio = run && ratioOf(run);
    return ratio !== undefined && Number.isFinite(ratio) ? [`${name} ${ratio.toFixed(2)}`] : [];
  });
  return ratios.length === 0 ? row : { ...row, ceiling: ratios.join(', ') };
}

function sRun(inputs: TargetInputs, size: string, target: TargetName, phase: SRun['phase']): SRun | undefined {
  return inputs.workloadS.find((r) => r.size === size && r.target === target && r.phase === phase);
}

function judged(row: Omit<TargetRow, 'ratio' | 'verdict'>, ratio: number): TargetRow {
  if (!Number.isFinite(ratio)) return { ...row, verdict: 'n/a (not measured)' };
  const pass = row.compare === '≥' ? ratio >= row.bound : row.compare === '≤' ? ratio <= row.bound : ratio < row.bound;
  return { ...row, ratio, verdict: pass ? 'met' : 'not met' };
}

/**
 * cold-together: several cold downloads of different objects at once, together against one direct stream each;
 * cold-together-memory: workerd's memory growth meanwhile.
 */
function coldTogether(inputs: TargetInputs): TargetRow[] {
  const { together } = inputs;
  const direct = inputs.coldLarge.find((r) => r.target === 'direct' && r.complete);
  const what = together ? `${together.count} cold ${together.label} downloads at once` : 'cold downloads at once';
  const count = together?.count ?? 5;
  const speed = `${what}: together ≥ ${count}× one direct single stream`;
  const memory = `${what}: workerd RSS growth < ${MEMORY_LIMIT_BYTES / MB} MB`;
  if (!together || !direct) {
    return [
      {
        id: 'cold-together',
        requirement: speed,
        measured: '–',
        bound: count,
        compare: '≥',
        verdict: 'n/a (not measured)',
      },
      {
        id: 'cold-together-memory',
        requirement: memory,
        measured: '–',
        bound: 1,
        compare: '<',
        verdict: 'n/a (not measured)',
      },
    ];
  }
  const complete = together.downloads.every((d) => d.complete);
  const each = together.downloads.map((d) => d.mibPerSec.toFixed(1)).join(', ');
  const fast = judged(
    {
      id: 'cold-together',
      requirement: speed,
      measured: `together ${together.togetherMiBPerSec.toFixed(1)} MiB/s (each ${each}${complete ? '' : ', INCOMPLETE'}), a direct single stream ${direct.mibPerSec.toFixed(1)} MiB/s`,
      bound: count,
      compare: '≥',
    },
    together.togetherMiBPerSec / direct.mibPerSec,
  );
  const small = judged(
    {
      id: 'cold-together-memory',
      requirement: memory,
      measured: `${(together.runtime.growthBytes / MB).toFixed(1)} MB`,
      bound: 1,
      compare: '<',
    },
    together.runtime.growthBytes / MEMORY_LIMIT_BYTES,
  );
  return complete
    ? [fast, small]
    : [
        { ...fast, verdict: 'not met' },
        { ...small, verdict: 'not met' },
      ];
}
