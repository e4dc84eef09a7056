// One Miniflare 4 driving workerd, each worker served on a workerd socket of its own rather than
// through Miniflare's entry worker: the entry (request logging, its error pages, the cf blob)
// costs ~3× per request (bench/layers), and production has no such layer either. What `npm start`
// (workers.ts) and the benchmarks' workers (bench/setup/miniflare-direct.ts) both start.
import { rm } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { Log, LogLevel, Miniflare, type WorkerOptions } from 'miniflare';

/** As in wrangler.toml. */
export const COMPATIBILITY_DATE = '2026-07-30';
export const LOOPBACK = '127.0.0.1';

export interface DirectMiniflare {
  mf: Miniflare;
  /** Worker name → the URL of its own socket, for every worker given one (directSocket). */
  urls: Map<string, URL>;
  /** Disposes of Miniflare and waits until its temporary directory (the caches) is gone. */
  stop(): Promise<void>;
}

/** An ES-module worker at the project's compatibility date; `scriptPath` names the bundle in stack traces. */
export function moduleWorker(name: string, script: string, scriptPath?: string): WorkerOptions {
  return { name, modules: true, script, ...(scriptPath !== undefined ? { scriptPath } : {}), compatibilityDate: COMPATIBILITY_DATE };
}

/** A workerd socket of the worker's own on loopback; 0 (the default) = any free port. */
export function directSocket(port = 0): Pick<WorkerOptions, 'unsafeDirectSockets'> {
  return { unsafeDirectSockets: [{ host: LOOPBACK, port }] };
}

/** Starts `workers` in one workerd and waits until each direct socket answers; nothing is left running on failure. */
export async function startDirectMiniflare(workers: WorkerOptions[], options: { inspectorPort?: number } = {}): Promise<DirectMiniflare> {
  const mf = new Miniflare({
    host: LOOPBACK,
    // Miniflare's entry stays on a free port nobody uses; the workers' own sockets serve.
    port: 0,
    // Miniflare's own chatter stays quiet; workers' console output still shows.
    log: new Log(LogLevel.WARN),
    // The placeholder `request.cf`, instead of fetching one from the Internet at every start.
    cf: false,
    ...(options.inspectorPort !== undefined ? { inspectorPort: options.inspectorPort } : {}),
    workers,
  });
  const stop = disposer(mf);
  try {
    await mf.ready;
    const urls = new Map<string, URL>();
    for (const worker of workers) {
      if (worker.name !== undefined && worker.unsafeDirectSockets !== undefined) urls.set(worker.name, await mf.unsafeGetDirectURL(worker.name));
    }
    return { mf, urls, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

/**
 * Miniflare's dispose() removes its temporary directory (where the caches live) without
 * waiting, so a process exiting right after it leaves the directory behind: wait for it here.
 */
function disposer(mf: Miniflare): () => Promise<void> {
  const cachePath = mf.unsafeGetPersistPaths().get('cache');
  const temporary = cachePath === undefined ? undefined : dirname(cachePath);
  const owned = temporary !== undefined && basename(temporary).startsWith('miniflare-');
  let disposed: Promise<void> | undefined;
  return () =>
    (disposed ??= mf.dispose().then(async () => {
      if (owned) await rm(temporary, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    }));
}
