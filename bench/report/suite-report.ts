// The suite's results folder: report.md (what ran on what, the performance targets, tables, headlines),
// results.json (every raw number) and SVG charts, in bench/results/<timestamp>/.

import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { LoadResult } from '../load/load-result.ts';
import { describePageCost, type PageCost } from '../probes/page-cost.ts';
import type { OriginProfile } from '../setup/origin-profiles.ts';
import { FRONT_NAME, type TargetName } from '../setup/targets.ts';
import type { ColdRun } from '../workloads/cold-large-object.ts';
import type { VRun } from '../workloads/concurrency-sweep.ts';
import { BODY_KIB, type LayerMeasurement, type LayerPlan } from '../workloads/layer-costs.ts';
import type { SResult } from '../workloads/size-sweep.ts';
import { barChart, lineChart } from './charts.ts';
import { type EgressEvidence, egressSummary } from './egress-report.ts';
import { layerCosts, layersTable } from './layers-table.ts';
import { type MemoryEvidence, type TargetRow, targetsTable } from './requirements.ts';
import { formatTable, type Machine, writeResults } from './results.ts';
import { coldTable, fixed, frontTable, originTable, ratio, sTable, tierTable, vTable } from './suite-tables.ts';
import type { Versions } from './versions.ts';

export interface BenchRun {
  startedAt: string;
  durationSec: number;
  mode: 'full' | 'quick';
  reductions: string[];
  profile: OriginProfile;
  sliceSize: number;
  versions: Versions;
  machine: { before: Machine; after: Machine };
  /** What storing costs this machine's kernel, measured before the run (absent in runs before it was). */
  pageCost?: PageCost;
  /** The caches that ran, tiercache first (the naive baselines not among them). */
  peers: TargetName[];
  workloadS: SResult;
  workloadV: VRun[];
  coldLarge: ColdRun[];
  /** Absent when the plan skipped them. */
  layers?: { plan: LayerPlan; measurements: LayerMeasurement[] };
  memory?: MemoryEvidence;
  /** bench:egress's scenarios (absent in runs before it was part of the suite, or without a result). */
  egress?: EgressEvidence;
  targets: TargetRow[];
}

/** Writes the folder; answers its path. */
export async function writeReport(run: BenchRun, at: Date): Promise<string> {
  const [jsonPath = ''] = await writeResults('report', at, run, markdown(run));
  const directory = dirname(jsonPath);
  for (const [name, svg] of Object.entries(charts(run))) await writeFile(join(directory, name), svg);
  return directory;
}

