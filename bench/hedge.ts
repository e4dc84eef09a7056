// npm run bench:hedge: what a hedged first byte (ORIGIN_HEDGE, shield/origin/endpoint-race.ts) buys and costs. One S3
// server (s3rver) behind three endpoints (setup/slow-endpoint.ts, loopback proxies); the preferred one holds its head
// back HOLD_MS on a fifth of its answers. Distinct cold objects are read as misses through both workers, one every
// INTERVAL_MS (a fixed rate, not a fixed number of readers: a hedged run must not ask faster, and load the machine
// more, because its readers wait less), twice in this process, each time on a fresh stack and fresh endpoints: hedging off, then on. Printed: the
// misses' time to first byte (p50, p99), the hedges the stats counted, the bytes the endpoints sent, and the hedges'
// egress: the bytes sent for requests the shield gave up (the losers), over all the endpoints sent.

import { request as httpRequest } from 'node:http';
import { type S3Origin, startS3Origin } from '../local/origin.ts';
import { type Stack, startWorkers } from '../local/workers.ts';
import type { StatsJson } from '../shared/stats/stats-json.ts';
import { describeMachine, formatTable, machine, writeResults } from './report/results.ts';
import { percentile } from './report/statistics.ts';
import { type SlowEndpoint, startSlowEndpoint } from './setup/slow-endpoint.ts';

const HOLD_MS = 400;
/** Objects read per run; sizes cycle through SIZES (bytes). */
const OBJECTS = Number(process.env.HEDGE_OBJECTS ?? 300);
const SIZES = [256 * 1024, 1024 * 1024, 2 * 1024 * 1024];
/** One read starts every INTERVAL_MS: 25 a second, a few under way at once. */
const INTERVAL_MS = 40;
/** No read may take longer: the run stops with an error rather than hang. */
const READ_TIMEOUT_MS = 30_000;
const STATS_TOKEN = 'bench-hedge-stats';

interface Run {
  hedge: 'off' | 'on';
  /** Each miss's time to its first byte (ms). */
  ttfb: number[];
  /** Per endpoint, in ORIGIN_URL's order: requests, held, given up, body bytes sent, of them for requests given up. */
  endpoints: { requests: number; held: number; gaveUp: number; bytes: number; lostBytes: number }[];
  counted: StatsJson['cost']['windowOperations'];
  wallMs: number;
}

const at = new Date();
const s3 = await startS3Origin();
const keys: { key: string; size: number }[] = [];
for (let i = 0; i < OBJECTS; i++) {
  const size = SIZES[i % SIZES.length] ?? 0;
  const key = `hedge/${i}.bin`;
  await s3.putObject(key, new Uint8Array(size).fill(i & 0xff));
  keys.push({ key, size });
}
const runs: Run[] = [];
try {
  for (const hedge of ['off', 'on'] as const) runs.push(await measure(s3, hedge));
} finally {
  await s3.close();
}

const off = runs.find((run) => run.hedge === 'off');
const on = runs.find((run) => run.hedge === 'on');
const row = (run: Run): string[] => {
  const bytes = run.endpoints.reduce((sum, each) => sum + each.bytes, 0);
  const lost = run.endpoints.reduce((sum, each) => sum + each.lostBytes, 0);
  return [
    run.hedge,
    String(run.ttfb.length),
    percentile(run.ttfb, 50).toFixed(0),
    percentile(run.ttfb, 99).toFixed(0),
    `${run.counted.hedgesStarted} / ${run.counted.hedgesWon} / ${run.counted.hedgesLost}`,
    run.endpoints.map((each) => `${each.requests} (${each.held} held, ${each.gaveUp} given up)`).join(', '),
    (bytes / 1e6).toFixed(1),
    (lost / 1e6).toFixed(3),
    `${((100 * lost) / Math.max(1, bytes)).toFixed(2)} %`,
    (run.counted.hedgeBytes / 1e6).toFixed(3),
    (run.wallMs / 1000).toFixed(1),
  ];
};
const table = formatTable({
  columns: [
    'ORIGIN_HEDGE',
    'misses',
    'TTFB p50 ms',
    'TTFB p99 ms',
    'hedges started / won / lost',
    'endpoint requests (A, B, C)',
    'origin MB',
    'hedge egress MB',
    'hedge egress ÷ origin bytes',
    'charged MB (stats)',
    'run s',
  ],
  rows: runs.map(row),
});
const summary =
  off !== undefined && on !== undefined
    ? `miss p99 TTFB ${percentile(off.ttfb, 99).toFixed(0)} ms off → ${percentile(on.ttfb, 99).toFixed(0)} ms on`
    : '';
