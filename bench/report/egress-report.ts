// What bench:egress found, as data (egress.json) and as its table (egress.md); the full bench's egress target judged
// from it. Pure: bench/egress.ts measures, this says.

import type { ReadResult } from '../load/range-read.ts';
import type { OriginAnswers } from './origin-answers.ts';
import type { TargetRow } from './requirements.ts';
import { formatTable, type Table } from './results.ts';

const MB = 1e6;
/** Each tier may fetch an object's bytes once: the origin's bytes over the object's at most this. */
export const EGRESS_BOUND = 1;

/** One scenario on one cold object. */
export interface EgressRow {
  scenario: string;
  key: string;
  objectBytes: number;
  reads: ReadResult[];
  /** Every read's status, framing and bytes as the object's. */
  exact: boolean;
  /** The stats store's counts for the scenario (both tiers' records): requests, bytes from the next hop. */
  edge: { requests: number; bytesFromShield: number };
  shield: { requests: number; bytesFromOrigin: number };
  /** What the origin sent for the object and what reached the shield, counted by proxies on either side of the shaper. */
  origin: OriginAnswers;
  /** Lines workerd printed meanwhile saying a client's connection was lost (a departed client, printed raw). */
  connectionLostLines: number;
  /** The origin still sending when the wait for it to settle ran out: the numbers may be short. */
  unsettled: boolean;
}

export interface EgressRun {
  benchmark: 'egress';
  startedAt: string;
  sliceSize: number;
  profile: { name: string; firstByteLatencyMs: number; bandwidthBytesPerSec: number };
  rows: EgressRow[];
}

const edgeRatio = (row: EgressRow): number => row.edge.bytesFromShield / row.objectBytes;
const originRatio = (row: EgressRow): number => row.origin.sent.sentBytes / row.objectBytes;

/** Within the target: both tiers' bytes at most the object's, none sent twice, every byte exact. */
export function rowMeets(row: EgressRow): boolean {
  return (
    row.exact &&
    edgeRatio(row) <= EGRESS_BOUND &&
    originRatio(row) <= EGRESS_BOUND &&
    row.origin.sent.repeatedBytes === 0
  );
}

export function egressTable(rows: readonly EgressRow[]): Table {
  return {
    columns: [
      'scenario',
      'object',
      'reads exact',
      'edge←shield (stats)',
      'origin sent',
      'sent twice',
      'shield received',
      'received twice',
      'origin answers (cut)',
      'shield←origin (stats)',
      '"connection lost" lines',
      `target ≤ ${EGRESS_BOUND.toFixed(2)}×, 0 twice`,
    ],
    rows: rows.map((row) => [
      row.scenario,
      objectSize(row.objectBytes),
      `${row.reads.filter((r) => r.exact).length}/${row.reads.length}`,
      `${mb(row.edge.bytesFromShield)} (${times(edgeRatio(row))})`,
      `${mb(row.origin.sent.sentBytes)} (${times(originRatio(row))})`,
      mb(row.origin.sent.repeatedBytes),
      `${mb(row.origin.received.sentBytes)} (${times(row.origin.received.sentBytes / row.objectBytes)})`,
      mb(row.origin.received.repeatedBytes),
      `${row.origin.responses} (${row.origin.cut})`,
      `${mb(row.shield.bytesFromOrigin)} (${times(row.shield.bytesFromOrigin / row.objectBytes)})`,
      String(row.connectionLostLines),
      `${rowMeets(row) ? 'met' : 'NOT MET'}${row.unsettled ? ' (origin not settled)' : ''}`,
    ]),
  };
}

/** Each row's reads and what the origin sent for it, a line each. */
export function egressDetail(rows: readonly EgressRow[]): string[] {
  return rows.flatMap((row) => [
    `- **${row.scenario}, ${objectSize(row.objectBytes)}** (\`${row.key}\`): ${row.reads.map(readLine).join('; ')}.`,
    `  Origin: ${row.origin.detail.join('; ') || 'nothing'}.`,
  ]);
}

