// `npm run bench:held-memory`: workerd's resident memory growth while 250 answers of 1 MB without a Content-Length
// (chunked, `no-store`, from an http origin) are under way through both tiers at once: each is held until it has
// ended (shared/tier/held-until-whole.ts), against the isolate's pool for them (shared/tier/held-pool.ts) plus a
// fixed margin. Beside it, for scale: 250 such answers of 4 KB (what the requests cost by themselves, the margin's
// measure), and 250 of 1 MB with their Content-Length (streamed, nothing held). Writes
// bench/results/<ts>/held-memory.*.

import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { deterministicBytes } from '../local/assets.ts';
import { startWorkers } from '../local/workers.ts';
import { HELD_POOL_BYTES } from '../shared/tier/held-pool.ts';
import { procAvailable, processesNamed, RUNTIME_NAME } from './probes/process-rss.ts';
import { medianRuntimeBytes, startSampler } from './probes/rss-sampler.ts';
import { describeError, describeMachine, formatTable, machine, writeResults } from './report/results.ts';
import { type Framing, GATED_PREFIX, startHeldOrigin } from './setup/held-origin.ts';
import { Stops } from './setup/signals.ts';

const MB = 1_000_000;
/** Answers under way at once: the count a review found adding 214 MiB to workerd before the pool. */
const ANSWERS = 250;
const BODY_SEED = 0x68_6c_64;
/**
 * What 250 requests in flight through both tiers cost the local workerd whatever their bodies: connections, requests,
 * streams and their buffers in two isolates and Miniflare's cache, about 0.7 MB each. Measured by the 4 KB case (as
 * many answers, next to nothing held): 157 to 198 MB in seven runs at 250 (31 MB at 25, 78 MB at 100) on this shared
 * 2-core machine; 230 MB leaves room for that noise.
 */
const MARGIN_BYTES = 230 * MB;
/** Each case: its answers' size and framing. 1 MB is under the 1 MiB one answer may hold (HOLD_BYTES). */
const CASES: readonly Case[] = [
  { name: 'held, 1 MB', framing: 'chunked', size: MB, judged: true },
  { name: 'held, 4 KB', framing: 'chunked', size: 4_000, judged: false },
  { name: 'streamed, 1 MB', framing: 'length', size: MB, judged: false },
];
/**
 * The shield's bounds on the origin's head and on silence inside a body, above the origin's gate (held-origin.ts
 * GATE_MS): the answers wait there for each other, not for a fault.
 */
const ORIGIN_WAIT_MS = 60_000;
const SAMPLE_INTERVAL_MS = 100;
const BASELINE_MS = 1_000;
/** Sampling goes on this long after the last answer has ended. */
const SETTLE_MS = 2_000;
const ANSWER_TIMEOUT_MS = 120_000;
const MAX_SAMPLES = Math.ceil((ANSWER_TIMEOUT_MS + SETTLE_MS) / SAMPLE_INTERVAL_MS) + 10;

/** How one answer ended, as its client saw it. */
type Outcome = 'whole' | 'refused' | 'broken' | 'wrong';

interface Answer {
  status: number;
  outcome: Outcome;
  /** The shield's Cache-Status member (the first). */
  shield: string;
  retryAfter: string | null;
}

interface Case {
  name: string;
  framing: Framing;
  size: number;
  /** Held against the limit (the others are there for scale). */
  judged: boolean;
}

interface CaseRun {
  name: string;
  framing: Framing;
  size: number;
  /** Requests the origin had received when the answers' tails went. */
  arrivedAtOrigin: number;
  answers: number;
  outcomes: Partial<Record<Outcome, number>>;
  /** Each status, and how many answers had it. */
  statuses: Record<string, number>;
  /** The shield's members on refusals, and how many. */
  refusals: Record<string, number>;
  durationMs: number;
  baselineBytes: number;
  peakBytes: number;
  growthBytes: number;
  limitBytes: number | undefined;
  verdict: 'PASS' | 'OVER' | '–';
}

await main();

