// `npm run conformance`: the HTTP caching test suite behind cache-tests.fyi, run against `npm start`
// (ORIGIN_KIND=http, default settings) in front of the suite's own origin; fails below the floor.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort } from '../bench/setup/free-port.ts';
import { type Child, killNow, startChild, stopChild, waitForHttp, withDeadline } from './children.ts';
import { consoleReport, markdownReport, type RunSummary } from './report.ts';
import { catalogueOf, FLOOR, judge, parseResults, retriedTests } from './score.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Where the latest run is written, for the README's conformance claim to cite. */
const RESULTS_DIR = join(ROOT, 'conformance', 'results');
/** The suite when CT_DIR is not set: CI's read-only copy beside the repository. */
const DEFAULT_SUITE = join(ROOT, '..', 'shared', 'cache-tests');
const LOOPBACK = join(ROOT, 'conformance', 'loopback.ts');
const RERUN = join(ROOT, 'conformance', 'rerun.ts');
/** The edge's health answer (docs/operating.md): it answers once the stack serves, asking the origin. */
const HEALTH_PATH = '/__tiercache/health';
const AGAINST = '`npm start` (ORIGIN_KIND=http, default settings)';

/** The suite's client takes ~55 s here (25 tests at a time, a 10 s timeout per request, pauses of 3 s). */
const SUITE_MS = 240_000;
const ORIGIN_START_MS = 15_000;
/** `npm start` bundles both workers and starts workerd: ~2.5 s here, far more on a busy machine. */
const STACK_START_MS = 90_000;
/** The whole run, everything included: CI must stay under 10 minutes with `npm test` (~5). */
const RUN_MS = 6 * 60_000;
/** What the children inherit of this environment: no settings, so the stack runs on its defaults. */
const ENV_KEPT = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'LC_ALL', 'TZ'];

const children: Child[] = [];
let tempDir: string | undefined;
let stopping = false;

/** A failure of the run itself (not of a test): reported with the children's output. */
class RunFailure extends Error {}

process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
// Whatever ends this process, nothing it started outlives it.
process.on('exit', () => {
  for (const child of children) killNow(child);
  if (tempDir !== undefined) removeTree(tempDir);
});
setTimeout(() => {
  console.error(`conformance: the run took longer than ${RUN_MS / 60_000} minutes`);
  reportChildren();
  void shutdown(1);
}, RUN_MS).unref();

// Once a signal or the deadline is stopping the run, what main then says no longer matters.
void main().then((code) => (stopping ? undefined : shutdown(code)));

async function main(): Promise<number> {
  const began = performance.now();
  try {
    const suite = suiteDirectory();
    tempDir = await mkdtemp(join(tmpdir(), 'tiercache-conformance-'));
    const copy = await copySuite(suite.dir, tempDir);
    const undici = await provideUndici(copy);
    const edge = await startAll(copy, tempDir);
    const first = await runClient(copy, edge);
    const catalogue = catalogueOf(
      ((await import(pathToFileURL(join(copy, 'tests', 'index.mjs')).href)) as { default: unknown }).default,
    );
    const again = await askRetriedAgain(copy, edge, retriedTests(catalogue, parseResults(first)));
    const judged = judge(catalogue, parseResults(first), again === undefined ? undefined : parseResults(again), FLOOR);
    const summary: RunSummary = {
      suite: { commit: suiteCommit(suite.dir), from: suite.from },
      against: AGAINST,
      ranAt: new Date().toISOString(),
      seconds: (performance.now() - began) / 1000,
      node: process.versions.node,
      undici,
      floor: FLOOR,
      ...judged,
    };
    await writeResults(first, again, summary);
    console.log(consoleReport(summary));
    const files = ['results.json', ...(again === undefined ? [] : ['asked-again.json']), 'summary.json', 'summary.md'];
    console.log(`written: ${relative(ROOT, RESULTS_DIR)}/ (${files.join(', ')})`);
    if (summary.shortfalls.length === 0) return 0;
    reportChildren();
    return 1;
  } catch (error) {
    if (stopping) return 130; // interrupted: the children were stopped under it
    console.error(`conformance: ${error instanceof Error ? error.message : String(error)}`);
    if (!(error instanceof RunFailure) && error instanceof Error && error.stack) console.error(error.stack);
    reportChildren();
    return 1;
  }
}

