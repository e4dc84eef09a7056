// wrk as a load generator: for a duration (its own way of running), or for an exact number of requests in all
// (Siege/ab style), which wrk cannot do by itself.

import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type LoadResult, MIB } from './load-result.ts';

const SCRIPT = fileURLToPath(new URL('./wrk-load.lua', import.meta.url));
const DONE_MARK = 'tiercache-wrk: share answered';
const ANSWER_MARK = 'tiercache-wrk: +';
const JSON_MARK = 'tiercache-wrk-json: ';
const MAX_THREADS = 2;
/** A generous bound on one response's header bytes (ours are 200–600). */
const HEADER_BYTES_BOUND = 1024;
/** After every thread has said it is done, wrk is interrupted again this often until it exits. */
const INTERRUPT_EVERY_MS = 50;
const STALL_CHECK_MS = 250;
const KILL_GRACE_MS = 5_000;
const OUTPUT_KEPT = 64 * 1024;

export interface WrkOptions {
  /** One URL, or several of one origin taken in turn. */
  urls: URL[];
  connections: number;
  /** Exactly this many requests in all; or: */
  requests?: number;
  /** a whole number of seconds. */
  durationSec?: number;
  headers: Record<string, string>;
  timeoutSec: number;
  /** wrk is killed after this long, and the run rejects. */
  maxSeconds: number;
  /** Every answer's body length, when each must carry the whole object: see countStatuses. */
  bodyBytes?: number;
}

/** The JSON line wrk-load.lua's done() prints: the numbers come from it, not from wrk's rounded report. */
export interface WrkSummary {
  requests: number;
  /** All bytes read, headers too (the Node generator counts bodies only). */
  bytes: number;
  durationUs: number;
  /** First request written to last response read, on the script's clock; -1 when unknown. */
  elapsedUs: number;
  threads: number;
  /** Threads that got their whole share answered (fixed counts). */
  finished: number;
  /** Requests written (fixed counts; 0 for a duration run with one URL). */
  sent: number;
  answered: number;
  /** Fixed counts: requests seen lost to a connection closed under them while the share lasted. */
  lost: number;
  /** Fixed counts: every request's latency summed, uncorrected; -1 when unknown. */
  latencySumUs: number;
  non2xx: number;
  countedStatuses: boolean;
  errors: { connect: number; read: number; write: number; timeout: number; status: number };
  /**
   * From wrk's histogram, which wrk corrects for coordinated omission (it adds the samples a slow answer would have
   * kept from being sent), so p50, p99 and the mean read high; the max is exact. For fixed counts the mean is
   * replaced by the script's exact one (latencySumUs).
   */
  latencyUs: { mean: number; p50: number; p99: number; max: number };
}

export async function wrkInstalled(): Promise<boolean> {
  return promisify(execFile)('which', ['wrk']).then(
    () => true,
    () => false,
  );
}

/**
 * wrk's threads: two (the machine has two cores, and one wrk thread reads at most ~1.2 GB/s
 * here), but only where they split the connections and the count evenly, since wrk gives each
 * thread connections / threads, rounded down.
 */
function wrkThreads(connections: number, requests?: number): number {
  const even = (n: number) => n % MAX_THREADS === 0;
  return even(connections) && (requests === undefined || requests >= MAX_THREADS) ? MAX_THREADS : 1;
}

/**
 * Statuses: wrk counts only those ≥ 400. Where bodies are small, the script's response() hook
 * counts every answer outside 2xx. Where they are large the hook would halve wrk's throughput,
 * so a missing body shows in the byte count instead: every 2xx answer here carries the whole
 * object, so N answers read fewer than N bodies' bytes only when some were not 2xx (or not the
 * object); exact while N answers' headers stay under one body.
 */
function countStatuses(options: Pick<WrkOptions, 'requests' | 'bodyBytes'>): boolean {
  if (options.requests === undefined) return false;
  return options.bodyBytes === undefined || options.bodyBytes <= options.requests * HEADER_BYTES_BOUND;
}

export async function runWrk(options: WrkOptions): Promise<LoadResult> {
  const { urls, connections, requests, durationSec, headers, timeoutSec, maxSeconds } = options;
  const first = urls[0];
  if (!first || urls.some((url) => url.origin !== first.origin)) throw new Error('wrk runs against URLs of one origin');
  if ((requests === undefined) === (durationSec === undefined))
    throw new Error('wrk runs either a count or a duration');
  if (durationSec !== undefined && !Number.isInteger(durationSec))
    throw new Error(`wrk runs whole seconds, got ${durationSec}`);
  const threads = wrkThreads(connections, requests);
  const seconds = durationSec ?? Math.ceil(maxSeconds);
  const args = [
    '-t',
    String(threads),
    '-c',
    String(connections),
    '-d',
    `${seconds}s`,
    '--timeout',
    `${timeoutSec}s`,
    '-s',
    SCRIPT,
  ];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  const paths = urls.map((url) => url.pathname + url.search);
  args.push(
    first.href,
    '--',
    String(requests ?? 0),
    String(threads),
    String(connections),
    countStatuses(options) ? '1' : '0',
    ...paths,
  );
  // A fixed count whose answers stop coming for a request's timeout has lost exchanges (a
  // connection closed under them): it is stopped and reported with what was answered.
  const { stdout, finished, stalled } = await spawnWrk(
    args,
    requests === undefined ? 0 : threads,
    maxSeconds,
    timeoutSec * 1000,
  );
  const summary = parseWrkJson(stdout);
  if (requests !== undefined && !finished && !stalled) {
    throw new Error(
      `wrk was stopped after ${seconds} s with ${summary.requests} of ${requests} responses (${summary.finished} of ${summary.threads} threads done)`,
    );
  }
  return wrkLoadResult(summary, options);
}