async function main(): Promise<void> {
  if (!procAvailable()) return fail('bench:held-memory reads resident memory from /proc (Linux only)');
  const startedAt = new Date();
  try {
    const cases: CaseRun[] = [];
    for (const c of CASES) {
      console.log(`${ANSWERS} answers at once: ${c.name} …`);
      cases.push(await runCase(c));
    }
    const markdown = report(startedAt, cases);
    console.log(`\n${markdown}`);
    const run = { benchmark: 'held-memory', startedAt: startedAt.toISOString(), machine: machine(), cases };
    const paths = await writeResults('held-memory', startedAt, run, markdown);
    console.log(`results: ${paths.join(', ')}`);
    process.exitCode = cases.every((c) => (c.outcomes.wrong ?? 0) === 0) ? 0 : 1;
  } catch (error) {
    fail(`bench:held-memory failed: ${describeError(error)}`);
  }
}

/** One case on a stack of its own (a runtime's RSS does not fall back after a peak). */
async function runCase(c: Case): Promise<CaseRun> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of deterministicBytes(BODY_SEED, c.size)) chunks.push(chunk);
  const body = Buffer.concat(chunks);
  const sha256 = createHash('sha256').update(body).digest('hex');
  const stops = new Stops();
  try {
    const origin = await startHeldOrigin(body, c.framing, ANSWERS);
    stops.push(() => origin.close());
    const config = {
      ORIGIN_KIND: 'http',
      ORIGIN_URL: origin.url,
      SHIELD_TOKEN: randomUUID(),
      ORIGIN_TIMEOUT_MS: String(ORIGIN_WAIT_MS),
      ORIGIN_IDLE_TIMEOUT_MS: String(ORIGIN_WAIT_MS),
    };
    const stack = await startWorkers({ config, port: 0 });
    stops.push(() => stack.dispose());
    const pids = processesNamed(process.pid, RUNTIME_NAME);
    if (pids.length === 0) throw new Error(`no ${RUNTIME_NAME} process among this process's descendants`);
    // One answer first, alone (not gated): the code paths warmed.
    const warmUp = await get(new URL('/warm-up.bin', stack.url), sha256, c.size);
    if (warmUp.outcome === 'wrong') throw new Error(`the warm-up answered ${warmUp.status} with wrong bytes`);
    const baseline = startSampler(pids, SAMPLE_INTERVAL_MS, MAX_SAMPLES);
    await delay(BASELINE_MS);
    const baselineBytes = medianRuntimeBytes(baseline.stop());

    const sampler = startSampler(pids, SAMPLE_INTERVAL_MS, MAX_SAMPLES);
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: ANSWERS }, (_, i) => get(new URL(`${GATED_PREFIX}${i}.bin`, stack.url), sha256, c.size)),
    );
    const arrivedAtOrigin = origin.arrivedWhenOpened();
    const durationMs = performance.now() - started;
    await delay(SETTLE_MS);
    const peakBytes = sampler.stop().runtimePeakBytes;
    const growthBytes = peakBytes - baselineBytes;
    const limitBytes = c.judged ? HELD_POOL_BYTES + MARGIN_BYTES : undefined;
    return {
      name: c.name,
      framing: c.framing,
      size: c.size,
      arrivedAtOrigin,
      answers: answers.length,
      outcomes: count(answers.map((a) => a.outcome)),
      statuses: count(answers.map((a) => String(a.status))),
      refusals: count(
        answers.filter((a) => a.outcome === 'refused').map((a) => `${a.shield} (Retry-After ${a.retryAfter ?? '–'})`),
      ),
      durationMs: Math.round(durationMs),
      baselineBytes,
      peakBytes,
      growthBytes,
      limitBytes,
      verdict: limitBytes === undefined ? '–' : growthBytes <= limitBytes ? 'PASS' : 'OVER',
    };
  } finally {
    await stops.all();
    stops.releaseSignals();
  }
}

