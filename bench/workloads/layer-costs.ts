// What each local layer costs: the naive worker (../setup/layers/naive-originless-worker.ts) under wrk in each layer
// a worker can run in locally (../setup/layers/launchers.ts); run by bench:layers, reduced inside `npm run bench`.

import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorker, PROJECT_ROOT } from '../../local/bundle.ts';
import type { LoadResult } from '../load/load-result.ts';
import { runLoad } from '../load/run-load.ts';
import { describeError } from '../report/results.ts';
import {
  type Layer,
  type LayerName,
  startMiniflareDirect,
  startMiniflareEntry,
  startWorkerd,
  startWranglerDev,
} from '../setup/layers/launchers.ts';

/** Relative to the project root, as bundleWorker takes it. */
const ENTRY = relative(
  PROJECT_ROOT,
  fileURLToPath(new URL('../setup/layers/naive-originless-worker.ts', import.meta.url)),
);
/** A global Map: the runtime and the layer's entry; caches.default: adds the local Cache API simulator. */
const ROUTES = ['/map/1', '/cache/1'] as const;
/** The worker's bodies (naive-originless-worker.ts). */
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

/** Warm figures only: one priming GET, a warm-up run, then the measured run. Its tables: ../report/layers-table.ts. */
async function measure(
  layer: Layer,
  route: Route,
  plan: LayerPlan,
  log: (message: string) => void,
): Promise<LayerMeasurement> {
  if (route.startsWith('/cache/') && !layer.hasCache)
    return { layer: layer.name, route, skipped: 'no Cache API service in bare workerd' };
  const url = `${layer.url}${route}`;
  const primed = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  await primed.arrayBuffer();
  if (primed.status !== 200) return { layer: layer.name, route, skipped: `priming GET answered ${primed.status}` };
  const run = (durationSec: number) =>
    runLoad({
      url,
      connections: plan.connections,
      durationSec,
      maxSeconds: durationSec + RUN_SLACK_SEC,
      tool: 'wrk 4.x',
    });
  await run(plan.warmUpSec);
  const result = await run(plan.measureSec);
  log(
    `layers: ${layer.name} ${route}: ${result.reqPerSec.toFixed(0)} req/s, mean ${result.latency.meanMs.toFixed(2)} ms, p99 ${result.latency.p99Ms.toFixed(2)} ms, errors ${result.errors}, non-2xx ${result.non2xx}`,
  );
  return { layer: layer.name, route, result };
}
