// `npm run deploy` (docs/deploying.md): both workers from the settings, step by step, each step one wrangler
// command (or the health check at the end); `--dry-run` builds both and prints the plan, offline.

import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliFailure, EXIT_USAGE, failureExit, usageError } from './cli-failure.ts';
import { isEntry, processContext } from './command.ts';
import { staleMessage, writeConfigs } from './config.ts';
import { obtainSecrets, processSecretInput, type SecretSources, secretsFor } from './deploy-secrets.ts';
import {
  type DeploySettings,
  healthUrl,
  routeHost,
  settingsProblems,
  settingsWarnings,
  shieldCache,
  shieldPlacement,
  type Worker,
} from './deploy-settings.ts';
import { parseFlags, single } from './flags.ts';
import { loadSettings, recordNamespaceId, SETTINGS_FILE } from './settings-file.ts';
import {
  buildWorker,
  checkLogin,
  deployWorker,
  presentSecrets,
  purgesNamespaceId,
  spawnedWrangler,
  type Wrangler,
} from './wrangler-commands.ts';
import { CONFIG_FILES, staleConfigFiles } from './wrangler-config.ts';

export const DEPLOY_USAGE = `Usage: npm run deploy [-- --dry-run] [-- --settings FILE] [-- --health-url URL]

Deploys both workers with their committed configuration (wrangler.jsonc, shield/wrangler.jsonc,
written from tiercache.config.ts by \`npm run config\`): checks \`wrangler whoami\`, finds or
creates the KV namespace (its id written into the settings and both files), asks for each secret
a worker lacks (never echoed; or read from the environment variable of the same name), deploys
the shield, then the edge, then checks the edge's /__tiercache/health.

  --dry-run          build both workers (wrangler deploy --dry-run) and print what a deploy
                     would do; nothing is sent to Cloudflare; fails when the configuration
                     files are not what the settings say
  --settings FILE    the settings file (default: tiercache.config.ts)
  --health-url URL   where to check the deployment (default: https://<first route's host>/__tiercache/health)
  --help             this text`;

/** Two minutes at most: ATTEMPTS asks, RETRY_MS apart (a new custom domain's certificate and DNS take a while). */
export const HEALTH_ATTEMPTS = 24;
export const HEALTH_RETRY_MS = 5_000;
const HEALTH_TIMEOUT_MS = 10_000;
/** Where the dry run's bundles go, from the project root. */
const DRY_RUN_OUT = '.build/deploy';

export interface DeployArgs {
  help: boolean;
  dryRun: boolean;
  settingsPath: string | undefined;
  healthUrl: URL | undefined;
}

export interface DeployContext extends SecretSources {
  /** The project root: where the settings are and the configurations are written. */
  root: string;
  err(text: string): void;
  wrangler: Wrangler;
  fetch: typeof fetch;
  sleep(ms: number): Promise<void>;
}

/** The command, as a function of its arguments and context, answering the exit code. */
export async function runDeploy(argv: readonly string[], context: DeployContext): Promise<number> {
  try {
    const args = parseDeployArgs(argv);
    if (args.help) {
      context.out(DEPLOY_USAGE);
      return 0;
    }
    const settingsPath = resolve(context.root, args.settingsPath ?? SETTINGS_FILE);
    const settings = await loadSettings(settingsPath);
    for (const warning of settingsWarnings(settings)) context.err(`WARNING: ${warning}`);
    const problems = settingsProblems(settings);
    const health = healthUrl(settings, args.healthUrl);
    if (args.dryRun) return await dryRun(settings, problems, health, context);
    if (problems.length > 0) throw new CliFailure(`not deployed; in the settings:\n${bullets(problems)}`, EXIT_USAGE);
    if (health === undefined)
      throw new CliFailure('not deployed: no route to check the deployment at; give --health-url', EXIT_USAGE);
    await deploy(settings, settingsPath, health, context);
    return 0;
  } catch (error) {
    return failureExit(error, context.err);
  }
}

/** --dry-run, --settings FILE, --health-url URL (when the edge's route does not serve /__tiercache/health). */
export function parseDeployArgs(argv: readonly string[]): DeployArgs {
  const flags = parseFlags(
    argv,
    {
      'dry-run': { type: 'boolean' },
      settings: { type: 'string' },
      'health-url': { type: 'string' },
      help: { type: 'boolean' },
    },
    DEPLOY_USAGE,
  );
  const health = single(flags, 'health-url', DEPLOY_USAGE);
  if (health !== undefined && !URL.canParse(health))
    throw usageError(`--health-url: expected an absolute URL, got ${JSON.stringify(health)}`, DEPLOY_USAGE);
  return {
    help: flags.booleans.help === true,
    dryRun: flags.booleans['dry-run'] === true,
    settingsPath: single(flags, 'settings', DEPLOY_USAGE),
    healthUrl: health === undefined ? undefined : new URL(health),
  };
}

