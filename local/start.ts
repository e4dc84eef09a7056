// `npm start`: the whole CDN on this machine, settings from the environment (the configuration contract,
// plus PORT); without ORIGIN_URL, an S3 origin with a sample site too. Ctrl-C stops everything.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { CONFIG_NAMES, parseConfig, type RawConfig, SECRET_CONFIG_NAMES } from '../shared/config/config.ts';
import { ConfigError } from '../shared/http/errors.ts';
import type { SeededAsset } from './assets.ts';
import { defaultFreshnessLine } from './default-freshness.ts';
import { embeddedOriginRefusal, useEmbeddedOrigin } from './embedded-settings.ts';
import { noteStack, operatorLines, withOperatorSettings } from './operator.ts';
import type { S3Origin } from './origin.ts';
import { checkOrigin } from './origin-check.ts';
import type { Stack } from './workers.ts';

const DEFAULT_PORT = 8787;
const SECRET_NAMES: ReadonlySet<string> = SECRET_CONFIG_NAMES;

/** Thrown inside startup when a signal arrived meanwhile: stop quietly, not as a failure. */
class Interrupted extends Error {}

const stops: (() => Promise<void>)[] = [];
let phase: 'starting' | 'running' | 'stopping' = 'starting';
let interrupted = false;

process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
// Miniflare adds SIGINT/SIGTERM listeners that kill workerd and exit(130) on the spot, before
// the origin is closed and its directory removed: this CLI keeps signal handling to itself.
// (A microtask runs before any signal can be delivered, and Miniflare's 'exit' hook stays.)
process.on('newListener', (event: string | symbol, listener: (...args: unknown[]) => void) => {
  if ((event === 'SIGINT' || event === 'SIGTERM') && listener !== onSignal)
    queueMicrotask(() => process.off(event, listener));
});
await main();

async function main(): Promise<void> {
  try {
    const port = parsePort(process.env.PORT);
    await checkPortFree(port); // before anything starts, and without workerd's crash report
    const config = configFromEnv(process.env);
    const r2Tier = r2TierFromEnv(process.env.R2_TIER);
    const refusal = config.ORIGIN_URL === undefined ? embeddedOriginRefusal(config) : undefined;
    if (refusal !== undefined) throw new ConfigError(refusal); // before an origin or a worker starts
    // Loaded once the signal handlers are in place: importing Miniflare alone takes ~0.4 s.
    const [{ startS3Origin }, { seedSampleAssets }, { startWorkers }] = await checkpoint(
      Promise.all([import('./origin.ts'), import('./assets.ts'), import('./workers.ts')]),
    );
    const notes: string[] = [];
    let origin: S3Origin | undefined;
    if (config.ORIGIN_URL === undefined) {
      origin = track(await startS3Origin(), (started) => started.close());
      notes.push(...useEmbeddedOrigin(config, origin));
    }
    config.SHIELD_TOKEN ??= randomUUID();
    const tokens = withOperatorSettings(config, process.env);
    // Every setting that cannot work is reported here, by name, at once, not per request.
    notes.push(defaultFreshnessLine(parseConfig(config)));
    if (r2Tier)
      notes.push("the R2 tier is on (R2_TIER=on): Miniflare's R2 behind the shield, kept until the stack stops");
    // Seeding (64 MiB) and starting workerd take about as long as each other: run them together.
    const [seeding, starting] = await Promise.allSettled([
      origin ? seedSampleAssets(origin) : Promise.resolve([]),
      startWorkers({ config, port, front: true, secondLocation: true, r2Tier }),
    ]);
    if (starting.status === 'rejected') throw starting.reason;
    const stack = track(starting.value, (started) => started.dispose());
    if (seeding.status === 'rejected') throw seeding.reason;
    const seeded: SeededAsset[] = seeding.value;
    const { madeUp, ...noted } = tokens;
    const locations = stack.secondLocationUrl === undefined ? {} : { locations: [stack.secondLocationUrl] };
    const note = { url: stack.url, ...noted, ...locations };
    track(await noteStack(note), (forget) => forget());
    notes.unshift(await checkpoint(checkOrigin(stack.url)));
    phase = 'running';
    console.log(
      report(
        config,
        origin,
        seeded,
        stack,
        [...notes, ...operatorLines(note, madeUp, config.LOG_SAMPLE === '1')],
        performance.now(),
      ),
    ); // since the process began
  } catch (error) {
    if (error instanceof Interrupted) return stop(0);
    console.error(`tiercache: cannot start: ${describe(error)}`);
    await stop(1);
  }
}