const markdown = [
  '# bench:hedge',
  '',
  `${OBJECTS} distinct cold objects (${SIZES.map((size) => `${size / 1024} KiB`).join(', ')} in turn), one every ${INTERVAL_MS} ms, through both workers; three endpoints in front of one S3 server, the preferred one holding its head ${HOLD_MS} ms on a fifth of its answers. Hedge egress: body bytes the endpoints sent for requests the shield gave up, over all they sent (target ≤ 3 %).`,
  '',
  table,
  '',
  summary,
  '',
  describeMachine(machine()),
].join('\n');
console.log(markdown);
const written = await writeResults(
  'hedge',
  at,
  { holdMs: HOLD_MS, objects: OBJECTS, sizes: SIZES, runs, machine: machine() },
  markdown,
);
console.log(`written: ${written.join(', ')}`);
process.exit(0);

/** Every object read once, cold, through a fresh stack over fresh endpoints, hedging as `hedge` says. */
async function measure(origin: S3Origin, hedge: 'off' | 'on'): Promise<Run> {
  // The preferred endpoint's every fifth answer held, from its third on (deterministic, the same in both runs).
  const endpoints: SlowEndpoint[] = await Promise.all([
    startSlowEndpoint(origin.url, HOLD_MS, ({ n }) => n % 5 === 2),
    startSlowEndpoint(origin.url, HOLD_MS, () => false),
    startSlowEndpoint(origin.url, HOLD_MS, () => false),
  ]);
  let stack: Stack | undefined;
  try {
    stack = await startWorkers({
      config: {
        ORIGIN_KIND: 's3',
        ORIGIN_URL: endpoints.map((endpoint) => endpoint.url).join(' '),
        S3_BUCKET: origin.bucket,
        S3_ACCESS_KEY_ID: origin.accessKeyId,
        S3_SECRET_ACCESS_KEY: origin.secretAccessKey,
        SHIELD_TOKEN: 'bench-hedge-shield',
        ORIGIN_HEDGE: hedge,
        STATS_TOKEN,
        STATS_FLUSH_MS: '0',
        LOG_SAMPLE: '0',
      },
    });
    const base = stack.url;
    const ttfb: number[] = [];
    const started = Date.now();
    const reads = keys.map(async (object, index) => {
      await new Promise((resolve) => setTimeout(resolve, index * INTERVAL_MS));
      const read = await readOnce(new URL(`/${object.key}`, base));
      if (read.status !== 200 || read.bytes !== object.size)
        throw new Error(`${object.key}: ${read.status}, ${read.bytes} bytes of ${object.size}`);
      ttfb.push(read.ttfbMs);
    });
    await Promise.all(reads);
    const wallMs = Date.now() - started;
    const stats = JSON.parse(await text(new URL('/__tiercache/stats.json', base))) as StatsJson;
    // The tiers close what they gave up at once; a held answer's proxy notices when its hold ends.
    await new Promise((resolve) => setTimeout(resolve, HOLD_MS + 200));
    return {
      hedge,
      ttfb,
      endpoints: endpoints.map(({ answers }) => ({
        requests: answers.length,
        held: answers.filter((answer) => answer.held).length,
        gaveUp: answers.filter((answer) => answer.gaveUp).length,
        bytes: answers.reduce((sum, answer) => sum + answer.bytes, 0),
        lostBytes: answers.filter((answer) => answer.gaveUp).reduce((sum, answer) => sum + answer.bytes, 0),
      })),
      counted: stats.cost.windowOperations,
      wallMs,
    };
  } finally {
    await stack?.dispose();
    await Promise.all(endpoints.map((endpoint) => endpoint.close()));
  }
}

/** One GET: the time to its response head and the body's length, bounded by READ_TIMEOUT_MS. */
function readOnce(url: URL): Promise<{ status: number; bytes: number; ttfbMs: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const asked = httpRequest(url, { timeout: READ_TIMEOUT_MS }, (response) => {
      const ttfbMs = performance.now() - started;
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      response.once('end', () => resolve({ status: response.statusCode ?? 0, bytes, ttfbMs }));
      response.once('error', reject);
    });
    asked.once('timeout', () => asked.destroy(new Error(`${url.pathname}: no answer within ${READ_TIMEOUT_MS} ms`)));
    asked.once('error', reject);
    asked.end();
  });
}

async function text(url: URL): Promise<string> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${STATS_TOKEN}` } });
  return response.text();
}
