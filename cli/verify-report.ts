// `npm run verify`'s report (pure): the lines (verify-lines.ts) and every read as text for a ticket, as JSON for the
// next run's --previous, and that JSON read back.

import { printable, textTable } from './print.ts';
import { DEPLOY_DOC, LINE_TITLES, type Line, type Verdict } from './verify-lines.ts';
import { member, memberWords, type Observations, type PreviousRun, type Read } from './verify-observations.ts';

/** What the JSON says it is, so that --previous refuses another file. */
const REPORT_KIND = 'tiercache-verify';
const REPORT_VERSION = 1;

export interface VerifyReport {
  kind: typeof REPORT_KIND;
  reportVersion: typeof REPORT_VERSION;
  /** When the run started, ISO 8601. */
  at: string;
  base: string;
  /** Each tier's location (colo) as the health answer gave it. */
  colo: { edge: string; shield: string };
  /** The tiercache version the edge answered with. */
  version?: string;
  /** What each tier said of the first read of each object (cross-location runs compare these). */
  object?: { path: string; edge: string; shield: string };
  sliced?: { path: string; edge: string; shield: string };
  reads: Read[];
  lines: Line[];
  counts: Record<Verdict, number>;
}

const MARKS: Record<Verdict, string> = { pass: 'PASS', fail: 'FAIL', info: 'INFO', skipped: 'SKIP' };
const VERDICTS: readonly Verdict[] = ['pass', 'fail', 'info', 'skipped'];

export function buildReport(at: string, seen: Observations, reads: Read[], lines: Line[]): VerifyReport {
  const counts = Object.fromEntries(VERDICTS.map((v) => [v, lines.filter((line) => line.verdict === v).length]));
  const firstOf = (path: string, read: Read): { path: string; edge: string; shield: string } => ({
    path,
    edge: memberWords(member(read, 'edge')),
    shield: memberWords(member(read, 'shield')),
  });
  return {
    kind: REPORT_KIND,
    reportVersion: REPORT_VERSION,
    at,
    base: seen.place.base,
    colo: { edge: seen.place.edge, shield: seen.place.shield },
    ...(seen.health.version === undefined ? {} : { version: seen.health.version }),
    ...('skipped' in seen.object ? {} : { object: firstOf(seen.object.path, seen.object.first) }),
    ...('skipped' in seen.sliced ? {} : { sliced: firstOf(seen.sliced.path, seen.sliced.whole) }),
    reads,
    lines,
    counts: counts as Record<Verdict, number>,
  };
}

/** Whether every line that ran passed (or could only inform). */
export function passed(report: VerifyReport): boolean {
  return report.counts.fail === 0;
}

/** The report as text to paste into a ticket: a header, a line per claim (advice under it), the reads, the tally. */
export function renderReport(report: VerifyReport, savedAs: string): string {
  const head = [
    `tiercache verify: ${report.base} at ${report.at}${report.version === undefined ? '' : ` (tiercache ${report.version})`}`,
    `  edge at ${report.colo.edge}, shield at ${report.colo.shield}; this report as JSON: ${savedAs}`,
  ];
  const width = Math.max(...Object.values(LINE_TITLES).map((title) => title.length));
  const lines = report.lines.flatMap((line) => [
    `  ${MARKS[line.verdict]}  ${LINE_TITLES[line.id].padEnd(width)}  ${printable(line.says)}`,
    ...(line.advice === undefined
      ? []
      : [
          `        ${' '.repeat(width)}  ${line.verdict === 'skipped' ? 'to run it' : 'do'}: ${printable(line.advice)}`,
        ]),
  ]);
  const reads = textTable(
    'Reads (Cache-Status as each tier wrote it, the shield first)',
    [
      { title: 'GET' },
      { title: 'status', align: 'right' },
      { title: 'bytes', align: 'right' },
      { title: 'ms', align: 'right' },
      { title: 'Cache-Status' },
    ],
    report.reads.map((read) => [
      `${read.path}${read.range === undefined ? '' : ` ${read.range}`}`,
      read.status === 0 ? '-' : String(read.status),
      String(read.bytes),
      String(Math.round(read.ms)),
      read.cacheStatus ?? read.error ?? '',
    ]),
  );
  const { pass, fail, info, skipped } = report.counts;
  const verdict = fail === 0 ? 'PASSED' : 'FAILED';
  return [
    ...head,
    '',
    ...lines,
    '',
    reads,
    '',
    `${verdict}: ${pass} passed, ${fail} failed, ${info} to show from elsewhere, ${skipped} skipped`,
    `What each line shows and how to read it: ${DEPLOY_DOC}`,
  ].join('\n');
}

/** A previous run's report read back for --previous; a sentence saying what is wrong when it is not one. */
export function readPrevious(text: string): PreviousRun | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: 'is not JSON: pass the .json file a verify run wrote (--out)' };
  }
  const report = value as Partial<VerifyReport> | null;
  if (report?.kind !== REPORT_KIND || report.reportVersion !== REPORT_VERSION)
    return { error: `is not a tiercache verify report (version ${REPORT_VERSION})` };
  const { at, base, colo } = report;
  if (typeof at !== 'string' || typeof base !== 'string' || !URL.canParse(base))
    return { error: 'has no run time or base' };
  if (typeof colo?.edge !== 'string' || typeof colo.shield !== 'string') return { error: 'has no locations (colo)' };
  const first = (read: VerifyReport['object']): VerifyReport['object'] =>
    typeof read?.path === 'string' && typeof read.edge === 'string' && typeof read.shield === 'string'
      ? { path: read.path, edge: read.edge, shield: read.shield }
      : undefined;
  const object = first(report.object);
  const sliced = first(report.sliced);
  return {
    at,
    base,
    edge: colo.edge,
    shield: colo.shield,
    ...(object === undefined ? {} : { object }),
    ...(sliced === undefined ? {} : { sliced }),
  };
}
