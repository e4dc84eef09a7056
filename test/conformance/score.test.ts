// Counting the suite's results as cache-tests.fyi judges them (test-engine/lib/results.mjs), on
// real results files: two published caches' (the suite's results/) and a full run of ours.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  catalogueOf,
  FLOOR,
  judge,
  parseResults,
  type Results,
  retriedTests,
  score,
  shortfalls,
  type TestSpec,
  verdictOf,
} from '../../conformance/score.ts';

const fixture = (name: string): string => readFileSync(new URL(`fixtures/${name}`, import.meta.url), 'utf8');
/** The suite's tests at commit b55b8bd, as catalogueOf reads them from tests/index.mjs. */
const CATALOGUE = JSON.parse(fixture('catalogue-b55b8bd.json')) as TestSpec[];
/** `npm run conformance`'s full run: its results.json, and one where a test was marked ↻ by chance. */
const OURS = parseResults(fixture('tiercache-full-run.json'));
const OURS_RETRIED = parseResults(fixture('tiercache-full-run-retried.json'));
const PARTIAL_RETRIED = [
  'partial-store-partial-reuse-partial',
  'partial-store-partial-reuse-partial-byterange',
  'partial-store-partial-reuse-partial-absent',
  'partial-store-partial-reuse-partial-suffix',
  'partial-store-partial-complete',
];

function spec(id: string, kind: TestSpec['kind'], dependsOn: string[] = []): TestSpec {
  return { id, name: `the test ${id}`, kind, dependsOn, browserOnly: false, cdnOnly: false };
}

function verdict(catalogue: TestSpec[], id: string, results: Results) {
  return verdictOf(new Map(catalogue.map((test) => [test.id, test])), id, results);
}

describe('catalogueOf', () => {
  it("reads a suite's tests with their kind, dependencies and whether only a browser or a CDN runs them", () => {
    const suites = [
      {
        id: 'a',
        tests: [
          { id: 'one', name: 'One', kind: 'optimal', depends_on: ['two'], cdn_only: true, requests: [] },
          { id: 'two', name: 'Two', browser_only: true, requests: [] },
        ],
      },
    ];
    expect(catalogueOf(suites)).toEqual([
      { id: 'one', name: 'One', kind: 'optimal', dependsOn: ['two'], browserOnly: false, cdnOnly: true },
      { id: 'two', name: 'Two', kind: 'required', dependsOn: [], browserOnly: true, cdnOnly: false },
    ]);
  });

  it('refuses a kind the suite does not define, naming the test', () => {
    expect(() => catalogueOf([{ tests: [{ id: 'x', name: 'X', kind: 'nice' }] }])).toThrow(/x has kind nice/);
  });

  it('finds, in the suite at b55b8bd, 160 required, 105 optimal and 100 check tests the command-line client runs', () => {
    const run = CATALOGUE.filter((test) => !test.browserOnly);
    expect(['required', 'optimal', 'check'].map((kind) => run.filter((test) => test.kind === kind).length)).toEqual([
      160, 105, 100,
    ]);
  });
});

describe('parseResults', () => {
  it('takes true or [name, message] per test id, and refuses anything else', () => {
    expect(parseResults('{"a": true, "b": ["Assertion", "Response 2 does not come from cache"]}')).toEqual({
      a: true,
      b: ['Assertion', 'Response 2 does not come from cache'],
    });
    expect(() => parseResults('{"a": 1}')).toThrow(/a is neither/);
    expect(() => parseResults('[]')).toThrow(/object of test ids/);
  });
});

describe('verdictOf, as results.mjs determineTestResult with dependencies honoured', () => {
  const catalogue = [
    spec('base', 'optimal'),
    spec('req', 'required', ['base']),
    spec('opt', 'optimal'),
    spec('chk', 'check'),
  ];

  it('passes a true result and fails any other by kind: required fail, optimal fail, check "no"', () => {
    const failed = ['Assertion', 'Response 2 does not come from cache'];
    expect(verdict(catalogue, 'req', { base: true, req: true })).toBe('pass');
    expect(verdict(catalogue, 'req', { base: true, req: failed })).toBe('fail');
    expect(verdict(catalogue, 'opt', { opt: failed })).toBe('optional_fail');
    expect(verdict(catalogue, 'chk', { chk: true })).toBe('yes');
    expect(verdict(catalogue, 'chk', { chk: failed })).toBe('no');
  });

  it('does not pass a test whose dependency did not pass, whatever its own result', () => {
    expect(verdict(catalogue, 'req', { base: ['Assertion', 'no'], req: true })).toBe('dependency_fail');
    expect(verdict(catalogue, 'req', { req: true })).toBe('dependency_fail');
  });

  it('tells a failed setup, a retry (the origin saw a request twice) and the harness failing apart from a failure', () => {
    expect(verdict(catalogue, 'opt', { opt: ['Setup', 'PUT config resulted in 502'] })).toBe('setup_fail');
    expect(verdict(catalogue, 'opt', { opt: ['Setup', 'retry'] })).toBe('retry');
    expect(verdict(catalogue, 'opt', { opt: ['AbortError', 'This operation was aborted'] })).toBe('harness_fail');
    expect(verdict(catalogue, 'opt', { opt: false })).toBe('harness_fail');
    expect(verdict(catalogue, 'opt', {})).toBe('untested');
  });
});

