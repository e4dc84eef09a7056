// Workers run the way tiercache runs locally (local/workers.ts): Miniflare 4 drives workerd
// and each worker is served on a workerd socket of its own, not through Miniflare's entry worker,
// which costs about 3× per request (bench:layers). Used for the naive baselines (peers/naive.ts),
// for the layers measurement's "Miniflare direct socket" row (layers/launchers.ts), so both stand
// where tiercache does, and for bench:stream-stall's worker.

import { Log, LogLevel, Miniflare } from 'miniflare';
import { disposer } from '../../local/workers.ts';

export const COMPATIBILITY_DATE = '2026-07-30';
const LOOPBACK = '127.0.0.1';

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

/** One workerd, every worker on a free loopback port of its own; the Cache API backed as in `npm start`. */
export async function startDirectWorkers(workers: readonly DirectWorker[]): Promise<DirectWorkers> {
  const mf = new Miniflare({
    host: LOOPBACK,
    // The entry worker stays on a free port nobody uses.
    port: 0,
    log: new Log(LogLevel.WARN),
    // The placeholder `request.cf`, instead of fetching one from the Internet at every start.
    cf: false,
    workers: workers.map((worker) => ({
      name: worker.name,
      modules: true,
      script: worker.code,
      compatibilityDate: COMPATIBILITY_DATE,
      bindings: worker.bindings ?? {},
      unsafeDirectSockets: [{ host: LOOPBACK, port: 0 }],
    })),
  });
  const stop = disposer(mf);
  try {
    await mf.ready;
    const urls = new Map<string, string>();
    for (const worker of workers) urls.set(worker.name, (await mf.unsafeGetDirectURL(worker.name)).origin);
    return { urls, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