function markdown(run: BenchRun): string {
  const v = run.versions;
  const m = run.machine.before;
  const missing = run.peers.includes('varnish')
    ? ''
    : '\n**Varnish is not installed** (`bash bench/setup/peers/install.sh`): the peer columns are empty and the targets relative to it are n/a.\n';
  return [
    `# tiercache benchmark (${run.mode}), ${run.startedAt}`,
    '',
    `Took ${fixed(run.durationSec, 0)} s.`,
    '',
    `- Machine: ${m.cpus} × ${m.cpuModel}, ${(m.totalMemoryBytes / 2 ** 30).toFixed(1)} GiB RAM, ${m.os} (${m.platform}); load average ${m.loadAverage.join(' ')} before, ${run.machine.after.loadAverage.join(' ')} after. Shared: the load generator, the origin, the shaper and every cache compete for the same cores, so compare ratios within a run.`,
    ...(run.pageCost
      ? [
          `- Storing: ${describePageCost(run.pageCost)}. Every cold byte a cache stores lands on new pages, so this bounds what the caches can store per second here (docs/benchmarks.md, "What bounds a cold download here").`,
        ]
      : []),
    `- Versions: Node ${v.node}, workerd ${v.workerd} driven by Miniflare ${v.miniflare}, wrangler ${v.wrangler} (only in the per-layer costs), wrk ${v.wrk}, Varnish ${v.varnish}, nginx ${v.nginx}.`,
    `- Origin: a static file server behind the shaper, profile **${run.profile.name}** (${run.profile.firstByteLatencyMs} ms to first byte, ${run.profile.bandwidthBytesPerSec / 1e6} MB/s per connection).`,
    `- tiercache: both tiers on workerd via Miniflare, the edge on its own workerd socket, as deployed (ORIGIN_KIND=http, DEFAULT_TTL=3600, ${run.sliceSize / 2 ** 20} MiB slices); in Workload V also ${FRONT_NAME}, the same edge through the local front \`npm start\` puts before it (local/front.ts), measured as a layer of its own. Caches: ${run.peers.join(', ')}; naive baselines on the same runtime: naive-cache (caches.default in front of the origin) and naive-map (a global Map).`,
    `- Load: Workload S ${tools(
      run.workloadS.runs.map((r) => r.load),
      v.wrk,
    )}; Workload V ${tools(
      run.workloadV.map((r) => r.load),
      v.wrk,
    )}.`,
    missing,
    '## Targets',
    '',
    formatTable(targetsTable(run.targets)),
    '',
    '## Headlines',
    '',
    ...headlines(run).map((line) => `- ${line}`),
    '',
    '## Workload S (after Storj + Varnish 2024)',
    '',
    'Fixed request counts over 10 connections. Cold = a cache\'s first requests for that object, the first made alone (the miss) and the rest under load; warm = the same again. The naive baselines run warm only (primed by one GET). With wrk: bytes and MiB/s include headers; the mean latency is exact (each request from its write to its response, summed by bench/load/wrk-load.lua) but p99 is wrk\'s histogram, which wrk corrects for coordinated omission as if the load were open-loop, so it reads high; "sent" is requests written (none past the count); "errors" are requests sent and not answered (a connection closed under them) plus answers outside 2xx.',
    '',
    formatTable(sTable(run.workloadS)),
    '',
    '### Origin traffic (counted at the shaper)',
    '',
    formatTable(originTable(run.workloadS)),
    '',
    '### tiercache per tier: the cold miss and warm hits',
    '',
    'Cold: the first response of each cold phase (nothing cached anywhere); warm: 5 sequential GETs after the warm run. Hit ratios from Cache-Status, times from Server-Timing.',
    '',
    formatTable(tierTable(run.workloadS)),
    '',
    '## Workload V (after Varnish vs Squid 2009): warm hits',
    '',
    'Duration runs. With wrk, mean and p99 are its histogram, corrected for coordinated omission as if the load were open-loop: they read high on a busy machine; req/s is the measure.',
    '',
    formatTable(vTable(run.workloadV)),
    '',
    '### The local front, a layer of its own',
    '',
    `The same edge, in the same isolate, on its own workerd socket and through the local front (a Node relay that reads each request head and re-writes it, as \`npm start\` runs it; here over loopback TCP to the edge; its Host names an entry of its own, warmed as the others). The warm small hits are judged on the edge's own socket, as deployed; the front is the local stack's, not production's.`,
    '',
    formatTable(frontTable(run.workloadV)),
    '',
    `## Cold large object (${run.coldLarge[0] ? fixed((run.coldLarge[0].bytes || 0) / 2 ** 20, 0) : '?'} MiB), caches restarted empty`,
    '',
    "One GET each. tiercache (parallel slice reads) ran alone; the single streams (direct and the peers), each capped at one connection's bandwidth by the shaper, ran at once, each cache behind a shaper of its own so that its origin traffic is its own.",
    '',
    formatTable(coldTable(run.coldLarge)),
    '',
    coldTiers(run.coldLarge),
    '',
    '## What each local layer costs',
    '',
    ...layersSection(run),
    '',
    '## Memory (memory-growth)',
    '',
    memoryLine(run.memory),
    '',
    '## Egress (egress)',
    '',
    ...egressSummary(run.egress),
    '',
    '## Reductions',
    '',
    ...run.reductions.map((line) => `- ${line}`),
    '',
  ].join('\n');
}

function tools(loads: readonly LoadResult[], wrkVersion: string): string {
  const names = [
    ...new Set(
      loads.map((load) =>
        load.tool === 'wrk 4.x' ? `wrk ${wrkVersion}` : 'the keep-alive Node generator (wrk not installed)',
      ),
    ),
  ];
  return names.join(' and ') || '–';
}

function headlines(run: BenchRun): string[] {
  const s = run.workloadS.runs;
  const lines: string[] = [];
  for (const size of [...new Set(s.map((r) => r.size))]) {
    const direct = s.find((r) => r.size === size && r.phase === 'direct');
    const warm = (target: TargetName) => s.find((r) => r.size === size && r.target === target && r.phase === 'warm');
    const naive = (['naive-map', 'naive-cache'] as const)
      .filter((name) => warm(name))
      .map((name) => `, ${name} ${ratio(direct?.load.elapsedSec, warm(name)?.load.elapsedSec)}`);
    lines.push(
      `S ${size}: tiercache warm ${ratio(direct?.load.elapsedSec, warm('tiercache')?.load.elapsedSec)} faster than direct (Varnish ${ratio(direct?.load.elapsedSec, warm('varnish')?.load.elapsedSec)}${naive.join('')}).`,
    );
  }
  const c = 100;
  for (const r of run.workloadV.filter((x) => x.target === 'tiercache' && x.concurrency === c)) {
    const cell = (target: TargetName) =>
      run.workloadV.find((x) => x.size === r.size && x.concurrency === c && x.target === target)?.load.reqPerSec;
    const fronted = cell(FRONT_NAME);
    const front =
      fronted === undefined
        ? ''
        : ` Through the local front ${fixed(fronted, 0)} req/s (${ratio(fronted, r.load.reqPerSec)} the edge's own socket).`;
    lines.push(
      `V ${r.size} c=${c}: tiercache ${fixed(r.load.reqPerSec, 0)} req/s on the edge's own socket: ${ratio(r.load.reqPerSec, cell('naive-map'))} naive-map, ${ratio(r.load.reqPerSec, cell('naive-cache'))} naive-cache, ${ratio(r.load.reqPerSec, cell('varnish'))} Varnish.${front}`,
    );
  }
  const direct = run.coldLarge.find((r) => r.target === 'direct');
  for (const r of run.coldLarge.filter((x) => x.target !== 'direct')) {
    lines.push(
      `Cold large object, ${r.target}: ${fixed(r.mibPerSec, 1)} MiB/s, ${ratio(r.mibPerSec, direct?.mibPerSec)} a direct single stream (${fixed(direct?.mibPerSec ?? Number.NaN, 1)} MiB/s); first byte ${fixed(r.ttfbMs, 0)} ms.`,
    );
  }
  return lines;
}