describe('score', () => {
  it("counts Varnish's published results, as a reverse proxy's, as docs/benchmarks.md states them: 119/150, 45/98", () => {
    const { counts } = score(CATALOGUE, parseResults(fixture('varnish.json')), 'reverse-proxy');
    expect([counts.required, counts.optimal]).toEqual([
      { passed: 119, total: 150 },
      { passed: 45, total: 98 },
    ]);
  });

  it("counts Fastly's, the one CDN published, on the CDN-only tests too: required 96/160, optimal 49/105", () => {
    const { counts } = score(CATALOGUE, parseResults(fixture('fastly.json')), 'cdn');
    expect([counts.required, counts.optimal]).toEqual([
      { passed: 96, total: 160 },
      { passed: 49, total: 105 },
    ]);
  });

  it('counts our full run at required 156/160, optimal 90/105, check 50/100, and names the tests not passed', () => {
    const { counts, notPassed } = score(CATALOGUE, OURS, 'cdn');
    expect(counts).toEqual({
      required: { passed: 156, total: 160 },
      optimal: { passed: 90, total: 105 },
      check: { passed: 50, total: 100 },
    });
    expect(notPassed.filter((test) => test.kind === 'required')).toEqual([
      expect.objectContaining({ id: 'headers-store-Set-Cookie', verdict: 'setup_fail' }),
      expect.objectContaining({ id: 'headers-store-Transfer-Encoding', verdict: 'setup_fail' }),
      expect.objectContaining({ id: 'invalidate-M-SEARCH', verdict: 'setup_fail' }),
      expect.objectContaining({ id: 'interim-not-cached', verdict: 'fail' }),
    ]);
    expect(notPassed.find((test) => test.id === 'invalidate-M-SEARCH-failed')).toMatchObject({
      verdict: 'dependency_fail',
      detail: 'depends on invalidate-M-SEARCH, which did not pass',
    });
  });

  it('counts a test the client should have run but did not answer as not passed, in the same total', () => {
    const { 'freshness-max-age-negative': _, ...missing } = OURS;
    const { counts, notPassed } = score(CATALOGUE, missing, 'cdn');
    expect(counts.required).toEqual({ passed: 155, total: 160 });
    expect(notPassed).toContainEqual(
      expect.objectContaining({ id: 'freshness-max-age-negative', verdict: 'untested' }),
    );
  });
});

describe('judge, against the floor', () => {
  it('holds our full run at the floor, which is its score', () => {
    expect(FLOOR).toEqual({ required: 156, optimal: 90 });
    expect(judge(CATALOGUE, OURS, undefined, FLOOR).shortfalls).toEqual([]);
  });

  it('names each kind below the floor', () => {
    const judged = judge(CATALOGUE, OURS, undefined, { required: 157, optimal: 91 });
    expect(judged.shortfalls).toEqual([
      'required: 156 passed, the floor is 157',
      'optimal: 90 passed, the floor is 91',
    ]);
  });

  it('finds the tests marked ↻ in a full run: the five partial-content ones and one marked by chance', () => {
    expect(retriedTests(CATALOGUE, OURS)).toEqual(PARTIAL_RETRIED);
    expect(retriedTests(CATALOGUE, OURS_RETRIED)).toEqual(['conditional-etag-vary-headers', ...PARTIAL_RETRIED]);
    expect(score(CATALOGUE, OURS_RETRIED, 'cdn').counts.required.passed).toBe(155);
  });

  it('counts the second answers of the tests marked ↻, and keeps the full run counted as the suite would', () => {
    const again: Results = {
      'conditional-etag-vary-headers': true,
      ...Object.fromEntries(PARTIAL_RETRIED.map((id) => [id, ['Setup', 'retry']])),
    };
    const judged = judge(CATALOGUE, OURS_RETRIED, again, FLOOR);
    expect(judged.firstRun.required).toEqual({ passed: 155, total: 160 });
    expect(judged.counts.required).toEqual({ passed: 156, total: 160 });
    expect(judged.counts.optimal).toEqual({ passed: 90, total: 105 });
    expect(judged.askedAgain).toEqual([
      { id: 'conditional-etag-vary-headers', verdict: 'pass' },
      ...PARTIAL_RETRIED.map((id) => ({ id, verdict: 'retry' })),
    ]);
    expect(judged.shortfalls).toEqual([]);
  });

  it('counts a test asked again that gave no second answer as not passed', () => {
    const judged = judge(CATALOGUE, OURS_RETRIED, {}, FLOOR);
    expect(judged.askedAgain[0]).toEqual({ id: 'conditional-etag-vary-headers', verdict: 'untested' });
    expect(shortfalls(judged.counts, FLOOR)).toEqual(['required: 155 passed, the floor is 156']);
  });
});
