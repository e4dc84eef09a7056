// The HTTP caching test suite's results (http-tests/cache-tests) counted as cache-tests.fyi judges
// them (its test-engine/lib/results.mjs), and the floor a run must reach. Pure: values in, values out.

/** A test's kind in the suite: what RFC 9111 requires, what serves users best, or how caches behave. */
export type TestKind = 'required' | 'optimal' | 'check';
const TEST_KINDS: readonly TestKind[] = ['required', 'optimal', 'check'];

/** One test of the suite, as far as judging its result needs. */
export interface TestSpec {
  id: string;
  name: string;
  kind: TestKind;
  /** Tests that must pass for this one's result to mean anything. */
  dependsOn: string[];
  /** Run only in a browser: the command-line client skips it. */
  browserOnly: boolean;
  /** A test of CDN-Cache-Control (RFC 9213): counted for a CDN, not for a reverse proxy. */
  cdnOnly: boolean;
}

/** The client's answer for one test: `true` (passed), or the error's name and message (`['Assertion', '…']`). */
type TestResult = true | false | readonly string[];
export type Results = Record<string, TestResult>;

/** results.mjs' resultTypes, by name. */
export type Verdict =
  | 'pass'
  | 'fail'
  | 'optional_fail'
  | 'yes'
  | 'no'
  | 'setup_fail'
  | 'harness_fail'
  | 'dependency_fail'
  | 'retry'
  | 'untested';

/** What a run must reach, in passed tests; measured by `npm run conformance`: raise it when more pass. */
export interface Floor {
  required: number;
  optimal: number;
}

/** The score first measured by `npm run conformance` (suite b55b8bd): required 156/160, optimal 90/105. */
export const FLOOR: Floor = { required: 156, optimal: 90 };

export interface KindCount {
  passed: number;
  total: number;
}

/** A required or optimal test that did not pass, and why (the client's message, or the failed dependency). */
interface NotPassed {
  id: string;
  name: string;
  kind: TestKind;
  verdict: Verdict;
  detail: string;
}

export interface Score {
  counts: Record<TestKind, KindCount>;
  notPassed: NotPassed[];
}

/**
 * Which tests count: those the command-line client runs (not the browser-only ones), for a `cdn`
 * all of them, for a `reverse-proxy` all but the CDN-only ones (as the published reverse proxies
 * are counted: 150 required, 98 optimal). A test without a result counts as not passed.
 */
export type Scope = 'cdn' | 'reverse-proxy';

/** The suite's verdicts that count as passed (results.mjs' passTypes). */
const PASSED: ReadonlySet<Verdict> = new Set(['pass', 'yes']);
/** A result other than `true`, by kind: a conformance failure, a missed optimisation, a "no". */
const FAILED_AS: Record<TestKind, Verdict> = { required: 'fail', optimal: 'optional_fail', check: 'no' };

/** The catalogue from the suite's `tests/index.mjs` default export: a list of suites, each with its tests. */
export function catalogueOf(suites: unknown): TestSpec[] {
  if (!Array.isArray(suites)) throw new Error('tests/index.mjs: expected a list of test suites');
  return suites.flatMap((suite: unknown) => {
    const tests = isRecord(suite) ? suite.tests : undefined;
    if (!Array.isArray(tests)) throw new Error('tests/index.mjs: a suite without a list of tests');
    return tests.map(specOf);
  });
}

/** The client's output (results.json): test id → `true` or `[name, message]`. */
export function parseResults(text: string): Results {
  const parsed: unknown = JSON.parse(text);
  if (!isRecord(parsed)) throw new Error('results: expected an object of test ids');
  const results: Results = {};
  for (const [id, value] of Object.entries(parsed)) {
    if (typeof value === 'boolean' || (Array.isArray(value) && value.every((part) => typeof part === 'string')))
      results[id] = value;
    else throw new Error(`results: ${id} is neither true nor [name, message]`);
  }
  return results;
}

/**
 * One test's verdict, as results.mjs' determineTestResult with dependencies honoured: a test whose
 * dependency did not pass is `dependency_fail`, whatever its own result.
 */
export function verdictOf(catalogue: ReadonlyMap<string, TestSpec>, id: string, results: Results): Verdict {
  return verdictWithin(catalogue, id, results, new Set());
}

/** Counts per kind and the required and optimal tests not passed, in the catalogue's order. */
export function score(catalogue: readonly TestSpec[], results: Results, scope: Scope): Score {
  const byId = new Map(catalogue.map((spec) => [spec.id, spec]));
  const counts: Record<TestKind, KindCount> = {
    required: { passed: 0, total: 0 },
    optimal: { passed: 0, total: 0 },
    check: { passed: 0, total: 0 },
  };
  const notPassed: NotPassed[] = [];
  for (const spec of catalogue) {
    if (spec.browserOnly || (scope === 'reverse-proxy' && spec.cdnOnly)) continue;
    const verdict = verdictOf(byId, spec.id, results);
    const count = counts[spec.kind];
    count.total++;
    if (PASSED.has(verdict)) count.passed++;
    else if (spec.kind !== 'check')
      notPassed.push({ id: spec.id, name: spec.name, kind: spec.kind, verdict, detail: detailOf(byId, spec, results) });
  }
  return { counts, notPassed };
}

