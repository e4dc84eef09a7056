// A conformance run told: the summary written beside its results (summary.json, summary.md) and
// the lines printed at its end. Pure: the summary in, text out.
import type { Floor, Judgement, KindCount, TestKind } from './score.ts';

export interface RunSummary extends Judgement {
  /** The suite's commit (its git HEAD, or the one its SOURCE.md names) and where it was read from. */
  suite: { commit: string; from: string };
  /** What was tested: the local stack and how it was started. */
  against: string;
  ranAt: string;
  seconds: number;
  node: string;
  undici: string;
  floor: Floor;
}

const KIND_ORDER: readonly TestKind[] = ['required', 'optimal', 'check'];

/** The lines `npm run conformance` ends with: the counts against the floor, then each test not passed. */
export function consoleReport(summary: RunSummary): string {
  const counts = KIND_ORDER.map((kind) => {
    const floor = kind === 'check' ? '(how caches behave: "yes" answers, no floor)' : `(floor ${summary.floor[kind]})`;
    return `  ${kind.padEnd(8)} ${fraction(summary.counts[kind]).padStart(7)}  ${floor}`;
  });
  const width = Math.max(0, ...summary.notPassed.map((test) => test.id.length));
  const failed = summary.notPassed.map(
    (test) =>
      `  ${test.kind.padEnd(8)} ${test.verdict.padEnd(15)} ${test.id.padEnd(width)}  ${test.name}: ${test.detail}`,
  );
  return [
    `cache-tests ${summary.suite.commit} against ${summary.against}: ${summary.seconds.toFixed(1)} s`,
    ...counts,
    ...askedAgainLines(summary).map((line) => `  ${line}`),
    '',
    `not passed (${summary.notPassed.length}, required and optimal):`,
    ...failed,
    '',
    summary.shortfalls.length === 0
      ? 'at or above the floor'
      : `BELOW THE FLOOR: ${summary.shortfalls.join('; ')} (conformance/score.ts: FLOOR)`,
  ].join('\n');
}

/** summary.md: what the README's conformance claim cites. */
export function markdownReport(summary: RunSummary): string {
  const rows = KIND_ORDER.map(
    (kind) => `| ${kind} | ${fraction(summary.counts[kind])} | ${kind === 'check' ? '—' : summary.floor[kind]} |`,
  );
  const failed = summary.notPassed.map(
    (test) => `| ${test.kind} | ${test.verdict} | \`${test.id}\` | ${cell(test.name)} | ${cell(test.detail)} |`,
  );
  return [
    '# HTTP caching conformance: the latest run',
    '',
    `\`npm run conformance\` on ${summary.ranAt}, ${summary.seconds.toFixed(1)} s: the suite behind cache-tests.fyi`,
    `(http-tests/cache-tests, commit \`${summary.suite.commit}\`, from ${summary.suite.from}) against ${summary.against};`,
    `Node ${summary.node}, undici ${summary.undici}. Counted with the suite's own rules (a test whose dependency`,
    `failed is not passed). The raw answers: [results.json](results.json)${
      summary.askedAgain.length > 0
        ? ', and the second answers of the tests it marked ↻ in [asked-again.json](asked-again.json)'
        : ''
    }.`,
    '',
    '| kind | passed | floor |',
    '|---|---|---|',
    ...rows,
    '',
    ...(summary.askedAgain.length > 0 ? [...askedAgainLines(summary).map((line) => `- ${line}`), ''] : []),
    summary.shortfalls.length === 0
      ? 'At or above the floor.'
      : `**Below the floor**: ${summary.shortfalls.join('; ')}.`,
    '',
    `## Not passed (${summary.notPassed.length})`,
    '',
    '| kind | verdict | id | test | detail |',
    '|---|---|---|---|---|',
    ...failed,
    '',
  ].join('\n');
}

/** The tests the full run marked ↻ and what they answered on their own, with the full run's counts. */
function askedAgainLines(summary: RunSummary): string[] {
  if (summary.askedAgain.length === 0) return [];
  const first = summary.firstRun;
  return [
    `${summary.askedAgain.length} marked ↻ (the origin saw a request twice) asked again on their own: ` +
      summary.askedAgain.map((test) => `${test.id} → ${test.verdict}`).join(', '),
    `the full run alone (its results.json): required ${fraction(first.required)}, optimal ${fraction(first.optimal)}, check ${fraction(first.check)}`,
  ];
}

function fraction(count: KindCount): string {
  return `${count.passed}/${count.total}`;
}

/** A table cell: pipes escaped, lines joined. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}
