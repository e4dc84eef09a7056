// The local layers a worker can run in around one bundled naive worker (naive-originless-worker.ts), each on a free
// loopback port: bare workerd, Miniflare direct and through its entry worker, and `wrangler dev --local`.

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Log, LogLevel, Miniflare } from 'miniflare';
import { PROJECT_ROOT } from '../../../local/bundle.ts';
import { COMPATIBILITY_DATE, LOOPBACK } from '../../../local/direct-miniflare.ts';
import { freePort } from '../free-port.ts';
import { startDirectWorkers } from '../miniflare-direct.ts';

const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 3_000;
const BIN = join(PROJECT_ROOT, 'node_modules', '.bin');

export type LayerName = 'workerd' | 'Miniflare direct socket' | 'Miniflare entry' | 'wrangler dev';

/** stop() ends every process the layer started (the whole process group for workerd and wrangler), and its files. */
export interface Layer {
  name: LayerName;
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** False where caches.default has no backing (bare workerd: "No Cache was configured"). */
  hasCache: boolean;
  stop(): Promise<void>;
}

/**
 * `workerd serve` with one worker, its module embedded from a temporary folder: a generated capnp config, no Cache API.
 */
export async function startWorkerd(code: string): Promise<Layer> {
  const directory = await mkdtemp(join(tmpdir(), 'tiercache-layers-workerd-'));
  const port = await freePort();
  await writeFile(join(directory, 'worker.js'), code);
  await writeFile(join(directory, 'config.capnp'), capnpConfig(port));
  const child = spawnGroup(
    join(BIN, 'workerd'),
    ['serve', join(directory, 'config.capnp')],
    directory,
    process.env,
    directory,
  );
  return started('workerd', port, child, directory, false);
}

/** The worker on a workerd socket of its own, past Miniflare's entry worker: where tiercache runs. */
export async function startMiniflareDirect(code: string): Promise<Layer> {
  const workers = await startDirectWorkers([{ name: 'naive', code }]);
  const url = workers.urls.get('naive');
  if (!url) {
    await workers.stop();
    throw new Error('Miniflare gave the worker no direct socket');
  }
  return { name: 'Miniflare direct socket', url, hasCache: true, stop: workers.stop };
}

/** Through Miniflare's entry worker (its request logging, error pages and `cf` blob). */
export async function startMiniflareEntry(code: string): Promise<Layer> {
  const port = await freePort();
  const mf = new Miniflare({
    modules: true,
    script: code,
    compatibilityDate: COMPATIBILITY_DATE,
    host: LOOPBACK,
    port,
    cf: false,
    log: new Log(LogLevel.WARN),
  });
  const url = await mf.ready;
  return { name: 'Miniflare entry', url: url.origin, hasCache: true, stop: () => mf.dispose() };
}

/** `wrangler dev --local` over a generated wrangler.toml whose `main` is the bundle (no re-bundling). */
export async function startWranglerDev(code: string): Promise<Layer> {
  const directory = await mkdtemp(join(tmpdir(), 'tiercache-layers-wrangler-'));
  const project = join(directory, 'project');
  const port = await freePort();
  // The module in a folder of its own: wrangler watches it, and anything written beside it
  // (its logs, say) reloads the server in a loop.
  await mkdir(join(project, 'src'), { recursive: true });
  await writeFile(join(project, 'src', 'worker.js'), code);
  const toml = `name = "naive"\nmain = "src/worker.js"\ncompatibility_date = "${COMPATIBILITY_DATE}"\nno_bundle = true\n`;
  await writeFile(join(project, 'wrangler.toml'), toml);
  const args = [
    'dev',
    '--local',
    '--ip',
    LOOPBACK,
    '--port',
    String(port),
    '--inspector-port',
    String(await freePort()),
    '--show-interactive-dev-session=false',
  ];
  const env = {
    ...process.env,
    WRANGLER_SEND_METRICS: 'false',
    WRANGLER_LOG_PATH: join(directory, 'logs'),
    CI: 'true',
    NO_COLOR: '1',
  };
  const child = spawnGroup(join(BIN, 'wrangler'), args, project, env, directory);
  return started('wrangler dev', port, child, directory, true);
}

function capnpConfig(port: number): string {
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .naive) ],
  sockets = [ (name = "http", address = "${LOOPBACK}:${port}", http = (), service = "main") ],
);
const naive :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "${COMPATIBILITY_DATE}",
);
`;
}

/** Waits (bounded) until `GET /map/0` answers 200; on failure stops the child and says what it printed. */
async function started(
  name: LayerName,
  port: number,
  child: ChildProcess,
  directory: string,
  hasCache: boolean,
): Promise<Layer> {
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const url = `http://${LOOPBACK}:${port}`;
  const stop = async () => {
    await stopGroup(child);
    await rm(directory, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline && child.exitCode === null) {
    const status = await fetch(`${url}/map/0`, { signal: AbortSignal.timeout(2000) }).then(
      async (response) => {
        await response.arrayBuffer();
        return response.status;
      },
      () => 0,
    );
    if (status === 200) return { name, url, hasCache, stop };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await stop();
  throw new Error(
    `${name} did not answer 200 on ${url}/map/0 within ${READY_TIMEOUT_MS / 1000} s (exit code ${child.exitCode}); it printed:\n${output}`,
  );
}

/** Children not stopped yet, and the folders they use, for Ctrl-C while one is still starting. */
const live = new Map<ChildProcess, string>();

/** Stops every child started here and not yet stopped (bounded: SIGKILL after the grace period). */
export async function stopChildren(): Promise<void> {
  await Promise.all(
    [...live].map(async ([child, directory]) => {
      await stopGroup(child);
      await rm(directory, { recursive: true, force: true });
    }),
  );
}

/** Its own process group, so stopping it also ends the workerd processes it starts. */
function spawnGroup(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  directory: string,
): ChildProcess {
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  live.set(child, directory);
  child.once('exit', () => live.delete(child));
  return child;
}

/** SIGTERM to the child's group, SIGKILL after a grace period; resolves once the child has exited. */
async function stopGroup(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const exited = new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
  );
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-pid, name);
    } catch {
      // The group is gone already.
    }
  };
  signal('SIGTERM');
  const grace = setTimeout(() => signal('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(grace);
  // Grandchildren (wrangler's workerd) may outlive the leader: make sure the group is gone.
  signal('SIGKILL');
}
