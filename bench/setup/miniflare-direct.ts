// Workers run the way tiercache runs locally (local/direct-miniflare.ts): Miniflare 4 drives workerd and each worker
// is served on a workerd socket of its own, not through Miniflare's entry worker, which costs about 3× per request.

import { directSocket, moduleWorker, startDirectMiniflare } from '../../local/direct-miniflare.ts';

export interface DirectWorker {
  name: string;
  /** A bundled ES module (local/bundle.ts). */
  code: string;
  bindings?: Record<string, string>;
}

export interface DirectWorkers {
  /** Worker name → `http://127.0.0.1:PORT`, its own socket. */
  urls: Map<string, string>;
  /** Disposes of Miniflare and waits until its temporary directory (the caches) is gone. */
  stop(): Promise<void>;
}

/**
 * One workerd, every worker on a free loopback port of its own; the Cache API backed as in `npm start`. For the naive
 * baselines (peers/naive.ts), the layers measurement's "Miniflare direct socket" row (layers/launchers.ts), so both
 * stand where tiercache does, and bench:stream-stall's worker. The entry worker's 3× is measured by bench:layers.
 */
export async function startDirectWorkers(workers: readonly DirectWorker[]): Promise<DirectWorkers> {
  const started = await startDirectMiniflare(
    workers.map((worker) => ({
      ...moduleWorker(worker.name, worker.code),
      bindings: worker.bindings ?? {},
      ...directSocket(),
    })),
  );
  const urls = new Map<string, string>();
  for (const [name, url] of started.urls) urls.set(name, url.origin);
  return { urls, stop: started.stop };
}
