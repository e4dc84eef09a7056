// `npm run deploy`, as a function of its arguments and context, answering the exit code
// (docs/deploying.md). From the settings (tiercache.config.ts) it writes both workers' wrangler
// configurations (wrangler-config.ts), then, in order: checks the login, finds or creates the
// purge list's KV namespace, gathers the secrets each worker lacks, deploys the shield (the
// edge's bindings name it), deploys the edge, and checks the edge's health. `--dry-run` writes
// the configurations, builds both workers with `wrangler deploy --dry-run` and prints that plan:
// nothing in it needs the network.

import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CliFailure, EXIT_USAGE, failureExit } from './command.ts';
import { DEPLOY_USAGE, parseDeployArgs } from './deploy-args.ts';
import { checkHealth, type HealthContext, healthUrl } from './deploy-health.ts';
import { secretsFor } from './deploy-secrets.ts';
import { type DeploySettings, routeHost, settingsProblems, settingsWarnings } from './deploy-settings.ts';
import { buildWorker, checkLogin, deployWorker, presentSecrets, purgesNamespaceId } from './deploy-steps.ts';
import { obtainSecrets } from './obtain-secrets.ts';
import type { SecretInput } from './secret-input.ts';
import {
  DEPLOY_DIR,
  DRY_RUN_KV_ID,
  shieldPlacement,
  type WranglerConfigs,
  wranglerConfigs,
} from './wrangler-config.ts';
import type { Wrangler } from './wrangler-runner.ts';

export interface DeployContext extends HealthContext {
  /** The project root: where the settings are and the configurations are written. */
  root: string;
  env: Readonly<Record<string, string | undefined>>;
  err(text: string): void;
  wrangler: Wrangler;
  input: SecretInput;
}

/** The settings file when none is named. */
export const SETTINGS_FILE = 'tiercache.config.ts';

/** Where each worker's configuration is written, from the root. */
export const CONFIG_PATHS = {
  shield: `${DEPLOY_DIR}/shield.wrangler.json`,
  edge: `${DEPLOY_DIR}/edge.wrangler.json`,
} as const;

export async function runDeploy(argv: readonly string[], context: DeployContext): Promise<number> {
  try {
    const args = parseDeployArgs(argv);
    if (args.help) {
      context.out(DEPLOY_USAGE);
      return 0;
    }
    const settings = await loadSettings(resolve(context.root, args.settingsPath ?? SETTINGS_FILE));
    for (const warning of settingsWarnings(settings)) context.err(`WARNING: ${warning}`);
    const problems = settingsProblems(settings);
    const health = healthUrl(settings, args.healthUrl);
    if (args.dryRun) return await dryRun(settings, problems, health, context);
    if (problems.length > 0)
      throw new CliFailure(
        `not deployed; in the settings:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`,
        EXIT_USAGE,
      );
    if (health === undefined)
      throw new CliFailure('not deployed: no route to check the deployment at; give --health-url', EXIT_USAGE);
    await deploy(settings, health, context);
    return 0;
  } catch (error) {
    return failureExit(error, context.err);
  }
}

async function deploy(settings: DeploySettings, health: URL, context: DeployContext): Promise<void> {
  const { wrangler, out } = context;
  out(`1. Login: ${await checkLogin(wrangler)}`);
  // Written first with no namespace yet: the KV commands read the account from them.
  await writeConfigs(wranglerConfigs(settings, DRY_RUN_KV_ID), context.root);
  const purges = await purgesNamespaceId(wrangler, settings.purgesNamespace, CONFIG_PATHS.shield);
  out(
    `2. KV namespace ${JSON.stringify(settings.purgesNamespace)}: ${purges.created ? 'created' : 'found'} (${purges.id})`,
  );
  await writeConfigs(wranglerConfigs(settings, purges.id), context.root);
  out('3. Secrets each worker lacks:');
  const present = {
    shield: await presentSecrets(wrangler, CONFIG_PATHS.shield),
    edge: await presentSecrets(wrangler, CONFIG_PATHS.edge),
  };
  const secrets = await obtainSecrets(secretsFor(settings.vars.ORIGIN_KIND), present, {
    env: context.env,
    input: context.input,
    out,
  });
  out(`4. Deploying ${settings.shield.name} (no public route)`);
  await deployWorker(wrangler, CONFIG_PATHS.shield, secrets.shield);
  out(`5. Deploying ${settings.edge.name} on ${settings.edge.routes.map(routeHost).join(', ')}`);
  await deployWorker(wrangler, CONFIG_PATHS.edge, secrets.edge);
  out(`6. Health: ${health.href}`);
  out(await checkHealth(health, context));
  out('Deployed.');
}