/** The suite's origin on one loopback port, `npm start` in front of it on another; answers the edge's URL. */
async function startAll(copy: string, temp: string): Promise<string> {
  const originPort = await freePort();
  let edgePort = await freePort();
  while (edgePort === originPort) edgePort = await freePort();
  // As `npm run server -- --port=P` runs it (package.json's server script and config).
  const originEnv = {
    npm_config_port: String(originPort),
    npm_config_protocol: 'http',
    npm_config_pidfile: join(temp, 'origin.pid'),
  };
  const origin = track(
    startChild(
      'the suite origin',
      process.execPath,
      ['--disable-warning=ExperimentalWarning', '--import', LOOPBACK, 'test-engine/server/server.mjs'],
      {
        cwd: copy,
        env: childEnv(originEnv),
      },
    ),
  );
  const originUrl = `http://127.0.0.1:${originPort}`;
  await waitForHttp(`${originUrl}/state/readiness`, origin, ORIGIN_START_MS);
  // As `npm start` runs it (package.json's start script).
  const stackEnv = { PORT: String(edgePort), ORIGIN_KIND: 'http', ORIGIN_URL: originUrl };
  const stack = track(
    startChild('npm start', process.execPath, ['--disable-warning=ExperimentalWarning', 'local/start.ts'], {
      cwd: ROOT,
      env: childEnv(stackEnv),
    }),
  );
  const edge = `http://127.0.0.1:${edgePort}`;
  await waitForHttp(`${edge}${HEALTH_PATH}`, stack, STACK_START_MS);
  return edge;
}

/** The suite's client against the edge, as `npm run --silent cli --base=EDGE` runs it; answers its results.json. */
function runClient(copy: string, edge: string): Promise<string> {
  // cli.mjs reads `--id` as npm would hand it: empty = every test.
  const env = childEnv({ npm_config_base: edge, npm_package_config_id: '' });
  return resultsOf('the suite client', ['--no-warnings', 'test-engine/cli.mjs'], copy, env);
}

/**
 * The tests the full run marked ↻, asked once more on their own with the suite's runner (rerun.ts),
 * answering their results.json; none marked, nothing asked.
 */
async function askRetriedAgain(copy: string, edge: string, ids: string[]): Promise<string | undefined> {
  if (ids.length === 0) return undefined;
  const args = ['--disable-warning=ExperimentalWarning', RERUN, copy, edge, ...ids];
  return resultsOf('the suite client, asked again', args, copy, childEnv({}));
}

/** Runs a client of the suite to its end (bounded) and answers what it printed: a results.json. */
async function resultsOf(name: string, args: string[], copy: string, env: NodeJS.ProcessEnv): Promise<string> {
  const client = track(startChild(name, process.execPath, args, { cwd: copy, env, keepStdout: true }));
  const code = await withDeadline(client.exited, SUITE_MS, name);
  if (code !== 0) throw new RunFailure(`${name} exited ${code}`);
  return client.stdout();
}

/** CT_DIR, else CI's copy beside the repository; it must hold the suite's client and tests. */
function suiteDirectory(): { dir: string; from: string } {
  const fromEnv = process.env.CT_DIR?.trim();
  const dir = resolve(fromEnv || DEFAULT_SUITE);
  if (!existsSync(join(dir, 'test-engine', 'cli.mjs')) || !existsSync(join(dir, 'tests', 'index.mjs')))
    throw new RunFailure(
      `no cache-tests suite at ${dir} (test-engine/cli.mjs, tests/index.mjs): set CT_DIR to a checkout of http-tests/cache-tests`,
    );
  return { dir, from: fromEnv ? 'CT_DIR' : '../shared/cache-tests, beside the repository' };
}