function readLine(read: ReadResult): string {
  const problem = read.exact ? '' : ` **${read.problem ?? 'not exact'}**`;
  return `${read.label} → ${read.status}, ${mb(read.bytes)} in ${read.ms.toFixed(0)} ms${problem}`;
}

/** The full bench's view of an egress.json: where it comes from and each row's numbers. */
export interface EgressEvidence {
  source: string;
  rows: { scenario: string; objectBytes: number; edge: number; origin: number; repeatedBytes: number; met: boolean }[];
}

/** The evidence in an egress.json, checked field by field; undefined when it is not one. */
export function egressEvidence(json: unknown, source: string): EgressEvidence | undefined {
  if (typeof json !== 'object' || json === null || (json as { benchmark?: unknown }).benchmark !== 'egress')
    return undefined;
  const rows = (json as { rows?: unknown }).rows;
  if (!Array.isArray(rows) || rows.length === 0) return undefined;
  const valid = rows.every(
    (row: EgressRow) =>
      typeof row?.scenario === 'string' &&
      Number.isFinite(row.objectBytes) &&
      Number.isFinite(row.edge?.bytesFromShield) &&
      Number.isFinite(row.origin?.sent?.sentBytes) &&
      Number.isFinite(row.origin?.sent?.repeatedBytes) &&
      typeof row.exact === 'boolean',
  );
  if (!valid) return undefined;
  return {
    source,
    rows: (rows as EgressRow[]).map((row) => ({
      scenario: row.scenario,
      objectBytes: row.objectBytes,
      edge: edgeRatio(row),
      origin: originRatio(row),
      repeatedBytes: row.origin.sent.repeatedBytes,
      met: rowMeets(row),
    })),
  };
}

/** egress: every scenario's bytes from the next hop at both tiers at most the object's, none from the origin twice. */
export function egressTarget(evidence: EgressEvidence | undefined): TargetRow {
  const requirement = `egress: bench:egress's scripted clients on cold objects, bytes fetched / object ≤ ${EGRESS_BOUND.toFixed(2)}× at both tiers (each scenario; judged on the maximum), 0 bytes from the origin twice, every byte exact`;
  const base = { id: 'egress', requirement, bound: EGRESS_BOUND, compare: '≤' } as const;
  if (evidence === undefined) return { ...base, measured: '–', verdict: 'n/a (not measured)' };
  const worst = Math.max(...evidence.rows.flatMap((row) => [row.edge, row.origin]));
  const twice = evidence.rows.reduce((sum, row) => sum + row.repeatedBytes, 0);
  const missed = evidence.rows.filter((row) => !row.met);
  const measured = `max ${times(worst)}; ${mb(twice)} from the origin twice; ${missed.length} of ${evidence.rows.length} scenarios over (${evidence.source})`;
  return { ...base, measured, ratio: worst, verdict: missed.length === 0 ? 'met' : 'not met' };
}

/** The full bench's section: each scenario's ratios at both tiers, from this run's bench:egress or its latest. */
export function egressSummary(evidence: EgressEvidence | undefined): string[] {
  if (evidence === undefined) return ['No bench:egress result (`npm run bench:egress`).'];
  const table: Table = {
    columns: ['scenario', 'object', 'edge←shield / object', 'origin / object', 'origin sent twice', 'target'],
    rows: evidence.rows.map((row) => [
      row.scenario,
      objectSize(row.objectBytes),
      times(row.edge),
      times(row.origin),
      mb(row.repeatedBytes),
      row.met ? 'met' : 'NOT MET',
    ]),
  };
  return [
    `Scripted clients on cold objects behind the shaped origin (bench/egress.ts; every read and what the origin sent, answer by answer, in its egress.md). Source: ${evidence.source}.`,
    '',
    formatTable(table),
  ];
}

/** An object's size as it was chosen: whole MiB as such, else in MB. */
export function objectSize(bytes: number): string {
  return bytes % 2 ** 20 === 0 ? `${bytes / 2 ** 20} MiB` : `${(bytes / MB).toFixed(bytes % MB === 0 ? 0 : 2)} MB`;
}

export function mb(bytes: number): string {
  return `${(bytes / MB).toFixed(2)} MB`;
}

function times(ratio: number): string {
  return Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : '–';
}