/** tiercache's tiers on the cold GET, from its Cache-Status and Server-Timing. */
function coldTiers(runs: readonly ColdRun[]): string {
  const t = runs.find((r) => r.target === 'tiercache')?.tiers;
  if (!t) return '';
  const verdict = (hits: number, forwards: number) => (hits ? 'hit' : forwards ? 'forwarded' : '–');
  return `tiercache on the cold GET: edge ${verdict(t.edge.hits, t.edge.forwards)}, shield ${verdict(t.shield.hits, t.shield.forwards)}; Server-Timing edge ${fixed(t.timing.edge.meanMs, 0)} ms, shield ${fixed(t.timing.shield.meanMs, 0)} ms, origin ${fixed(t.timing.origin.meanMs, 0)} ms.`;
}

function layersSection(run: BenchRun): string[] {
  if (!run.layers) return ['Skipped in quick mode: `npm run bench` (full) or `npm run bench:layers`.'];
  const { plan, measurements } = run.layers;
  return [
    `A naive worker (bench/setup/layers/naive-originless-worker.ts, ${BODY_KIB} KiB from a global Map, /map, or from caches.default, /cache; no origin) under wrk at c = ${plan.connections}, ${plan.warmUpSec} s warm-up then ${plan.measureSec} s measured per cell. tiercache runs on the "Miniflare direct socket" layer. Bare workerd has no Cache API without a cache service configured. The ratios are of req/s; mean and p99 are wrk's corrected histogram (as in Workload V).`,
    '',
    formatTable(layersTable(measurements)),
    '',
    ...layerCosts(measurements).map((line) => `- ${line}`),
  ];
}

function memoryLine(memory: MemoryEvidence | undefined): string {
  if (!memory) return 'No bench:memory result (`npm run bench:memory`).';
  const phases = memory.phases
    .map((p) => `${p.phase} ${(p.growthBytes / 1e6).toFixed(1)} MB${p.bytesOk ? '' : ' (wrong bytes)'}`)
    .join(', ');
  return `workerd resident memory growth over a ${(memory.objectBytes / 2 ** 20).toFixed(0)} MiB download through both tiers (bench:memory, S3 origin without the shaper): ${phases} (limit 128 MB). Source: ${memory.source}.`;
}

/** File name → SVG. */
function charts(run: BenchRun): Record<string, string> {
  const s = run.workloadS.runs;
  const sizes = [...new Set(s.map((r) => r.size))];
  const out: Record<string, string> = {};
  out['s-speedup-warm.svg'] = barChart({
    title: 'Workload S, warm: × faster than direct',
    unit: '×',
    groups: sizes.map((size) => {
      const direct = s.find((r) => r.size === size && r.phase === 'direct');
      const bars = s
        .filter((r) => r.size === size && r.phase === 'warm' && direct)
        .map((r) => ({ series: r.target, value: (direct?.load.elapsedSec ?? 0) / r.load.elapsedSec }));
      return { label: size, bars: bars.filter((b) => Number.isFinite(b.value)) };
    }),
  });
  for (const size of [...new Set(run.workloadV.map((r) => r.size))]) {
    const series = [...new Set(run.workloadV.map((r) => r.target))]
      .map((target) => ({
        name: target,
        points: run.workloadV
          .filter((r) => r.size === size && r.target === target && Number.isFinite(r.load.reqPerSec))
          .map((r) => ({ x: r.concurrency, y: r.load.reqPerSec })),
      }))
      // The naive baselines run one concurrency only: a line needs two points.
      .filter((line) => line.points.length > 1);
    out[`v-${size.replace(/\s+/g, '')}-reqs.svg`] = lineChart({
      title: `Workload V, ${size}: requests per second`,
      xLabel: 'concurrent connections',
      yLabel: 'req/s',
      logX: true,
      series,
    });
  }
  out['cold-large.svg'] = barChart({
    title: 'Cold large object: MiB/s',
    unit: 'MiB/s',
    groups: [
      {
        label: 'one GET',
        bars: run.coldLarge
          .filter((r) => Number.isFinite(r.mibPerSec))
          .map((r) => ({ series: r.target, value: r.mibPerSec })),
      },
    ],
  });
  return out;
}