/** The suite copied where it may be written to (the original may be read-only), without its own installs. */
async function copySuite(dir: string, temp: string): Promise<string> {
  const copy = join(temp, 'cache-tests');
  const skipped = new Set([join(dir, 'node_modules'), join(dir, '.git')]);
  await cp(dir, copy, { recursive: true, filter: (source) => !skipped.has(source) });
  makeWritable(copy);
  return copy;
}

/** The suite's one dependency for the client, undici, from this project's own devDependencies. */
async function provideUndici(copy: string): Promise<string> {
  const ours = join(ROOT, 'node_modules', 'undici');
  const { version } = JSON.parse(await readFile(join(ours, 'package.json'), 'utf8')) as { version: string };
  const { dependencies } = JSON.parse(await readFile(join(copy, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  const wanted = dependencies?.undici;
  // A caret range (`^7.4.0`) wants the same major version.
  const major = /^\^?(\d+)\./.exec(wanted ?? '')?.[1];
  if (major !== undefined && major !== version.split('.')[0])
    throw new RunFailure(
      `the suite wants undici ${wanted}, this project has ${version} (package.json's devDependencies)`,
    );
  await mkdir(join(copy, 'node_modules'));
  await symlink(ours, join(copy, 'node_modules', 'undici'), 'dir');
  return version;
}

/** The suite's commit: its git HEAD when it is a checkout of its own, else the one its SOURCE.md names. */
function suiteCommit(dir: string): string {
  try {
    const git = (args: string[]) =>
      execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', timeout: 5_000, stdio: 'pipe' }).trim();
    if (realpathSync(git(['rev-parse', '--show-toplevel'])) === realpathSync(dir))
      return git(['rev-parse', '--short', 'HEAD']);
  } catch {
    // not a git checkout: SOURCE.md says which commit it is a copy of
  }
  const source = existsSync(join(dir, 'SOURCE.md')) ? readFileSync(join(dir, 'SOURCE.md'), 'utf8') : '';
  return /commit ([0-9a-f]{7,40})/.exec(source)?.[1] ?? 'unknown';
}

/**
 * results.json is the full run's, as the suite's client printed it; asked-again.json the second answers of its ↻ tests.
 */
async function writeResults(results: string, again: string | undefined, summary: RunSummary): Promise<void> {
  await mkdir(RESULTS_DIR, { recursive: true });
  await writeFile(join(RESULTS_DIR, 'results.json'), withNewline(results));
  await rm(join(RESULTS_DIR, 'asked-again.json'), { force: true });
  if (again !== undefined) await writeFile(join(RESULTS_DIR, 'asked-again.json'), withNewline(again));
  await writeFile(join(RESULTS_DIR, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  await writeFile(join(RESULTS_DIR, 'summary.md'), markdownReport(summary));
}

function withNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ENV_KEPT) if (process.env[name] !== undefined) env[name] = process.env[name];
  return { ...env, ...extra };
}

function track(child: Child): Child {
  children.push(child);
  return child;
}

/** The children's output, printed only when the run failed. */
function reportChildren(): void {
  for (const child of children) {
    const output = child.output().trim();
    if (output) console.error(`\n--- ${child.name} (the last of its output) ---\n${output}`);
  }
}

/** The first Ctrl-C stops everything cleanly; a second one exits at once (the exit hook still kills the groups). */
function onSignal(): void {
  if (stopping) process.exit(130);
  void shutdown(130);
}

/** Stops every child, newest first, removes the temporary copy and exits. */
async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  for (const child of [...children].reverse()) await stopChild(child).catch(() => killNow(child));
  if (tempDir !== undefined) removeTree(tempDir);
  tempDir = undefined;
  process.exit(code);
}

/** Every file and folder of the copy writable by us; a link (node_modules/undici) is left alone, not its target. */
function makeWritable(dir: string): void {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isSymbolicLink()) continue;
    chmodSync(join(entry.parentPath, entry.name), entry.isDirectory() ? 0o755 : 0o644);
  }
}

/** The temporary folder, gone even if the copy had not yet been made writable. */
function removeTree(dir: string): void {
  try {
    makeWritable(dir);
  } catch {
    // a part may already be gone
  }
  rmSync(dir, { recursive: true, force: true });
}
