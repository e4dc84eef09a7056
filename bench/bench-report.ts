// The suite's results folder: report.md (tables, headlines, what ran on what), results.json (every
// raw number) and SVG charts, in bench/results/<timestamp>/.

import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { barChart, lineChart } from './charts.ts';
import type { ColdRun } from './cold-large.ts';
import type { OriginProfile } from './origin-profiles.ts';
import { coldTable, fixed, originTable, ratio, sTable, tierTable, vTable } from './bench-tables.ts';
import { describeMachine, formatTable, type Machine, writeResults } from './report.ts';
import type { TargetName } from './targets.ts';
import type { Versions } from './versions.ts';
import type { SResult } from './workload-s.ts';
import type { VRun } from './workload-v.ts';

export interface BenchRun {
  startedAt: string;
  durationSec: number;
  mode: 'full' | 'quick';
  reductions: string[];
  profile: OriginProfile;
  versions: Versions;
  machine: { before: Machine; after: Machine };
  /** The caches that ran, tiercache first. */
  peers: TargetName[];
  workloadS: SResult;
  workloadV: VRun[];
  coldLarge: ColdRun[];
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
  const vTool = [...new Set(run.workloadV.map((r) => (r.load.tool === 'wrk 4.x' ? `wrk ${v.wrk}` : 'node-http')))].join(', ') || '–';
  const missing = run.peers.includes('varnish') ? '' : '\n**Varnish is not installed** (`bash bench/peers/install.sh`): the peer columns are empty.\n';
  return [
    `# tiercache benchmark (${run.mode}), ${run.startedAt}`,
    '',
    `Took ${fixed(run.durationSec, 0)} s. Origin: a static file server behind the shaper, profile **${run.profile.name}** (${run.profile.firstByteLatencyMs} ms to first byte, ${run.profile.bandwidthBytesPerSec / 1e6} MB/s per connection). tiercache runs on workerd driven by Miniflare (both tiers, ORIGIN_KIND=http, DEFAULT_TTL=3600, 8 MiB slices); caches: ${run.peers.join(', ')}.`,
    missing,
    '## Headlines',
    '',
    ...headlines(run).map((line) => `- ${line}`),
    '',
    '## Workload S (after Storj + Varnish 2024)',
    '',
    `Fixed request counts over 10 connections, load generator node-http (keep-alive). Cold = a cache's first requests for that object; warm = the same again.`,
    '',
    formatTable(sTable(run.workloadS)),
    '',
    '### Origin traffic (counted at the shaper)',
    '',
    formatTable(originTable(run.workloadS)),
    '',
    '### tiercache per tier (headers of 5 sequential GETs after the warm run)',
    '',
    formatTable(tierTable(run.workloadS)),
    '',
    '## Workload V (after Varnish vs Squid 2009): warm hits',
    '',
    `Duration runs, load generator ${vTool}.`,
    '',
    formatTable(vTable(run.workloadV)),
    '',
    `## Cold large object (${run.coldLarge[0] ? fixed((run.coldLarge[0].bytes || 0) / 2 ** 20, 0) : '?'} MiB), caches restarted empty`,
    '',
    formatTable(coldTable(run.coldLarge)),
    '',
    coldTiers(run.coldLarge),
    '',
    '## What ran, and on what',
    '',
    `- Versions: node ${v.node}, workerd ${v.workerd}, miniflare ${v.miniflare}, wrangler ${v.wrangler} (not used to run: Miniflare drives workerd), varnish ${v.varnish}, nginx ${v.nginx}, wrk ${v.wrk}.`,
    `- Machine before: ${describeMachine(run.machine.before)}.`,
    `- Machine after: load average ${run.machine.after.loadAverage.join(' ')}.`,
    ...run.reductions.map((line) => `- Reduced: ${line}`),
    '- Shared 2-core machine: the load generator, the origin, the shaper and every cache compete for the same cores; compare ratios within a run.',
    '',
  ].join('\n');
}

function headlines(run: BenchRun): string[] {
  const s = run.workloadS.runs;
  const lines: string[] = [];
  for (const size of [...new Set(s.map((r) => r.size))]) {
    const direct = s.find((r) => r.size === size && r.phase === 'direct');
    const warm = s.find((r) => r.size === size && r.target === 'tiercache' && r.phase === 'warm');
    const varnish = s.find((r) => r.size === size && r.target === 'varnish' && r.phase === 'warm');
    lines.push(`S ${size}: tiercache warm ${ratio(direct?.load.elapsedSec, warm?.load.elapsedSec)} faster than direct (Varnish warm ${ratio(direct?.load.elapsedSec, varnish?.load.elapsedSec)}).`);
  }
  for (const r of run.workloadV.filter((x) => x.target === 'tiercache')) {
    const varnish = run.workloadV.find((x) => x.size === r.size && x.concurrency === r.concurrency && x.target === 'varnish');
    lines.push(`V ${r.size} c=${r.concurrency}: tiercache ${fixed(r.load.reqPerSec, 0)} req/s, ${ratio(r.load.reqPerSec, varnish?.load.reqPerSec)} Varnish's ${fixed(varnish?.load.reqPerSec ?? Number.NaN, 0)}.`);
  }
  const direct = run.coldLarge.find((r) => r.target === 'direct');
  for (const r of run.coldLarge.filter((x) => x.target !== 'direct')) {
    lines.push(`Cold large object, ${r.target}: ${fixed(r.mibPerSec, 1)} MiB/s, ${ratio(r.mibPerSec, direct?.mibPerSec)} a direct single stream (${fixed(direct?.mibPerSec ?? Number.NaN, 1)} MiB/s); first byte ${fixed(r.ttfbMs, 0)} ms.`);
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
      const bars = s.filter((r) => r.size === size && r.phase === 'warm' && direct).map((r) => ({ series: r.target, value: (direct?.load.elapsedSec ?? 0) / r.load.elapsedSec }));
      return { label: size, bars: bars.filter((b) => Number.isFinite(b.value)) };
    }),
  });
  for (const size of [...new Set(run.workloadV.map((r) => r.size))]) {
    const series = [...new Set(run.workloadV.map((r) => r.target))].map((target) => ({ name: target, points: run.workloadV.filter((r) => r.size === size && r.target === target && Number.isFinite(r.load.reqPerSec)).map((r) => ({ x: r.concurrency, y: r.load.reqPerSec })) }));
    out[`v-${size.replace(/\s+/g, '')}-reqs.svg`] = lineChart({ title: `Workload V, ${size}: requests per second`, xLabel: 'concurrent connections', yLabel: 'req/s', logX: true, series });
  }
  out['cold-large.svg'] = barChart({ title: 'Cold large object: MiB/s', unit: 'MiB/s', groups: [{ label: 'one GET', bars: run.coldLarge.filter((r) => Number.isFinite(r.mibPerSec)).map((r) => ({ series: r.target, value: r.mibPerSec })) }] });
  return out;
}