function onSignal(): void {
  if (phase === 'running') void stop(0);
  else if (phase === 'starting')
    interrupted = true; // startup notices at its next step and stops
  else process.exit(130); // a second Ctrl-C while stopping: give up waiting
}

/** Stops what was started, newest first, then exits. */
async function stop(code: number): Promise<void> {
  phase = 'stopping';
  for (const close of stops.reverse()) {
    await close().catch((error: unknown) => console.error(`tiercache: while stopping: ${describe(error)}`));
  }
  process.exit(code);
}

function track<T>(resource: T, close: (resource: T) => Promise<void>): T {
  stops.push(() => close(resource));
  if (interrupted) throw new Interrupted();
  return resource;
}

async function checkpoint<T>(step: Promise<T>): Promise<T> {
  const value = await step;
  if (interrupted) throw new Interrupted();
  return value;
}

function configFromEnv(env: NodeJS.ProcessEnv): RawConfig {
  const config: RawConfig = {};
  for (const name of CONFIG_NAMES) {
    const value = env[name]?.trim();
    if (value) config[name] = value;
  }
  return config;
}

function report(
  config: RawConfig,
  origin: S3Origin | undefined,
  seeded: SeededAsset[],
  stack: Stack,
  notes: string[],
  ms: number,
): string {
  const keyWidth = Math.max(0, ...seeded.map((asset) => asset.key.length));
  const settings = CONFIG_NAMES.filter((name) => config[name] !== undefined && name !== 'ORIGIN_URL')
    .map((name) => `${name}=${SECRET_NAMES.has(name) ? '(set)' : config[name]}`)
    .join(' ');
  const example = seeded.some((asset) => asset.key === 'index.html') ? 'index.html' : '<path>';
  return [
    `tiercache local stack ready in ${(ms / 1000).toFixed(2)} s`,
    '',
    origin
      ? `  origin  ${origin.url}  embedded S3 (s3rver), bucket "${origin.bucket}", seeded with:`
      : `  origin  ${config.ORIGIN_URL}`,
    ...seeded.map(
      (asset) =>
        `            ${asset.key.padEnd(keyWidth)}  ${formatSize(asset.size).padStart(9)}  ${asset.contentType}`,
    ),
    `  shield  ${stack.shieldUrl}  refuses requests without the edge's credential (SHIELD_TOKEN)`,
    `  edge    ${stack.url}  <- send requests here (the local front: malformed requests get a 4xx here, as at Cloudflare's edge)`,
    ...(stack.secondLocationUrl === undefined
      ? []
      : [`  edge 2  ${stack.secondLocationUrl}  a second location: its own cache, the same shield (not its purges)`]),
    `  config  ${settings}`,
    ...notes.map((note) => (note.startsWith('  ') ? note : `  note    ${note}`)),
    '',
    origin ? 'Try it (twice: the first is a miss filled through the shield, the second an edge hit):' : 'Try it:',
    `  curl -i ${stack.url}/${example}`,
    ...(origin
      ? [
          `  curl -i -H 'Range: bytes=0-99' ${stack.url}/video/big.bin`,
          `  open ${stack.url}/index.html in a browser: the sample video plays through both tiers, read as two 8 MiB slices`,
        ]
      : []),
    '',
    'Ctrl-C stops everything.',
  ].join('\n');
}

/** R2_TIER: `on` binds the shield's R2 tier a bucket of Miniflare's (shield/r2/README.md); unset or `off`, none. */
function r2TierFromEnv(value: string | undefined): boolean {
  const given = value?.trim() ?? '';
  if (given === '' || given === 'off') return false;
  if (given === 'on') return true;
  throw new ConfigError(`R2_TIER must be on or off, got ${JSON.stringify(given)}`);
}

function parsePort(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return DEFAULT_PORT;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be an integer 0..65535, got ${JSON.stringify(value)}`);
  return port;
}

function checkPortFree(port: number): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', () => reject(new Error(`127.0.0.1:${port} is already in use (set PORT to use another port)`)));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function describe(error: unknown): string {
  if (error instanceof ConfigError && error.problems.length > 1)
    return [`${error.problems.length} settings cannot work:`, ...error.problems.map((problem) => `  ${problem}`)].join(
      '\n',
    );
  return error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error);
}
