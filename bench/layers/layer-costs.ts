// What each local layer costs: the naive worker (naive-worker.ts) under wrk on bare workerd, on
// Miniflare with a direct socket (what tiercache runs on locally), through Miniflare's entry
// worker and under `wrangler dev --local`, for `/map/1` (a global Map: the runtime and the
// layer's entry) and `/cache/1` (caches.default: adds the local Cache API simulator). Warm
// figures only: one priming GET, a warm-up run, then the measured run. Run by bench:layers on
// its own, and reduced inside `npm run bench`.

import { bundleWorker } from '../../local/bundle.ts';
import { type LoadResult, runLoad } from '../load.ts';
import { describeError, type Table } from '../report.ts';
import { type Layer, type LayerName, startMiniflareDirect, startMiniflareEntry, startWorkerd, startWranglerDev } from './layers.ts';

const ENTRY = 'bench/layers/naive-worker.ts';
export const ROUTES = ['/map/1', '/cache/1'] as const;
/** The worker's bodies (naive-worker.ts). */
export const BODY_KIB = 20;
const RUN_SLACK_SEC = 30;
const STARTERS: Record<LayerName, (code: string) => Promise<Layer>> = {
  workerd: startWorkerd,
  'Miniflare direct socket': startMiniflareDirect,
  'Miniflare entry': startMiniflareEntry,
  'wrangler dev': startWranglerDev,
};

export type Route = (typeof ROUTES)[number];

export interface LayerPlan {
  connections: number;
  /** Warm-up: this long (whole seconds) before each measured run. */
  warmUpSec: number;
  measureSec: number;
}

export interface LayerMeasurement {
  layer: LayerName;
  route: Route;
  /** Undefined when the layer could not run the route; `skipped` says why. */
  result?: LoadResult;
  skipped?: string;
}

/** Every layer × route, one layer running at a time; a layer that does not start is reported, not thrown. */
export async function measureLayers(plan: LayerPlan, log: (message: string) => void): Promise<LayerMeasurement[]> {
  const { code } = await bundleWorker(ENTRY);
  const measurements: LayerMeasurement[] = [];
  for (const name of Object.keys(STARTERS) as LayerName[]) {
    log(`layers: starting ${name}`);
    const layer = await STARTERS[name](code).catch((error: unknown) => describeError(error));
    if (typeof layer === 'string') {
      log(`layers: ${name} did not start: ${layer}`);
      for (const route of ROUTES) measurements.push({ layer: name, route, skipped: `did not start: ${layer}` });
      continue;
    }
    try {
      for (const route of ROUTES) measurements.push(await measure(layer, route, plan, log));
    } finally {
      await layer.stop();
    }
  }
  return measurements;
}

async function measure(layer: Layer, route: Route, plan: LayerPlan, log: (message: string) => void): Promise<LayerMeasurement> {
  if (route.startsWith('/cache/') && !layer.hasCache) return { layer: layer.name, route, skipped: 'no Cache API service in bare workerd' };
  const url = `${layer.url}${route}`;
  const primed = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  await primed.arrayBuffer();
  if (primed.status !== 200) return { layer: layer.name, route, skipped: `priming GET answered ${primed.status}` };
  const run = (durationSec: number) => runLoad({ url, connections: plan.connections, durationSec, maxSeconds: durationSec + RUN_SLACK_SEC, tool: 'wrk 4.x' });
  await run(plan.warmUpSec);
  const result = await run(plan.measureSec);
  log(`layers: ${layer.name} ${route}: ${result.reqPerSec.toFixed(0)} req/s, mean ${result.latency.meanMs.toFixed(2)} ms, p99 ${result.latency.p99Ms.toFixed(2)} ms, errors ${result.errors}, non-2xx ${result.non2xx}`);
  return { layer: layer.name, route, result };
}

/** Layer × route; the ratio is to bare workerd's /map, the floor every other figure stands on. */
export function layersTable(measurements: readonly LayerMeasurement[]): Table {
  const floor = reqPerSec(measurements, 'workerd', '/map/1');
  const rows = measurements.map(({ layer, route, result, skipped }) => {
    if (!result) return [layer, route, '—', '—', '—', '—', '—', skipped ?? ''];
    const ratio = floor ? (result.reqPerSec / floor).toFixed(2) : '—';
    const { meanMs, p99Ms } = result.latency;
    return [layer, route, result.reqPerSec.toFixed(0), meanMs.toFixed(2), p99Ms.toFixed(2), ratio, String(result.errors + result.non2xx), ''];
  });
  return { columns: ['layer', 'route', 'req/s', 'mean ms', 'p99 ms', '× workerd /map', 'errors', 'note'], rows };
}

/** What each layer adds, as "× slower" factors between two cells of the table, where both ran. */
export function layerCosts(measurements: readonly LayerMeasurement[]): string[] {
  const cost = (what: string, faster: number | undefined, slower: number | undefined) => (faster && slower ? [`${what}: ${(faster / slower).toFixed(2)}× the time per request`] : []);
  const get = (layer: LayerName, route: Route) => reqPerSec(measurements, layer, route);
  return [
    ...cost("Miniflare's direct socket over bare workerd (Map)", get('workerd', '/map/1'), get('Miniflare direct socket', '/map/1')),
    ...cost("Miniflare's entry worker over its direct socket (Map)", get('Miniflare direct socket', '/map/1'), get('Miniflare entry', '/map/1')),
    ...cost("the local Cache API simulator over a Map (direct socket)", get('Miniflare direct socket', '/map/1'), get('Miniflare direct socket', '/cache/1')),
    ...cost("`wrangler dev` over Miniflare's entry (Map)", get('Miniflare entry', '/map/1'), get('wrangler dev', '/map/1')),
  ];
}

function reqPerSec(measurements: readonly LayerMeasurement[], layer: LayerName, route: Route): number | undefined {
  return measurements.find((m) => m.layer === layer && m.route === route)?.result?.reqPerSec;
}
