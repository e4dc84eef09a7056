// The suite's own runner (test-engine/client/runner.mjs) on a few of its tests, as cli.mjs runs them
// all: `rerun.ts SUITE_DIR BASE_URL ID…` prints their results.json, for the tests a full run marked ↻.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

interface Runner {
  runTests(suites: unknown[], browserCache: boolean, base: string): Promise<void>;
  getResults(): Record<string, unknown>;
}
interface TestSuite {
  tests: { id: string }[];
}

const [suiteDir, base, ...ids] = process.argv.slice(2);
if (suiteDir === undefined || base === undefined || ids.length === 0)
  throw new Error('usage: rerun.ts SUITE_DIR BASE_URL ID…');
const asked = new Set(ids);
const runner = (await import(pathToFileURL(join(suiteDir, 'test-engine', 'client', 'runner.mjs')).href)) as Runner;
const { default: suites } = (await import(pathToFileURL(join(suiteDir, 'tests', 'index.mjs')).href)) as {
  default: TestSuite[];
};
const chosen = suites
  .map((suite) => ({ ...suite, tests: suite.tests.filter((test) => asked.has(test.id)) }))
  .filter((suite) => suite.tests.length > 0);
await runner.runTests(chosen, false, base);
console.log(JSON.stringify(runner.getResults(), null, 2));