/** The summary as the suite's LoadResult; `expected` says whether it was a fixed count and of what. */
export function wrkLoadResult(summary: WrkSummary, expected: Pick<WrkOptions, 'requests' | 'bodyBytes'>): LoadResult {
  const fixed = expected.requests !== undefined;
  const elapsedSec = (fixed && summary.elapsedUs >= 0 ? summary.elapsedUs : summary.durationUs) / 1e6;
  const { connect, read, write, timeout, status } = summary.errors;
  const socketErrors = connect + read + write + timeout;
  const body = expected.bodyBytes;
  const shortBodies = fixed && body ? Math.max(0, Math.ceil((summary.requests * body - summary.bytes) / body)) : 0;
  const ms = (us: number) => us / 1000;
  const meanUs =
    fixed && summary.latencySumUs >= 0 && summary.requests > 0
      ? summary.latencySumUs / summary.requests
      : summary.latencyUs.mean;
  return {
    tool: 'wrk 4.x',
    requests: summary.requests,
    ...(fixed && { sent: summary.sent }),
    // wrk's socket errors include a server closing a connection left idle at the end of a
    // thread's share (no exchange lost): for a fixed count, what was sent and not answered.
    errors: fixed ? Math.max(0, summary.sent - summary.requests) : socketErrors,
    socketErrors,
    non2xx: summary.countedStatuses ? summary.non2xx : status + shortBodies,
    elapsedSec,
    reqPerSec: summary.requests / elapsedSec,
    bytes: summary.bytes,
    mibPerSec: summary.bytes / MIB / elapsedSec,
    latency: {
      meanMs: ms(meanUs),
      p50Ms: ms(summary.latencyUs.p50),
      p99Ms: ms(summary.latencyUs.p99),
      maxMs: ms(summary.latencyUs.max),
    },
  };
}

/** The JSON line in wrk's stdout; throws, quoting the output, when there is none. */
export function parseWrkJson(stdout: string): WrkSummary {
  const line = stdout.split('\n').find((text) => text.startsWith(JSON_MARK));
  if (!line) throw new Error(`wrk printed no summary line (${JSON_MARK.trim()}):\n${stdout.slice(-2000)}`);
  const value: unknown = JSON.parse(line.slice(JSON_MARK.length));
  if (!isSummary(value)) throw new Error(`wrk's summary line lacks fields: ${line}`);
  return value;
}

function isSummary(value: unknown): value is WrkSummary {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  const numbers = (object: unknown, keys: string[]) =>
    typeof object === 'object' &&
    object !== null &&
    keys.every((key) => typeof (object as Record<string, unknown>)[key] === 'number');
  return (
    numbers(record, [
      'requests',
      'bytes',
      'durationUs',
      'elapsedUs',
      'threads',
      'finished',
      'sent',
      'answered',
      'lost',
      'latencySumUs',
      'non2xx',
    ]) &&
    typeof record.countedStatuses === 'boolean' &&
    numbers(record.errors, ['connect', 'read', 'write', 'timeout', 'status']) &&
    numbers(record.latencyUs, ['mean', 'p50', 'p99', 'max'])
  );
}

/**
 * Runs wrk; once `threads` threads have said their share is answered (0: a duration run), or
 * when no answer has come for `stallMs`, it is interrupted until it exits. Killed after
 * `maxSeconds`, and then rejects. A fixed count is run as a duration of `maxSeconds`: wrk-load.lua
 * counts the answers in each thread, stops the thread at its share and says so on stderr, and wrk's
 * main thread, which would otherwise sleep out the whole -d, is interrupted here.
 */
function spawnWrk(
  args: string[],
  threads: number,
  maxSeconds: number,
  stallMs: number,
): Promise<{ stdout: string; finished: boolean; stalled: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let partialLine = '';
    let done = 0;
    let stalled = false;
    let lastAnswer = performance.now();
    let interrupting: NodeJS.Timeout | undefined;
    const interrupt = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    };
    // The signal may reach a worker thread still winding down, and only the main thread's
    // sleep must end: so again until wrk exits.
    const stop = () => {
      if (interrupting) return;
      interrupt();
      interrupting = setInterval(interrupt, INTERRUPT_EVERY_MS);
    };
    const watchdog =
      threads > 0
        ? setInterval(() => {
            if (done < threads && performance.now() - lastAnswer > stallMs) {
              stalled = true;
              stop();
            }
          }, STALL_CHECK_MS)
        : undefined;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout = (stdout + chunk).slice(-OUTPUT_KEPT);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partialLine + chunk).split('\n');
      partialLine = lines.pop() ?? '';
      for (const line of lines) {
        if (line === ANSWER_MARK || line === DONE_MARK) lastAnswer = performance.now();
        if (line === DONE_MARK) done++;
        else if (line !== ANSWER_MARK) stderr = `${stderr}${line}\n`.slice(-OUTPUT_KEPT);
      }
      if (threads > 0 && done >= threads) stop();
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), maxSeconds * 1000 + KILL_GRACE_MS);
    const settle = () => {
      clearTimeout(killer);
      clearInterval(interrupting);
      clearInterval(watchdog);
    };
    child.once('error', (error) => {
      settle();
      reject(error);
    });
    child.once('close', (code, signal) => {
      settle();
      if (code !== 0)
        return reject(
          new Error(
            `wrk ${signal ? `was killed (${signal})` : `exited with status ${code}`}: ${stderr.trim().slice(-2000)}`,
          ),
        );
      resolve({ stdout, finished: threads > 0 && done >= threads, stalled });
    });
  });
}
