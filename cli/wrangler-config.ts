// What each worker is deployed with: the settings tiercache.config.ts writes once, each worker's wrangler
// configuration written from them (nothing kept in step by hand), and the secrets put beside it.

import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { RawConfig } from '../shared/config/config.ts';
import { HEALTH_PATH } from '../shared/request/reserved-paths.ts';
import { type CliContext, CliFailure } from './command.ts';
import { configProblems } from './config-check.ts';
import { OPTIONAL_SECRETS, type OptionalSecretName } from './optional-secrets.ts';

/** Settings that are secrets are put with `wrangler secret`, never written here (SECRETS). */
type SecretName = 'S3_ACCESS_KEY_ID' | 'S3_SECRET_ACCESS_KEY' | 'SHIELD_TOKEN' | OptionalSecretName;

/** A Workers route (`example.com/cdn/*` on a zone) or a custom domain (`cdn.example.com`, the Worker is its origin). */
export type EdgeRoute =
  | { pattern: string; custom_domain: true }
  | { pattern: string; zone_name: string }
  | { pattern: string; zone_id: string };

/** Placement hints (developers.cloudflare.com/workers/configuration/placement/). */
export type Placement =
  | { mode: 'smart' }
  | { mode: 'targeted'; hostname: string }
  | { mode: 'targeted'; host: string }
  | { mode: 'targeted'; region: string };

/** A deployment as tiercache.config.ts writes it: the workers' names, where the edge is reached, the shield's place. */
export interface DeploySettings {
  /** The account to deploy to; absent: the one `wrangler whoami` shows (or CLOUDFLARE_ACCOUNT_ID). */
  accountId?: string;
  edge: {
    name: string;
    /** Where clients reach the CDN: at least one route or custom domain. */
    routes: EdgeRoute[];
    /** The `*.workers.dev` address: the Cache API does nothing there (docs/deploying.md). */
    workersDev: boolean;
    /** Where `npm run deploy` checks the deployment; absent: `https://<first route's host>/__tiercache/health`. */
    healthUrl?: string;
  };
  shield: {
    name: string;
    /** Where the shield runs; absent: next to ORIGIN_URL's host (`targeted`, by hostname). */
    placement?: Placement;
    /** Workers Cache in front of the shield's slice answers (docs/deploying.md "What each cache holds"). */
    workersCache: boolean;
  };
  /** The KV namespace both workers keep the purge list in, by title (found or created by `npm run deploy`). */
  purgesNamespace: string;
  /** The Workers Analytics Engine dataset both workers write a data point per request to. */
  analyticsDataset: string;
  /** The workers' runtime: compatibility date and flags, for both and for the local stack. */
  compatibility: { date: string; flags: readonly string[] };
  /** The settings both workers read (docs/configuration.md), each once. */
  vars: Omit<RawConfig, SecretName>;
}

/** The example domain the settings file ships with: deploying it would claim a hostname nobody owns. */
export const EXAMPLE_DOMAIN = 'cdn.example.com';

/** What stops a deployment of `settings`, as sentences; none for a deployable one. */
export function settingsProblems(settings: DeploySettings): string[] {
  const problems: string[] = [];
  const { edge, shield } = settings;
  if (edge.routes.length === 0 && !edge.workersDev)
    problems.push('edge.routes is empty: give the edge a custom domain or a route, or clients cannot reach it');
  for (const route of edge.routes) {
    if (routeHost(route) === EXAMPLE_DOMAIN)
      problems.push(
        `edge.routes names ${EXAMPLE_DOMAIN}: set the hostname clients will use, on a zone of your account`,
      );
  }
  if (edge.name === shield.name)
    problems.push(`edge.name and shield.name are both ${JSON.stringify(edge.name)}: the two workers need two names`);
  if (settings.vars.ORIGIN_URL === undefined && settings.vars.ORIGIN_KIND === 'http')
    problems.push('vars.ORIGIN_URL is not set: an http origin needs its URL');
  return [...problems, ...configProblems(settings.vars)];
}

/** Where the deployment is checked: --health-url, the settings' healthUrl, or the first route's host. */
export function healthUrl(settings: DeploySettings, given: URL | undefined): URL | undefined {
  if (given !== undefined) return given;
  if (settings.edge.healthUrl !== undefined) return new URL(settings.edge.healthUrl);
  const first = settings.edge.routes[0];
  return first === undefined ? undefined : new URL(HEALTH_PATH, `https://${routeHost(first)}`);
}

