// `npm run bench:stream-stall`: the lost exchanges Workload S reports on 50 MB sliced reads, reproduced without
// tiercache, under wrk. Writes bench/results/<ts>/stream-stall.*.

import { runWrk, wrkInstalled } from './load/wrk.ts';
import { describeMachine, formatTable, machine, writeResults } from './report/results.ts';
import { startDirectWorkers } from './setup/miniflare-direct.ts';

const SIZE = 50_000_000;
const SLICE = 8 * 2 ** 20;
const ROUNDS = 3;
const REQUESTS = 500;
const CONNECTIONS = 10;
/**
 * One body served three ways: as stored (a native pass-through), piped through a FixedLengthStream, and as seven 8 MiB
 * entries piped one after another into one FixedLengthStream (tiercache's sliced read). What it shows here: answers
 * whose body is fed by JavaScript stall for seconds now and then and some connections are then closed under a
 * request, with no error on the worker's side; the pass-through never does. curl, Node's fetch and a raw socket
 * client reading the same answers byte-exactly have not met it, so the trigger is wrk's timing (docs/benchmarks.md).
 */
const ROUTES = ['/stored', '/fixed-length', '/slices'] as const;

/** One worker on tiercache's runtime (Miniflare 4, workerd on a socket of its own: setup/miniflare-direct.ts). */
const WORKER = `
const SIZE = ${SIZE}, SLICE = ${SLICE}, N = Math.ceil(SIZE / SLICE);
const key = (name) => new Request('http://stall.invalid/' + name);
async function put(name, length) {
  const { readable, writable } = new FixedLengthStream(length);
  const writer = writable.getWriter();
  void writer.write(new Uint8Array(length).fill(name.length)).then(() => writer.close());
  await caches.default.put(key(name), new Response(readable, { headers: { 'cache-control': 'max-age=86400' } }));
}
async function concatenated(bodies) {
  const { readable, writable } = new FixedLengthStream(SIZE);
  void (async () => {
    for (const body of bodies) await body.pipeTo(writable, { preventClose: true });
    await writable.close();
  })();
  return new Response(readable);
}
export default {
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === '/setup') {
      await put('whole', SIZE);
      for (let i = 0; i < N; i++) await put('slice' + i, Math.min(SLICE, SIZE - i * SLICE));
      return new Response('ready');
    }
    if (path === '/stored') return caches.default.match(key('whole'));
    if (path === '/fixed-length') return concatenated([(await caches.default.match(key('whole'))).body]);
    if (path === '/slices') {
      const bodies = [];
      for (let i = 0; i < N; i++) bodies.push((await caches.default.match(key('slice' + i))).body);
      return concatenated(bodies);
    }
    return new Response('not found', { status: 404 });
  },
};`;

interface Row {
  route: (typeof ROUTES)[number];
  round: number;
  answered: number;
  errors: number;
  socketErrors: number;
  maxLatencyMs: number;
  mibPerSec: number;
}

if (!(await wrkInstalled())) throw new Error('wrk is not installed: bash bench/setup/peers/install.sh');
const startedAt = new Date();
const workers = await startDirectWorkers([{ name: 'stall', code: WORKER }]);
const rows: Row[] = [];
try {
  const url = workers.urls.get('stall') ?? '';
  const ready = await fetch(`${url}/setup`);
  if (!ready.ok) throw new Error(`setup answered ${ready.status}`);
  await ready.arrayBuffer();
  for (let round = 1; round <= ROUNDS; round++) {
    for (const route of ROUTES) {
      // Fixed counts with bench/load/wrk-load.lua, as Workload S sends them.
      const load = await runWrk({
        urls: [new URL(url + route)],
        connections: CONNECTIONS,
        requests: REQUESTS,
        headers: {},
        timeoutSec: 15,
        maxSeconds: 120,
        bodyBytes: SIZE,
      });
      rows.push({
        route,
        round,
        answered: load.requests,
        errors: load.errors,
        socketErrors: load.socketErrors ?? 0,
        maxLatencyMs: load.latency.maxMs,
        mibPerSec: load.mibPerSec,
      });
      console.log(
        `${route} round ${round}: ${load.requests}/${REQUESTS} answered, ${load.errors} lost, max ${load.latency.maxMs.toFixed(0)} ms`,
      );
    }
  }
} finally {
  await workers.stop();
}

const table = {
  columns: ['answer', 'round', 'answered', 'lost', 'socket errors', 'max latency ms', 'MiB/s'],
  rows: rows.map((r) => [
    r.route,
    String(r.round),
    `${r.answered}/${REQUESTS}`,
    String(r.errors),
    String(r.socketErrors),
    r.maxLatencyMs.toFixed(0),
    r.mibPerSec.toFixed(0),
  ]),
};
const markdown = `# Answers fed by JavaScript under wrk, ${startedAt.toISOString()}\n\n${describeMachine(machine())}\n\n${REQUESTS} GETs of ${SIZE / 1e6} MB over ${CONNECTIONS} connections per cell (bench/load/wrk-load.lua), ${ROUNDS} rounds.\n\n${formatTable(table)}\n`;
console.log(`\n${formatTable(table)}`);
const written = await writeResults(
  'stream-stall',
  startedAt,
  { benchmark: 'stream-stall', size: SIZE, sliceSize: SLICE, requests: REQUESTS, connections: CONNECTIONS, rows },
  markdown,
);
console.log(`\nwrote ${written.join(', ')}`);
