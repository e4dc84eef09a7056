// What each local layer costs: the naive worker (naive-worker.ts) under wrk on bare workerd,
// the Miniflare API and `wrangler dev --local`, for `/map/1` (a global Map: the runtime and the
// layer's entry) and `/cache/1` (caches.default: adds the local Cache API simulator). Warm
// figures only: one priming GET, a warm-up run, then the measured run.
// Usage: npm run bench:layers

import { runLoad, type LoadResult } from '../load.ts';
import { describeError, describeMachine, formatTable, machine, type Table, writeResults } from '../report.ts';
import { bundleWorker } from '../../test/stack/bundle.ts';
import { type Layer, type LayerName, startMiniflare, startWorkerd, startWranglerDev, stopChildren } from './layers.ts';

const ENTRY = 'bench/layers/naive-worker.ts';
const ROUTES = ['/map/1', '/cache/1'] as const;
const CONNECTIONS = 100;
const WARM_UP_SEC = 1;
const MEASURE_SEC = 3;
const RUN_LIMIT_SEC = 30;
const STARTERS: Record<LayerName, (code: string) => Promise<Layer>> = { workerd: startWorkerd, miniflare: startMiniflare, 'wrangler dev': startWranglerDev };

type Route = (typeof ROUTES)[number];
interface Measurement {
  layer: LayerName;
  route: Route;
  /** Undefined when the layer could not run the route; `skipped` says why. */
  result?: LoadResult;
  skipped?: string;
}

const startedAt = new Date();
const log = (message: string) => process.stderr.write(`[layers] ${message}\n`);
const stops: (() => Promise<void>)[] = [];
const stopAll = async () => {
  for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  await stopChildren();
};
// Miniflare's own SIGINT/SIGTERM listeners exit on the spot: signals stay ours (as bench/run.ts).
const onSignal = () => void stopAll().finally(() => process.exit(130));
process.on('newListener', (event, listener) => {
  if ((event === 'SIGINT' || event === 'SIGTERM') && listener !== onSignal) queueMicrotask(() => process.off(event, listener));
});
process.on('SIGINT', onSignal).on('SIGTERM', onSignal);

try {
  const machineBefore = machine();
  const { code } = await bundleWorker(ENTRY);
  const measurements: Measurement[] = [];
  for (const name of Object.keys(STARTERS) as LayerName[]) {
    log(`starting ${name}`);
    const layer = await STARTERS[name](code).catch((error: unknown) => describeError(error));
    if (typeof layer === 'string') {
      log(`${name} did not start: ${layer}`);
      for (const route of ROUTES) measurements.push({ layer: name, route, skipped: `did not start: ${layer}` });
      continue;
    }
    stops.push(layer.stop);
    for (const route of ROUTES) measurements.push(await measure(layer, route));
    await stops.pop()?.();
  }
  const table = resultTable(measurements);
  const printed = formatTable(table);
  process.stdout.write(`${printed}\n`);
  const notes = [
    `${CONNECTIONS} connections, wrk -t2, ${WARM_UP_SEC} s warm-up then ${MEASURE_SEC} s measured, per layer × route; 20 KiB bodies.`,
    'Bare workerd has no Cache API without a cache service in its config ("No Cache was configured"): /cache is measured on Miniflare and wrangler dev only.',
    'Reading: miniflare /map ÷ workerd /map = the cost of Miniflare\'s entry; /cache ÷ /map on one layer = the local Cache API simulator; wrangler dev ÷ miniflare = wrangler dev\'s proxy.',
    `Machine: ${describeMachine(machineBefore)} (before); load average after ${machine().loadAverage.join(' ')}.`,
  ];
  const markdown = `# Local layers: the naive worker\n\n${printed}\n\n${notes.map((note) => `- ${note}`).join('\n')}\n`;
  const paths = await writeResults('layers', startedAt, { startedAt: startedAt.toISOString(), machine: machineBefore, measurements }, markdown);
  log(`wrote ${paths.join(', ')}`);
} finally {
  await stopAll();
}
process.exit(0);

async function measure(layer: Layer, route: Route): Promise<Measurement> {
  if (route.startsWith('/cache/') && !layer.hasCache) return { layer: layer.name, route, skipped: 'no Cache API service in bare workerd' };
  const url = `${layer.url}${route}`;
  const primed = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  const bytes = (await primed.arrayBuffer()).byteLength;
  if (primed.status !== 200) return { layer: layer.name, route, skipped: `priming GET answered ${primed.status}` };
  await runLoad({ url, connections: CONNECTIONS, durationSec: WARM_UP_SEC, maxSeconds: RUN_LIMIT_SEC, tool: 'wrk 4.x' });
  const result = await runLoad({ url, connections: CONNECTIONS, durationSec: MEASURE_SEC, maxSeconds: RUN_LIMIT_SEC, tool: 'wrk 4.x' });
  log(`${layer.name} ${route} (${bytes} B): ${result.reqPerSec.toFixed(0)} req/s, mean ${result.latency.meanMs} ms, p99 ${result.latency.p99Ms} ms, errors ${result.errors}, non-2xx ${result.non2xx}`);
  return { layer: layer.name, route, result };
}

/** Layer × route; the ratio is to bare workerd's /map, the floor every other figure stands on. */
function resultTable(measurements: Measurement[]): Table {
  const floor = measurements.find((m) => m.layer === 'workerd' && m.route === '/map/1')?.result?.reqPerSec;
  const rows = measurements.map(({ layer, route, result, skipped }) => {
    if (!result) return [layer, route, '—', '—', '—', '—', '—', skipped ?? ''];
    const ratio = floor ? (result.reqPerSec / floor).toFixed(2) : '—';
    const { meanMs, p99Ms } = result.latency;
    return [layer, route, result.reqPerSec.toFixed(0), meanMs.toFixed(2), p99Ms.toFixed(2), ratio, String(result.errors + result.non2xx), ''];
  });
  return { columns: ['layer', 'route', 'req/s', 'mean ms', 'p99 ms', '× workerd /map', 'errors', 'note'], rows };
}
