// What a conformance run prints and writes beside its results: the counts against the floor and
// every required or optimal test not passed, by id.
import { describe, expect, it } from 'vitest';
import { consoleReport, markdownReport, type RunSummary } from '../../conformance/report.ts';

const SUMMARY: RunSummary = {
  suite: { commit: 'b55b8bd', from: '../shared/cache-tests, beside the repository' },
  against: '`npm start` (ORIGIN_KIND=http, default settings)',
  ranAt: '2026-12-02T01:00:00.000Z',
  seconds: 61.04,
  node: '22.23.3',
  undici: '7.28.0',
  floor: { required: 156, optimal: 90 },
  counts: {
    required: { passed: 155, total: 160 },
    optimal: { passed: 90, total: 105 },
    check: { passed: 50, total: 100 },
  },
  firstRun: {
    required: { passed: 155, total: 160 },
    optimal: { passed: 90, total: 105 },
    check: { passed: 50, total: 100 },
  },
  askedAgain: [{ id: 'partial-store-partial-complete', verdict: 'retry' }],
  shortfalls: ['required: 155 passed, the floor is 156'],
  notPassed: [
    {
      id: 'interim-not-cached',
      name: 'An HTTP cache should not cache non-final responses',
      kind: 'required',
      verdict: 'fail',
      detail: 'Assertion: Interim response 1 not received',
    },
    {
      id: 'vary-normalise-lang-order',
      name: 'A | in a name',
      kind: 'optimal',
      verdict: 'optional_fail',
      detail: 'Assertion: Response 2 does not come from cache',
    },
  ],
};

describe('consoleReport', () => {
  it('prints each kind against its floor, the tests asked again, each test not passed and the shortfall', () => {
    const text = consoleReport(SUMMARY);
    expect(text).toContain('required 155/160  (floor 156)');
    expect(text).toContain('optimal   90/105  (floor 90)');
    expect(text).toContain('partial-store-partial-complete → retry');
    expect(text).toMatch(
      /required fail +interim-not-cached +An HTTP cache should not cache non-final responses: Assertion/,
    );
    expect(text).toContain('BELOW THE FLOOR: required: 155 passed, the floor is 156');
  });

  it('says so when the run is at or above the floor', () => {
    expect(consoleReport({ ...SUMMARY, shortfalls: [] })).toMatch(/at or above the floor$/);
  });
});

describe('markdownReport', () => {
  it('tables the counts with their floors and the tests not passed, a pipe in a cell escaped', () => {
    const text = markdownReport(SUMMARY);
    expect(text).toContain('| required | 155/160 | 156 |');
    expect(text).toContain('| check | 50/100 | — |');
    expect(text).toContain('| optimal | optional_fail | `vary-normalise-lang-order` | A \\| in a name |');
    expect(text).toContain('commit `b55b8bd`');
    expect(text).toContain('**Below the floor**');
  });
});
