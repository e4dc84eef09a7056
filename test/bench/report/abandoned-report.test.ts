// bench:abandoned's report (bench/report/abandoned-report.ts) on made-up rows: a case within its budget, and the ways
// one is not. No processes.
import { describe, expect, it } from 'vitest';
import {
  type AbandonedRow,
  type AbandonedRun,
  abandonedMarkdown,
  abandonedTable,
  rowWithinBudget,
} from '../../../bench/report/abandoned-report.ts';

const MIB = 2 ** 20;

function row(overrides: Partial<AbandonedRow> = {}): AbandonedRow {
  return {
    case: '256 MiB file, Range ignored',
    clients: 'one `bytes=0-` read 1 MiB and left',
    clientBytes: MIB,
    exact: true,
    sentBefore: 12 * MIB,
    sentAfter: 3 * MIB,
    receivedAfter: 1 * MIB,
    answers: 1,
    cut: 1,
    budget: 8 * MIB,
    budgetBasis: 'one slice: the fill left',
    stillSending: false,
    ...overrides,
  };
}

function run(rows: AbandonedRow[]): AbandonedRun {
  return {
    benchmark: 'abandoned',
    startedAt: '2026-12-02T00:00:00.000Z',
    sliceSize: 8 * MIB,
    profile: { name: 'ams', firstByteLatencyMs: 80, bandwidthBytesPerSec: 25e6 },
    watchMs: 20_000,
    rows,
  };
}

describe('rowWithinBudget', () => {
  it('holds when the origin sent at most the budget after the last client left, stopped, and every byte was exact', () => {
    expect(rowWithinBudget(row())).toBe(true);
    expect(rowWithinBudget(row({ sentAfter: 8 * MIB }))).toBe(true);
  });

  it('fails past the budget, while the origin is still sending, or with a wrong byte', () => {
    expect(rowWithinBudget(row({ sentAfter: 8 * MIB + 1 }))).toBe(false);
    expect(rowWithinBudget(row({ stillSending: true }))).toBe(false);
    expect(rowWithinBudget(row({ exact: false }))).toBe(false);
  });
});

describe('abandonedTable', () => {
  it('says each case, what was sent after, the answer a waiting client got, and the verdict', () => {
    const table = abandonedTable(
      run([
        row(),
        row({ case: 'endless', sentAfter: 400e6, stillSending: true }),
        row({
          case: 'waited',
          answer: { status: 502, cacheStatus: 'tiercache-shield; detail=body-too-long', ms: 21_400 },
        }),
        row({ case: 'never', answer: { status: 0, cacheStatus: '', ms: 60_000 }, exact: false }),
      ]),
    );
    expect(table.rows.map((r) => r.at(-1))).toEqual(['yes', 'NO', 'yes', 'NO']);
    expect(table.rows[1]?.[4]).toBe('400.00 MB, still sending');
    expect(table.rows[2]?.[7]).toBe('502 in 21.4 s, detail=body-too-long');
    expect(table.rows[3]?.[7]).toBe('none in 60 s');
  });

  it('says below the table what else a case measured', () => {
    expect(abandonedMarkdown(run([row({ case: 'heard', note: 'told 0.40 s after' })]), ['# x'])).toContain(
      '- heard: told 0.40 s after',
    );
  });

  it('counts the cases within budget below the table', () => {
    expect(abandonedMarkdown(run([row(), row({ sentAfter: 9 * MIB })]), ['# x'])).toContain(
      '1 of 2 cases within the budget',
    );
  });
});