/** What a deploy of `settings` would do, step by step. */
export function dryRunPlan(settings: DeploySettings, health: URL | undefined): string {
  const secrets = secretsFor(settings.vars.ORIGIN_KIND);
  const on = (worker: Worker): string =>
    secrets
      .filter((spec) => spec.workers.includes(worker))
      .map((spec) => spec.name)
      .join(', ');
  const placement = shieldPlacement(settings);
  const where =
    'hostname' in placement
      ? `next to ${placement.hostname}`
      : 'region' in placement
        ? `in ${placement.region}`
        : 'host' in placement
          ? `next to ${placement.host}`
          : 'by Smart Placement';
  return [
    `Dry run: both workers built (${CONFIG_FILES.shield}, ${CONFIG_FILES.edge}); nothing was sent to Cloudflare. A deploy would:`,
    '  1. check the login (wrangler whoami)',
    `  2. find or create the KV namespace ${JSON.stringify(settings.purgesNamespace)}${settings.purgesNamespaceId ? '' : ' and write its id into the settings and both files'}`,
    `  3. put the secrets a worker lacks (asked for, or read from the environment; SHIELD_TOKEN made here): shield: ${on('shield')}; edge: ${on('edge')}`,
    `  4. deploy ${settings.shield.name}: ${shieldCache(settings) === 'cache-api' ? `on ${settings.shield.hostname} (custom domain), its Cache API` : 'no public route, Workers Cache in front of its slice answers'}, placed ${where}`,
    `  5. deploy ${settings.edge.name} on ${settings.edge.routes.map((route) => `${route.pattern}${'custom_domain' in route ? ' (custom domain)' : ' (route)'}`).join(', ') || 'no route'}${settings.edge.workersDev ? ' and *.workers.dev (NOT CACHED there)' : ''}`,
    `  6. check ${health?.href ?? '(no route: give --health-url)'}`,
  ].join('\n');
}

async function deploy(
  settings: DeploySettings,
  settingsPath: string,
  health: URL,
  context: DeployContext,
): Promise<void> {
  const { wrangler, out } = context;
  out(`1. Login: ${await checkLogin(wrangler)}`);
  // Written first: the KV commands read the account from them.
  const changed = new Set(await writeConfigs(settings, context.root));
  const purges = await purgesNamespaceId(wrangler, settings.purgesNamespace, CONFIG_FILES.edge);
  out(
    `2. KV namespace ${JSON.stringify(settings.purgesNamespace)}: ${purges.created ? 'created' : 'found'} (${purges.id})`,
  );
  let deployed = settings;
  if (purges.id !== settings.purgesNamespaceId) {
    // Once, in the settings: both files bind it, and `npx wrangler deploy` deploys with it from then on.
    await recordNamespaceId(settingsPath, purges.id);
    deployed = { ...settings, purgesNamespaceId: purges.id };
    changed.add(relative(context.root, settingsPath));
    for (const file of await writeConfigs(deployed, context.root)) changed.add(file);
    out(`  its id written into ${[...changed].join(', ')}`);
  }
  out('3. Secrets each worker lacks:');
  const present = {
    shield: await presentSecrets(wrangler, CONFIG_FILES.shield),
    edge: await presentSecrets(wrangler, CONFIG_FILES.edge),
  };
  const secrets = await obtainSecrets(secretsFor(settings.vars.ORIGIN_KIND), present, context);
  // The shield first: the edge's bindings name it.
  const shieldWhere = shieldCache(deployed) === 'cache-api' ? `on ${deployed.shield.hostname}` : '(no public route)';
  out(`4. Deploying ${settings.shield.name} ${shieldWhere}`);
  await deployWorker(wrangler, CONFIG_FILES.shield, secrets.shield);
  out(`5. Deploying ${settings.edge.name} on ${settings.edge.routes.map(routeHost).join(', ')}`);
  await deployWorker(wrangler, CONFIG_FILES.edge, secrets.edge);
  out(`6. Health: ${health.href}`);
  out(await checkHealth(health, context));
  out(changed.size > 0 ? `Deployed. Commit what changed: ${[...changed].join(', ')}.` : 'Deployed.');
}

async function dryRun(
  settings: DeploySettings,
  problems: readonly string[],
  health: URL | undefined,
  context: DeployContext,
): Promise<number> {
  // The committed files, as they are: a dry run never rewrites them, so a stale one fails here (and in npm test).
  const stale = await staleConfigFiles(settings, context.root);
  if (stale.length > 0) throw new CliFailure(staleMessage(stale), EXIT_USAGE);
  // Absolute: wrangler puts a bundle relative to the configuration's folder, its notes relative to where it runs.
  for (const worker of ['shield', 'edge'] as const)
    await buildWorker(context.wrangler, CONFIG_FILES[worker], join(context.root, DRY_RUN_OUT, worker));
  context.out(dryRunPlan(settings, health));
  if (problems.length > 0) context.out(`Before a real deploy, in the settings:\n${bullets(problems)}`);
  return 0;
}

function bullets(lines: readonly string[]): string {
  return lines.map((line) => `  - ${line}`).join('\n');
}

/** Asks `url` until it answers 200: its text says how the edge, the shield and the origin are (worker/health.ts). */
async function checkHealth(url: URL, context: DeployContext): Promise<string> {
  let last = 'no answer';
  for (let attempt = 1; attempt <= HEALTH_ATTEMPTS; attempt++) {
    try {
      const response = await context.fetch(url, {
        signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS),
        headers: { accept: 'application/json' },
      });
      const text = await response.text();
      if (response.status === 200) return text;
      last = `${response.status} ${text}`.trim();
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    if (attempt < HEALTH_ATTEMPTS) {
      context.out(
        `  ${url.href}: ${last.split('\n', 1)[0]}; asking again in ${HEALTH_RETRY_MS / 1000} s (${attempt}/${HEALTH_ATTEMPTS})`,
      );
      await context.sleep(HEALTH_RETRY_MS);
    }
  }
  throw new CliFailure(`the deployment does not answer healthy at ${url.href}: ${last}`);
}

if (isEntry(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const raw = (stream: NodeJS.WriteStream) => (text: string) => void stream.write(text);
  process.exitCode = await runDeploy(process.argv.slice(2), {
    ...processContext(),
    root,
    // As it comes: wrangler's own output, and a question waiting on the same line for its answer.
    wrangler: spawnedWrangler(root, process.env, raw(process.stdout), raw(process.stderr)),
    input: processSecretInput(raw(process.stderr)),
    fetch,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  });
}
