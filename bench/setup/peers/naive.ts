// The naive baselines (naive-proxy-worker.ts) as peers, in front of the same origin.

import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorker, PROJECT_ROOT } from '../../../local/bundle.ts';
import { startDirectWorkers } from '../miniflare-direct.ts';

/** Relative to the project root, as bundleWorker takes it. */
const ENTRY = relative(PROJECT_ROOT, fileURLToPath(new URL('./naive-proxy-worker.ts', import.meta.url)));

export interface NaivePeers {
  /** caches.default in front of the origin. */
  cacheUrl: string;
  /** A global Map in front of the origin. */
  mapUrl: string;
  /** Ends both (one workerd); a second call is a no-op. */
  stop(): Promise<void>;
}

/**
 * Bundled as tiercache's workers are (esbuild, local/bundle.ts), both in one workerd driven by Miniflare, each on a
 * socket of its own as tiercache's edge is (../miniflare-direct.ts).
 */
export async function startNaiveWorkers(options: { origin: string }): Promise<NaivePeers> {
  const { code } = await bundleWorker(ENTRY);
  const workers = await startDirectWorkers([
    { name: 'naive-cache', code, bindings: { ORIGIN_URL: options.origin, NAIVE_MODE: 'cache' } },
    { name: 'naive-map', code, bindings: { ORIGIN_URL: options.origin, NAIVE_MODE: 'map' } },
  ]);
  const cacheUrl = workers.urls.get('naive-cache');
  const mapUrl = workers.urls.get('naive-map');
  if (!cacheUrl || !mapUrl) {
    await workers.stop();
    throw new Error('Miniflare gave no direct socket to a naive worker');
  }
  return { cacheUrl, mapUrl, stop: workers.stop };
}