/** The host a route serves: a custom domain's name, or a route pattern's host part. */
export function routeHost(route: EdgeRoute): string {
  const host = route.pattern.replace(/^https?:\/\//, '').split('/', 1)[0] ?? '';
  return host.replace(/^\*\.?/, '');
}

/** Warnings that do not stop a deployment but should be read before it. */
export function settingsWarnings(settings: DeploySettings): string[] {
  const warnings: string[] = [];
  if (settings.edge.workersDev) {
    warnings.push(
      "edge.workersDev is true: the edge is also served on *.workers.dev, where Cloudflare's Cache API does nothing. " +
        'Requests there are never cached at the edge: every one goes to the shield. Serve clients on the route or custom domain only.',
    );
  }
  if (!settings.shield.workersCache)
    warnings.push(
      'shield.workersCache is false: the shield caches only with the Cache API, which Cloudflare documents for Workers on custom domains, not for one reached only through a service binding.',
    );
  return warnings;
}

/** Where the configurations (and the dry run's bundles) are written, from the project root. */
export const DEPLOY_DIR = '.build/deploy';
/** Where each worker's configuration is written, from the root. */
export const CONFIG_PATHS = {
  shield: `${DEPLOY_DIR}/shield.wrangler.json`,
  edge: `${DEPLOY_DIR}/edge.wrangler.json`,
} as const;
/** From DEPLOY_DIR back to the project root: wrangler resolves `main` against the configuration's folder. */
const TO_ROOT = '../..';
/** A KV id for a configuration that is only built (`--dry-run`), never deployed. */
export const DRY_RUN_KV_ID = '00000000000000000000000000000000';

/** The shield's named entrypoint that Workers Cache fronts (shield/slices-entrypoint.ts). */
export const SLICES_ENTRYPOINT = 'ShieldSlices';
/** The shield's setting that turns its gateway to that entrypoint on (shield/env.ts). */
export const WORKERS_CACHE_VAR = 'SHIELD_WORKERS_CACHE';
/** The stats store: a Durable Object class of the shield's script (shield/stats-store.ts). */
const STATS_CLASS = 'StatsStore';

/** A wrangler configuration, as much of it as tiercache writes (wrangler's config-schema.json). */
export type WranglerConfig = Record<string, unknown> & { name: string; vars: Record<string, string> };

export type WranglerConfigs = Record<'shield' | 'edge', WranglerConfig>;

/**
 * Both workers' configurations (`purgesId`: the PURGES namespace's id), a file each: nothing relies on what wrangler's
 * environments inherit ([vars] and kv_namespaces are not); the bindings that join them are named here once.
 */
export function wranglerConfigs(settings: DeploySettings, purgesId: string): WranglerConfigs {
  const vars = sharedVars(settings);
  const kv = [{ binding: 'PURGES', id: purgesId }];
  const analytics = [{ binding: 'ANALYTICS', dataset: settings.analyticsDataset }];
  const shield: WranglerConfig = {
    ...common(settings, settings.shield.name, 'shield/index.ts'),
    // No public route: the shield is reached only over the edge's service binding.
    workers_dev: false,
    preview_urls: false,
    routes: [],
    placement: shieldPlacement(settings),
    vars: { ...vars, [WORKERS_CACHE_VAR]: settings.shield.workersCache ? 'on' : 'off' },
    kv_namespaces: kv,
    durable_objects: { bindings: [{ name: 'STATS', class_name: STATS_CLASS }] },
    migrations: [{ tag: 'v1', new_sqlite_classes: [STATS_CLASS] }],
    analytics_engine_datasets: analytics,
    ...(settings.shield.workersCache ? workersCache() : {}),
  };
  const edge: WranglerConfig = {
    ...common(settings, settings.edge.name, 'worker/index.ts'),
    workers_dev: settings.edge.workersDev,
    // Preview URLs are on workers.dev too, where the Cache API does nothing.
    preview_urls: false,
    routes: settings.edge.routes,
    vars,
    services: [{ binding: 'SHIELD', service: settings.shield.name }],
    kv_namespaces: kv,
    durable_objects: { bindings: [{ name: 'STATS', class_name: STATS_CLASS, script_name: settings.shield.name }] },
    analytics_engine_datasets: analytics,
  };
  return { shield, edge };
}

/** Writes both configurations where CONFIG_PATHS says, under `root`. */
export async function writeConfigs(configs: WranglerConfigs, root: string): Promise<void> {
  await mkdir(join(root, DEPLOY_DIR), { recursive: true });
  // Generated: edit tiercache.config.ts, not these.
  await writeFile(join(root, CONFIG_PATHS.shield), `${JSON.stringify(configs.shield, null, 2)}\n`);
  await writeFile(join(root, CONFIG_PATHS.edge), `${JSON.stringify(configs.edge, null, 2)}\n`);
}

/** The settings both workers read, as wrangler vars: every value a string. */
function sharedVars(settings: DeploySettings): Record<string, string> {
  return Object.fromEntries(
    Object.entries(settings.vars).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

function common(settings: DeploySettings, name: string, main: string): Record<string, unknown> & { name: string } {
  return {
    name,
    main: `${TO_ROOT}/${main}`,
    compatibility_date: settings.compatibility.date,
    compatibility_flags: [...settings.compatibility.flags],
    ...(settings.accountId !== undefined ? { account_id: settings.accountId } : {}),
    send_metrics: false,
    // Workers Logs: the JSON lines of each request (docs/operating.md); also in `wrangler tail`.
    observability: { enabled: true },
  };
}

/** The placement set, else by the origin's host (developers.cloudflare.com/workers/configuration/placement/). */
export function shieldPlacement(settings: DeploySettings): Placement {
  if (settings.shield.placement !== undefined) return settings.shield.placement;
  return { mode: 'targeted', hostname: new URL(settings.vars.ORIGIN_URL ?? 'https://gateway.storjshare.io').hostname };
}

/**
 * Workers Cache on the shield's slice entrypoint only (developers.cloudflare.com/workers/cache/configuration/
 * #per-entrypoint-caching): the default entrypoint, which the edge's binding calls, runs on every request (it checks
 * the edge's credential, reads its purge watermark and revalidations) and hands what may be kept to the cached one.
 */
function workersCache(): Record<string, unknown> {
  return {
    cache: { enabled: true },
    exports: {
      default: { type: 'worker', cache: { enabled: false } },
      [SLICES_ENTRYPOINT]: { type: 'worker', cache: { enabled: true } },
    },
  };
}

// --- The secrets (docs/configuration.md): SHIELD_TOKEN made here (random, the same on both workers: the edge
// presents it, the shield checks it), the others read from the environment variable of their name (CI) or asked
// for. A secret is never printed, logged or echoed: what is printed names secrets, never their values.

export type Worker = keyof WranglerConfigs;

export interface SecretSpec {
  name: string;
  /** The workers it is put on. */
  workers: readonly Worker[];
  /** What a missing one means, said when it is asked for. */
  purpose: string;
  /** Required: the deploy stops without it. Optional: empty leaves the feature off. Generated: made here. */
  source: 'required' | 'optional' | 'generated';
  /** Only for an S3 origin (ORIGIN_KIND=s3). */
  s3Only?: boolean;
  /** What leaving an optional one unset means. */
  unset?: string;
}

/** Bytes of a generated SHIELD_TOKEN (256 bits). */
const TOKEN_BYTES = 32;

export const SECRETS: readonly SecretSpec[] = [
  {
    name: 'SHIELD_TOKEN',
    workers: ['shield', 'edge'],
    purpose: 'the credential the edge presents to the shield',
    source: 'generated',
  },
  {
    name: 'S3_ACCESS_KEY_ID',
    workers: ['shield'],
    purpose: 'the access key the shield signs origin requests with',
    source: 'required',
    s3Only: true,
  },
  {
    name: 'S3_SECRET_ACCESS_KEY',
    workers: ['shield'],
    purpose: 'the secret key the shield signs origin requests with',
    source: 'required',
    s3Only: true,
  },
  ...OPTIONAL_SECRETS,
];

/** The secrets a deployment of `originKind` uses. */
export function secretsFor(originKind: string | undefined): SecretSpec[] {
  return SECRETS.filter((spec) => !spec.s3Only || (originKind ?? 's3') === 's3');
}

export type SecretSources = Pick<CliContext, 'env' | 'out'> & { input: SecretInput };

/**
 * Each worker's secrets to put, by name: each one a worker lacks; a CliFailure when a required one is not given.
 * SHIELD_TOKEN is made anew when either worker lacks it (a secret cannot be read back, so the other's copy cannot
 * be reused), and then put on both.
 */
export async function obtainSecrets(
  specs: readonly SecretSpec[],
  present: Readonly<Record<Worker, ReadonlySet<string>>>,
  sources: SecretSources,
): Promise<Record<Worker, Record<string, string>>> {
  const secrets: Record<Worker, Record<string, string>> = { shield: {}, edge: {} };
  const missing = specs.filter((spec) => spec.workers.some((worker) => !present[worker].has(spec.name)));
  for (const spec of missing) {
    const value = await secretValue(spec, sources);
    if (value === undefined) {
      sources.out(`  ${spec.name}: not set, ${spec.unset ?? 'left off'}`);
      continue;
    }
    // A generated one goes to every worker that uses it; the others to the worker lacking them.
    const workers =
      spec.source === 'generated' ? spec.workers : spec.workers.filter((worker) => !present[worker].has(spec.name));
    for (const worker of workers) secrets[worker][spec.name] = value;
    sources.out(
      `  ${spec.name}: ${spec.source === 'generated' && sources.env[spec.name] === undefined ? 'made anew' : 'given'}, put on ${workers.join(' and ')}`,
    );
  }
  return secrets;
}

async function secretValue(spec: SecretSpec, sources: SecretSources): Promise<string | undefined> {
  const fromEnv = sources.env[spec.name];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  if (spec.source === 'generated') return randomBytes(TOKEN_BYTES).toString('base64url');
  const empty = spec.source === 'optional' ? `; empty: ${spec.unset ?? 'left off'}` : '';
  const answer = await sources.input.ask(`${spec.name}, ${spec.purpose} (not echoed${empty}): `);
  if (answer !== undefined && answer !== '') return answer;
  if (spec.source === 'optional') return undefined;
  throw new CliFailure(
    `${spec.name} is needed (${spec.purpose}): type it when asked, or set the environment variable ${spec.name}`,
  );
}

/**
 * Where a secret asked for is read. On a terminal: typed without echo (raw mode; nothing is written back for a key
 * but the line end once it is entered), Ctrl-C stops the deploy. Otherwise (CI, a pipe): one line of standard
 * input per question. The question goes to standard error; the answer is never written anywhere.
 */
export interface SecretInput {
  /** The answer to `question`, or undefined when there is no more input. */
  ask(question: string): Promise<string | undefined>;
}

/** Ctrl-C and Ctrl-D in raw mode. */
const INTERRUPT = '\u0003';
const END = '\u0004';
const BACKSPACE = new Set(['\u007f', '\b']);

/** The process's own input: hidden on a terminal, one line per question otherwise. */
export function processSecretInput(prompt: (text: string) => void): SecretInput {
  if (process.stdin.isTTY) return terminalInput(prompt);
  return linesInput(createInterface({ input: process.stdin, terminal: false })[Symbol.asyncIterator](), prompt);
}

/** One line of `lines` per question (trailing whitespace and a CR dropped). */
export function linesInput(
  lines: AsyncIterator<string> | Iterator<string>,
  prompt: (text: string) => void,
): SecretInput {
  return {
    async ask(question) {
      prompt(question);
      const next = await lines.next();
      return next.done ? undefined : String(next.value).replace(/\s+$/, '');
    },
  };
}

function terminalInput(prompt: (text: string) => void): SecretInput {
  return {
    ask: (question) =>
      new Promise((resolve) => {
        prompt(question);
        const stdin = process.stdin;
        let typed = '';
        const finish = (value: string | undefined): void => {
          stdin.off('data', onData);
          stdin.setRawMode(false);
          stdin.pause();
          process.stderr.write('\n');
          resolve(value);
        };
        const onData = (chunk: string): void => {
          for (const key of chunk) {
            if (key === INTERRUPT) {
              stdin.setRawMode(false);
              process.stderr.write('\n');
              process.exit(130);
            }
            if (key === END || key === '\r' || key === '\n') {
              // Ctrl-D on an empty line is the end of input; a line end, even on an empty one, is an answer.
              finish(key === END && typed === '' ? undefined : typed);
              return;
            }
            typed = BACKSPACE.has(key) ? typed.slice(0, -1) : typed + key;
          }
        };
        stdin.setEncoding('utf8');
        stdin.setRawMode(true);
        stdin.resume();
        stdin.on('data', onData);
      }),
  };
}
