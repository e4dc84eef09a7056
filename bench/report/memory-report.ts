// What bench:memory found, as data (memory.json) and as the table it prints (memory.md).

import type { SlicingConfig } from '../../shared/config/config.ts';
import type { RssSample } from '../probes/rss-sampler.ts';
import type { MemoryEvidence } from './requirements.ts';
import { describeMachine, formatTable, type Machine } from './results.ts';

const MIB = 1024 * 1024;
const MB = 1_000_000;

export interface Phase {
  phase: 'cold' | 'warm';
  status: number;
  /** The response's RFC 9211 Cache-Status, both tiers' members. */
  cacheStatus: string;
  bytes: number;
  /** 200, the object's length and its SHA-256, and the body ended cleanly. */
  bytesOk: boolean;
  error?: string;
  durationMs: number;
  mibPerSecond: number;
  runtimeStartBytes: number;
  runtimePeakBytes: number;
  runtimeEndBytes: number;
  /** Peak over the baseline. */
  growthBytes: number;
  verdict: 'PASS' | 'SHORT';
  nodePeakBytes: number;
  runtimeExitedSamples: number;
  samples: RssSample[];
}

export interface MemoryRun {
  benchmark: 'memory';
  startedAt: string;
  machine: Machine;
  object: { key: string; size: number; seed: number; sha256: string };
  slicing: SlicingConfig;
  limitBytes: number;
  sampleIntervalMs: number;
  settleMs: number;
  runtime: { name: string; pids: number[] };
  upload: { durationMs: number };
  baseline: { runtimeBytes: number; nodeBytes: number; samples: RssSample[] };
  phases: Phase[];
}

/**
 * The memory-growth target's evidence (requirements.ts) from a memory.json, checked field by field; undefined when it
 * is not one.
 */
export function memoryEvidence(json: unknown, source: string): MemoryEvidence | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const run = json as Partial<Record<keyof MemoryRun, unknown>>;
  const object = run.object as { size?: unknown } | undefined;
  if (run.benchmark !== 'memory' || typeof object?.size !== 'number' || !Array.isArray(run.phases)) return undefined;
  const phases = (run.phases as unknown[]).flatMap((value) => {
    const p = value as Partial<Record<keyof Phase, unknown>>;
    const known =
      (p.phase === 'cold' || p.phase === 'warm') && typeof p.growthBytes === 'number' && typeof p.bytesOk === 'boolean';
    return known
      ? [{ phase: p.phase as Phase['phase'], growthBytes: p.growthBytes as number, bytesOk: p.bytesOk as boolean }]
      : [];
  });
  return { source, objectBytes: object.size, phases };
}

export function memoryTable(run: MemoryRun): string {
  const limit = `vs ${run.limitBytes / MB} MB`;
  return formatTable({
    columns: [
      'phase',
      'status',
      'bytes',
      'duration s',
      'MiB/s',
      'workerd at start MB',
      'workerd peak MB',
      'growth MB',
      limit,
      'Node peak MB',
      'edge Cache-Status',
    ],
    rows: run.phases.map((p) => [
      p.phase,
      String(p.status),
      p.bytesOk ? `ok (${p.bytes / MIB} MiB, sha256)` : `WRONG: ${p.error ?? `${p.bytes} bytes`}`,
      (p.durationMs / 1000).toFixed(1),
      p.mibPerSecond.toFixed(1),
      mb(p.runtimeStartBytes),
      mb(p.runtimePeakBytes),
      mb(p.growthBytes),
      p.verdict,
      mb(p.nodePeakBytes),
      edgeMember(p.cacheStatus),
    ]),
  });
}

export function memoryMarkdown(run: MemoryRun, table: string): string {
  const slicing = run.slicing;
  return [
    `# bench:memory, ${run.startedAt}`,
    '',
    `Requirement: downloading a 1 GiB object through both tiers keeps the local runtime's resident memory growth within 96 MB (well inside the 128 MB a Worker's isolate has).`,
    '',
    `- object: \`${run.object.key}\`, ${run.object.size / MIB} MiB, sha256 \`${run.object.sha256}\`; uploaded to the embedded S3 origin in ${(run.upload.durationMs / 1000).toFixed(1)} s`,
    `- slicing: ${slicing.sliceSize / MIB} MiB slices from ${slicing.threshold / MIB} MiB, readahead ${slicing.readahead}, ${slicing.subrequests} subrequests`,
    `- runtime: ${run.runtime.name} (pid ${run.runtime.pids.join(', ')}), VmRSS from /proc every ${run.sampleIntervalMs} ms, from the request until ${run.settleMs / 1000} s after its last byte`,
    `- baseline: median workerd RSS over 1 s after start-up and one small warm-up request, ${mb(run.baseline.runtimeBytes)} MB`,
    `- growth = peak − baseline (the warm phase starts with what the cold one left); limit ${run.limitBytes / MB} MB with MB = 10^6 bytes (the stricter reading: 96 MiB is 100.7 MB)`,
    `- Node (s3rver origin and the HTTP client, not the runtime): ${mb(run.baseline.nodeBytes)} MB at baseline`,
    `- machine: ${describeMachine(run.machine)}; shared and noisy, so durations vary between runs`,
    '',
    table,
    '',
  ].join('\n');
}

function mb(bytes: number): string {
  return (bytes / MB).toFixed(1);
}

/** The edge's member of Cache-Status (the last one), which says whether the edge answered alone. */
function edgeMember(cacheStatus: string): string {
  return cacheStatus.split(/,\s*(?=tiercache-)/).at(-1) ?? '';
}
