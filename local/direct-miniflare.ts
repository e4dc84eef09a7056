// One Miniflare 4 driving workerd, each worker served on a workerd socket of its own rather than through
// Miniflare's entry worker: what `npm start` (workers.ts) and the bench (bench/setup/miniflare-direct.ts) start.
import { accessSync, constants, rmSync, statSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Log, LogLevel, Miniflare, type WorkerOptions } from 'miniflare';
import deployment from '../tiercache.config.ts';
import { storeRoot } from './store-root.ts';

/** The deployed workers' (tiercache.config.ts). */
export const COMPATIBILITY_DATE = deployment.compatibility.date;
export const LOOPBACK = '127.0.0.1';
/** How a workerd address names a Unix socket. */
const UNIX_PREFIX = 'unix:';

export interface DirectMiniflare {
  mf: Miniflare;
  /** Worker name → the URL of its own TCP socket, for every worker given one (directSocket). */
  urls: Map<string, URL>;
  /** Worker name → the path of its own Unix socket, for every worker given one (unixSocket). */
  paths: Map<string, string>;
  /** Where Miniflare stores the caches, KV and Durable Objects of this workerd (store-root.ts says where and why). */
  storeDir: string;
  /** Disposes of Miniflare and waits until its store directory (the caches, KV, Durable Objects) is gone. */
  stop(): Promise<void>;
}

/** An ES-module worker at the project's compatibility date; `scriptPath` names the bundle in stack traces. */
export function moduleWorker(name: string, script: string, scriptPath?: string): WorkerOptions {
  return {
    name,
    modules: true,
    script,
    ...(scriptPath !== undefined ? { scriptPath } : {}),
    compatibilityDate: COMPATIBILITY_DATE,
  };
}

/**
 * A workerd socket of the worker's own on loopback; 0 (the default) = any free port. Not Miniflare's
 * entry worker: the entry (request logging, its error pages, the cf blob) costs ~3× per request
 * (bench/layers), and production has no such layer either.
 */
export function directSocket(port = 0): Pick<WorkerOptions, 'unsafeDirectSockets'> {
  return { unsafeDirectSockets: [{ host: LOOPBACK, port }] };
}

/**
 * A workerd socket of the worker's own on a Unix socket, listening at the `path` returned
 * (`${base}:0`: Miniflare writes a socket's address as `host:port`, and workerd takes all after
 * `unix:` as the path). No TCP client can reach it; only who may enter its directory can.
 */
export function unixSocket(base: string): { options: Pick<WorkerOptions, 'unsafeDirectSockets'>; path: string } {
  return { options: { unsafeDirectSockets: [{ host: `${UNIX_PREFIX}${base}`, port: 0 }] }, path: `${base}:0` };
}

export interface DirectOptions {
  inspectorPort?: number;
  /**
   * Miniflare's entry socket on this Unix socket instead of a loopback port (workerd-entry-unix.sh):
   * nothing then reaches workerd's own HTTP parser over TCP. Miniflare's Node API over the entry
   * (dispatchFetch, getCaches, getKVNamespace) does not work then; the workers' own sockets do.
   */
  entrySocket?: string;
}

/** Starts `workers` in one workerd and waits until each direct socket answers; nothing is left running on failure. */
export async function startDirectMiniflare(
  workers: WorkerOptions[],
  options: DirectOptions = {},
): Promise<DirectMiniflare> {
  // What Miniflare stores (caches, KV, Durable Objects) goes here, in memory where the machine allows (store-root.ts).
  const storeDir = await mkdtemp(join(storeRoot(process.env, writableDirectory, tmpdir()), 'tiercache-store-'));
  keepUntilExit(storeDir);
  const restoreEnv = options.entrySocket === undefined ? () => undefined : entryOnUnixSocket(options.entrySocket);
  const mf = new Miniflare({
    defaultPersistRoot: storeDir,
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
  const stop = disposer(mf, storeDir);
  try {
    await mf.ready.finally(restoreEnv);
    const urls = new Map<string, URL>();
    const paths = new Map<string, string>();
    for (const worker of workers) {
      const socket = worker.unsafeDirectSockets?.[0];
      if (worker.name === undefined || socket === undefined) continue;
      if (!socket.host?.startsWith(UNIX_PREFIX)) {
        urls.set(worker.name, await mf.unsafeGetDirectURL(worker.name));
        continue;
      }
      const path = `${socket.host.slice(UNIX_PREFIX.length)}:${socket.port ?? 0}`;
      // Where unixSocket says it listens, or a clear failure if Miniflare ever spells addresses otherwise.
      if (
        !(await stat(path).then(
          (found) => found.isSocket(),
          () => false,
        ))
      )
        throw new Error(`expected workerd's socket for ${worker.name} at ${path}, found none`);
      paths.set(worker.name, path);
    }
    return { mf, urls, paths, storeDir, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

/** The entry socket moved to `path` for the workerd Miniflare is about to start; returns what undoes the setting. */
function entryOnUnixSocket(path: string): () => void {
  const saved = {
    MINIFLARE_WORKERD_PATH: process.env.MINIFLARE_WORKERD_PATH,
    TIERCACHE_WORKERD: process.env.TIERCACHE_WORKERD,
    TIERCACHE_ENTRY_SOCKET: process.env.TIERCACHE_ENTRY_SOCKET,
  };
  // The workerd binary Miniflare itself would start (its own dependency, resolved from it).
  const workerd = createRequire(createRequire(import.meta.url).resolve('miniflare'))('workerd') as { default: string };
  process.env.TIERCACHE_WORKERD = workerd.default;
  process.env.TIERCACHE_ENTRY_SOCKET = path;
  process.env.MINIFLARE_WORKERD_PATH = fileURLToPath(new URL('./workerd-entry-unix.sh', import.meta.url));
  return () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

/** Store directories not yet removed: kept in memory, none may outlive this process, stopped or not. */
const liveStores = new Set<string>();

function keepUntilExit(storeDir: string): void {
  if (liveStores.size === 0) process.once('exit', removeLiveStores);
  liveStores.add(storeDir);
}

function removeLiveStores(): void {
  for (const storeDir of liveStores) rmSync(storeDir, { recursive: true, force: true });
  liveStores.clear();
}

/** A directory this process may write in. */
function writableDirectory(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Miniflare's dispose() leaves the store directory (defaultPersistRoot: persisted, as far as it knows) in place:
 * remove it once workerd is gone, before the process may exit.
 */
function disposer(mf: Miniflare, storeDir: string): () => Promise<void> {
  let disposed: Promise<void> | undefined;
  return () =>
    (disposed ??= mf.dispose().then(async () => {
      await rm(storeDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
      liveStores.delete(storeDir);
      if (liveStores.size === 0) process.off('exit', removeLiveStores);
    }));
}
