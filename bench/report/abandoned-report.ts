// What bench:abandoned found, as data (abandoned.json) and as its table (abandoned.md): for each case, what the origin
// sent before and after the last client left, against the budget of a fill nobody waits for. Pure: bench/abandoned.ts
// measures, this says.

import { formatTable, type Table } from './results.ts';

const MB = 1e6;

/** One case: its clients, then what the origin sent, counted by the proxies on either side of the shaper. */
export interface AbandonedRow {
  case: string;
  /** What the clients did, for the table. */
  clients: string;
  /** Body bytes the clients read, in all. */
  clientBytes: number;
  /** Every byte the clients read was the object's (a client that waited: its answer as expected). */
  exact: boolean;
  /** Body bytes the origin sent for the case until its last client left (or had its answer). */
  sentBefore: number;
  /** …and after, until the origin fell silent or the watch ran out. */
  sentAfter: number;
  /** What crossed the shaped link to the shield after the last client left. */
  receivedAfter: number;
  /** Origin answers, and how many of them were cut before their end. */
  answers: number;
  cut: number;
  /** Bytes the origin may send after the last client left: what abandoned fills may still pull. */
  budget: number;
  /** What the budget is, for the table. */
  budgetBasis: string;
  /** The origin still sending when the watch ran out: `sentAfter` is what it had sent by then. */
  stillSending: boolean;
  /** For a client that waited for its answer: its status, Cache-Status and how long it waited (ms). */
  answer?: { status: number; cacheStatus: string; ms: number } | undefined;
  /** What else the case measured, said under the table. */
  note?: string | undefined;
}

export interface AbandonedRun {
  benchmark: 'abandoned';
  startedAt: string;
  sliceSize: number;
  profile: { name: string; firstByteLatencyMs: number; bandwidthBytesPerSec: number };
  /** How long the origin is watched after the last client left, at most (ms). */
  watchMs: number;
  rows: AbandonedRow[];
}

/** Within the budget: the origin sent no more after the last client left than abandoned fills may pull, and stopped. */
export function rowWithinBudget(row: AbandonedRow): boolean {
  return row.exact && !row.stillSending && row.sentAfter <= row.budget;
}

export function abandonedTable(run: AbandonedRun): Table {
  return {
    columns: [
      'case',
      'clients',
      'read by clients',
      'origin sent before the last client left',
      `origin sent after (watched ≤ ${run.watchMs / 1000} s)`,
      'shield received after',
      'origin answers (cut)',
      'client answer',
      'budget after',
      'within budget',
    ],
    rows: run.rows.map((row) => [
      row.case,
      row.clients,
      `${mb(row.clientBytes)}${row.exact ? '' : ' NOT EXACT'}`,
      mb(row.sentBefore),
      `${mb(row.sentAfter)}${row.stillSending ? ', still sending' : ''}`,
      mb(row.receivedAfter),
      `${row.answers} (${row.cut})`,
      row.answer === undefined
        ? '–'
        : row.answer.status === 0
          ? `none in ${(row.answer.ms / 1000).toFixed(0)} s`
          : `${row.answer.status} in ${(row.answer.ms / 1000).toFixed(1)} s${detailOf(row.answer.cacheStatus)}`,
      `${mb(row.budget)} (${row.budgetBasis})`,
      rowWithinBudget(row) ? 'yes' : 'NO',
    ]),
  };
}

export function abandonedMarkdown(run: AbandonedRun, header: readonly string[]): string {
  const within = run.rows.filter(rowWithinBudget).length;
  return [
    ...header,
    '',
    formatTable(abandonedTable(run)),
    '',
    `${within} of ${run.rows.length} cases within the budget (what the origin sent after the last client left at most what abandoned fills may pull, and the origin silent by the end of the watch).`,
    '',
    ...run.rows.flatMap((row) => (row.note === undefined ? [] : [`- ${row.case}: ${row.note}`])),
    '',
  ].join('\n');
}

/** The detail of the first Cache-Status member that has one (`; detail=…`), as `, detail=…`. */
function detailOf(cacheStatus: string): string {
  const detail = /detail=("[^"]*"|[^;,\s]+)/.exec(cacheStatus)?.[1];
  return detail === undefined ? '' : `, detail=${detail}`;
}

export function mb(bytes: number): string {
  return `${(bytes / MB).toFixed(2)} MB`;
}