async function dryRun(
  settings: DeploySettings,
  problems: readonly string[],
  health: URL | undefined,
  context: DeployContext,
): Promise<number> {
  await writeConfigs(wranglerConfigs(settings, DRY_RUN_KV_ID), context.root);
  // Absolute: wrangler puts a bundle relative to the configuration's folder, its notes relative to where it runs.
  await buildWorker(context.wrangler, CONFIG_PATHS.shield, join(context.root, DEPLOY_DIR, 'shield'));
  await buildWorker(context.wrangler, CONFIG_PATHS.edge, join(context.root, DEPLOY_DIR, 'edge'));
  context.out(dryRunPlan(settings, health));
  if (problems.length > 0)
    context.out(`Before a real deploy, in the settings:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
  return 0;
}

/** What a deploy of `settings` would do, step by step. */
export function dryRunPlan(settings: DeploySettings, health: URL | undefined): string {
  const secrets = secretsFor(settings.vars.ORIGIN_KIND);
  const on = (worker: 'shield' | 'edge'): string =>
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
    `Dry run: both workers built (${CONFIG_PATHS.shield}, ${CONFIG_PATHS.edge}); nothing was sent to Cloudflare. A deploy would:`,
    '  1. check the login (wrangler whoami)',
    `  2. find or create the KV namespace ${JSON.stringify(settings.purgesNamespace)}`,
    `  3. put the secrets a worker lacks (asked for, or read from the environment; SHIELD_TOKEN made here): shield: ${on('shield')}; edge: ${on('edge')}`,
    `  4. deploy ${settings.shield.name}: no public route, placed ${where}${settings.shield.workersCache ? ', Workers Cache in front of its slice answers' : ''}`,
    `  5. deploy ${settings.edge.name} on ${settings.edge.routes.map((route) => `${route.pattern}${'custom_domain' in route ? ' (custom domain)' : ' (route)'}`).join(', ') || 'no route'}${settings.edge.workersDev ? ' and *.workers.dev (NOT CACHED there)' : ''}`,
    `  6. check ${health?.href ?? '(no route: give --health-url)'}`,
  ].join('\n');
}

async function writeConfigs(configs: WranglerConfigs, root: string): Promise<void> {
  await mkdir(join(root, DEPLOY_DIR), { recursive: true });
  // Generated: edit tiercache.config.ts, not these.
  await writeFile(join(root, CONFIG_PATHS.shield), `${JSON.stringify(configs.shield, null, 2)}\n`);
  await writeFile(join(root, CONFIG_PATHS.edge), `${JSON.stringify(configs.edge, null, 2)}\n`);
}

async function loadSettings(path: string): Promise<DeploySettings> {
  let loaded: { default?: DeploySettings };
  try {
    loaded = (await import(pathToFileURL(path).href)) as { default?: DeploySettings };
  } catch (error) {
    throw new CliFailure(
      `could not read the settings ${path}: ${error instanceof Error ? error.message : String(error)}`,
      EXIT_USAGE,
    );
  }
  if (loaded.default?.edge === undefined || loaded.default.shield === undefined)
    throw new CliFailure(
      `expected ${path} to export default the deployment's settings (tiercache.config.ts shows them)`,
      EXIT_USAGE,
    );
  return loaded.default;
}