/** A GET read to its end and hashed as it streams. */
async function get(url: URL, sha256: string, size: number): Promise<Answer> {
  const hash = createHash('sha256');
  let length = 0;
  let status = 0;
  let shield = '';
  let retryAfter: string | null = null;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
    status = response.status;
    shield = (response.headers.get('cache-status') ?? '').split(',')[0]?.trim() ?? '';
    retryAfter = response.headers.get('retry-after');
    const reader = response.body?.getReader();
    for (let read = await reader?.read(); read !== undefined && !read.done; read = await reader?.read()) {
      hash.update(read.value);
      length += read.value.byteLength;
    }
  } catch {
    // A status the head said, and a body that broke: a visibly failed transfer.
    return { status, outcome: status >= 500 ? 'refused' : 'broken', shield, retryAfter };
  }
  if (status >= 500) return { status, outcome: 'refused', shield, retryAfter };
  const exact = status === 200 && length === size && hash.digest('hex') === sha256;
  return { status, outcome: exact ? 'whole' : 'wrong', shield, retryAfter };
}

function count(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

function report(startedAt: Date, cases: readonly CaseRun[]): string {
  const mb = (bytes: number): string => (bytes / MB).toFixed(1);
  const requestsAlone = cases.find((c) => c.size < MB && c.framing === 'chunked')?.growthBytes;
  const table = formatTable({
    columns: [
      'case',
      'answers',
      'at origin together',
      'whole',
      'refused',
      'broken',
      'wrong',
      'seconds',
      'workerd baseline MB',
      'workerd peak MB',
      'growth MB',
      'over the 4 KB case MB',
      'limit MB',
      'verdict',
    ],
    rows: cases.map((c) => [
      c.name,
      String(c.answers),
      String(c.arrivedAtOrigin),
      String(c.outcomes.whole ?? 0),
      String(c.outcomes.refused ?? 0),
      String(c.outcomes.broken ?? 0),
      String(c.outcomes.wrong ?? 0),
      (c.durationMs / 1000).toFixed(1),
      mb(c.baselineBytes),
      mb(c.peakBytes),
      mb(c.growthBytes),
      requestsAlone === undefined || c.size < MB ? '–' : mb(c.growthBytes - requestsAlone),
      c.limitBytes === undefined ? '–' : mb(c.limitBytes),
      c.verdict,
    ]),
  });
  const refusals = cases.flatMap((c) =>
    Object.entries(c.refusals).map(([member, n]) => `- ${c.name}: ${n} × \`${member}\``),
  );
  return [
    `# bench:held-memory, ${startedAt.toISOString()}`,
    '',
    `${ANSWERS} GETs at once through both tiers (the edge's own socket), each a \`no-store\` answer from an http origin that keeps its last KiB back until every request has arrived (at most 20 s): all are under way, and held, together. "held": chunked, no Content-Length (each tier holds such a body until it has ended); "streamed": with its Content-Length. The limit, on the 1 MB held case: the isolate's pool for bodies held until whole (HELD_POOL_BYTES, ${mb(HELD_POOL_BYTES)} MB) plus a fixed margin of ${mb(MARGIN_BYTES)} MB for 250 requests in flight (the 4 KB case measures what they cost with next to nothing held).`,
    '',
    '- at origin together: requests the origin had received when it sent the tails; whole: 200 with every byte (SHA-256); refused: a 5xx before any byte; broken: a transfer that visibly broke; wrong: a complete-looking answer with other bytes (must be 0)',
    `- growth = workerd's peak RSS (both tiers, one process) − its median over ${BASELINE_MS / 1000} s before, sampled every ${SAMPLE_INTERVAL_MS} ms until ${SETTLE_MS / 1000} s after the last answer; each case on a fresh stack; MB = 10^6 bytes`,
    '- over the 4 KB case: the growth less what as many requests cost with next to nothing held (the pool bounds this part)',
    `- machine: ${describeMachine(machine())}`,
    '',
    table,
    ...(refusals.length > 0 ? ['', "Refusals, by the shield's Cache-Status member:", '', ...refusals] : []),
  ].join('\n');
}

function fail(message: string): void {
  console.error(message);
  process.exitCode = 2;
}