/**
 * The tests judged `retry` (↻: the origin saw one of the test's requests twice), which the suite's
 * README leaves "to be interpreted manually": a run asks each once more on its own.
 */
export function retriedTests(catalogue: readonly TestSpec[], results: Results): string[] {
  const byId = new Map(catalogue.map((spec) => [spec.id, spec]));
  return catalogue.filter((spec) => verdictOf(byId, spec.id, results) === 'retry').map((spec) => spec.id);
}

/** `first` with the second answers of the tests asked again (a test missing from `again` has no answer). */
function withSecondAnswers(first: Results, again: Results, ids: readonly string[]): Results {
  const merged: Results = { ...first };
  for (const id of ids) {
    const answer = again[id];
    if (answer === undefined) delete merged[id];
    else merged[id] = answer;
  }
  return merged;
}

/** A run judged: the counts that decide, the full run's alone, and what keeps it below the floor. */
export interface Judgement extends Score {
  /** The full run's counts, as cache-tests.fyi would show its results.json. */
  firstRun: Score['counts'];
  /** The tests the full run marked ↻, asked again on their own, and their second verdicts. */
  askedAgain: { id: string; verdict: Verdict }[];
  /** Why the run is below the floor, one line each; empty = at or above it. */
  shortfalls: string[];
}

/** The full run's results, with the second answers of the tests it marked ↻ (`again`), against the floor. */
export function judge(
  catalogue: readonly TestSpec[],
  first: Results,
  again: Results | undefined,
  floor: Floor,
): Judgement {
  const ids = again === undefined ? [] : retriedTests(catalogue, first);
  const results = again === undefined ? first : withSecondAnswers(first, again, ids);
  const byId = new Map(catalogue.map((spec) => [spec.id, spec]));
  const counted = score(catalogue, results, 'cdn');
  return {
    ...counted,
    firstRun: score(catalogue, first, 'cdn').counts,
    askedAgain: ids.map((id) => ({ id, verdict: verdictOf(byId, id, results) })),
    shortfalls: shortfalls(counted.counts, floor),
  };
}

/** What keeps a score below the floor, one line each; none = at or above it. */
export function shortfalls(counts: Record<TestKind, KindCount>, floor: Floor): string[] {
  return (['required', 'optimal'] as const)
    .filter((kind) => counts[kind].passed < floor[kind])
    .map((kind) => `${kind}: ${counts[kind].passed} passed, the floor is ${floor[kind]}`);
}

function verdictWithin(
  catalogue: ReadonlyMap<string, TestSpec>,
  id: string,
  results: Results,
  seen: ReadonlySet<string>,
): Verdict {
  const spec = catalogue.get(id);
  if (spec === undefined) throw new Error(`no test ${id} in the suite`);
  if (seen.has(id)) throw new Error(`the tests depend on each other in a circle through ${id}`);
  const result = results[id];
  if (result === undefined) return 'untested';
  const within = new Set([...seen, id]);
  if (spec.dependsOn.some((dependency) => !PASSED.has(verdictWithin(catalogue, dependency, results, within))))
    return 'dependency_fail';
  if (result === false) return 'harness_fail';
  if (result === true) return spec.kind === 'check' ? 'yes' : 'pass';
  // A failed setup step (the harness could not put the cache in the state the test needs).
  if (result[0] === 'Setup') return result[1] === 'retry' ? 'retry' : 'setup_fail';
  // The client's own timeout (10 s a request) fired.
  if (result[0] === 'AbortError') return 'harness_fail';
  return FAILED_AS[spec.kind];
}

function detailOf(catalogue: ReadonlyMap<string, TestSpec>, spec: TestSpec, results: Results): string {
  const failed = spec.dependsOn.find((dependency) => !PASSED.has(verdictOf(catalogue, dependency, results)));
  if (failed !== undefined) return `depends on ${failed}, which did not pass`;
  const result = results[spec.id];
  if (result === undefined) return 'no result';
  if (typeof result === 'boolean') return result ? '' : 'the harness failed';
  return result.join(': ');
}

function specOf(test: unknown): TestSpec {
  if (!isRecord(test) || typeof test.id !== 'string' || typeof test.name !== 'string')
    throw new Error('tests/index.mjs: a test without an id or a name');
  // results.mjs: a test without a kind is a required one.
  const kind = test.kind ?? 'required';
  if (!TEST_KINDS.includes(kind as TestKind)) throw new Error(`tests/index.mjs: ${test.id} has kind ${String(kind)}`);
  const dependsOn = test.depends_on ?? [];
  if (!Array.isArray(dependsOn) || !dependsOn.every((dependency) => typeof dependency === 'string'))
    throw new Error(`tests/index.mjs: ${test.id}'s depends_on is not a list of ids`);
  return {
    id: test.id,
    name: test.name,
    kind: kind as TestKind,
    dependsOn,
    browserOnly: test.browser_only === true,
    cdnOnly: test.cdn_only === true,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
