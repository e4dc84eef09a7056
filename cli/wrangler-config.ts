// Each worker's wrangler configuration, written from the settings (tiercache.config.ts) by `npm run config` and
// committed: wrangler.jsonc (the edge) and shield/wrangler.jsonc (the shield), so that `wrangler deploy`, `dev`,
// `tail` and `secret put` work on them as on any Worker. Nothing is kept in step by hand: every shared setting and
// every binding that joins the two workers is written here once.

import { readFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { type DeploySettings, type Placement, shieldCache, shieldPlacement, type Worker } from './deploy-settings.ts';

/** Where each worker's configuration is, from the project root: wrangler finds the edge's with no flag. */
export const CONFIG_FILES: Readonly<Record<Worker, string>> = {
  edge: 'wrangler.jsonc',
  shield: 'shield/wrangler.jsonc',
};
/** Each worker's entry module, from the project root. */
const MAIN: Readonly<Record<Worker, string>> = { edge: 'worker/index.ts', shield: 'shield/index.ts' };

/**
 * The PURGES id written until `npm run deploy` has found or created the namespace (purgesNamespaceId): it builds
 * (`--dry-run`) and runs locally (`wrangler dev` keeps a local namespace by this id, one for both workers), and a
 * deploy with it fails on a namespace that does not exist, rather than binding one of wrangler's making.
 */
export const UNSET_KV_ID = '00000000000000000000000000000000';

/** The shield's named entrypoint that Workers Cache fronts (shield/slices-entrypoint.ts). */
export const SLICES_ENTRYPOINT = 'ShieldSlices';
/** The shield's setting that turns its gateway to that entrypoint on (shield/env.ts). */
export const WORKERS_CACHE_VAR = 'SHIELD_WORKERS_CACHE';
/** The edge's setting naming the shield's URL in the `cache-api` mode (worker/env.ts). */
export const SHIELD_URL_VAR = 'SHIELD_URL';
/** The R2 tier's bucket binding (shield/env.ts). */
const R2_TIER_BINDING = 'R2_TIER';
/** The stats store: a Durable Object class of the shield's script (shield/stats-store.ts). */
const STATS_CLASS = 'StatsStore';

/** A wrangler configuration, as much of it as tiercache writes (node_modules/wrangler/config-schema.json). */
export type WranglerConfig = Record<string, unknown> & { name: string; vars: Record<string, string> };

export type WranglerConfigs = Record<Worker, WranglerConfig>;

/** Where the configurations are written: each file's path, and the root their `main` is found from. */
export interface ConfigLayout {
  root: string;
  files: Readonly<Record<Worker, string>>;
}

/**
 * Both workers' configurations, a file each (nothing relies on what wrangler's environments inherit: `vars` and
 * `kv_namespaces` are not). `layout`: where they are written, for `main` (wrangler resolves it against the
 * configuration's folder).
 */
export function wranglerConfigs(
  settings: DeploySettings,
  layout: ConfigLayout = { root: '.', files: CONFIG_FILES },
): WranglerConfigs {
  const mode = shieldCache(settings);
  const vars = sharedVars(settings);
  const kv = [{ binding: 'PURGES', id: purgesId(settings) }];
  const analytics = [{ binding: 'ANALYTICS', dataset: settings.analyticsDataset }];
  const shield: WranglerConfig = {
    ...common(settings, 'shield', layout),
    // No workers.dev or preview URL: the edge reaches the shield over its binding, or on the shield's own hostname.
    workers_dev: false,
    preview_urls: false,
    routes: mode === 'cache-api' ? [{ pattern: settings.shield.hostname, custom_domain: true }] : [],
    placement: shieldPlacement(settings) satisfies Placement,
    vars: { ...vars, [WORKERS_CACHE_VAR]: mode === 'workers-cache' ? 'on' : 'off' },
    kv_namespaces: kv,
    durable_objects: { bindings: [{ name: 'STATS', class_name: STATS_CLASS }] },
    analytics_engine_datasets: analytics,
    // The R2 tier, where a bucket is named (shield/env.ts R2_TIER); none: off.
    ...(settings.shield.r2Bucket === undefined || settings.shield.r2Bucket === ''
      ? {}
      : { r2_buckets: [{ binding: R2_TIER_BINDING, bucket_name: settings.shield.r2Bucket }] }),
    ...(mode === 'workers-cache' ? { cache: { enabled: true } } : {}),
    exports: shieldExports(mode),
  };
  const edge: WranglerConfig = {
    ...common(settings, 'edge', layout),
    workers_dev: settings.edge.workersDev,
    // Preview URLs are on workers.dev too, where the Cache API does nothing.
    preview_urls: false,
    routes: settings.edge.routes,
    vars: mode === 'cache-api' ? { ...vars, [SHIELD_URL_VAR]: `https://${settings.shield.hostname}` } : vars,
    ...(mode === 'workers-cache' ? { services: [{ binding: 'SHIELD', service: settings.shield.name }] } : {}),
    kv_namespaces: kv,
    durable_objects: { bindings: [{ name: 'STATS', class_name: STATS_CLASS, script_name: settings.shield.name }] },
    analytics_engine_datasets: analytics,
  };
  return { shield, edge };
}

/** A configuration as its file holds it: a header saying where it comes from, then the JSON. */
function configText(worker: Worker, config: WranglerConfig): string {
  const use =
    worker === 'edge'
      ? 'The edge: `npx wrangler deploy`, `npx wrangler dev` (with its shield: `-c wrangler.jsonc -c shield/wrangler.jsonc`).'
      : 'The shield: `npx wrangler deploy -c shield/wrangler.jsonc` (before the edge, whose bindings name it).';
  return [
    '// Generated from tiercache.config.ts by `npm run config`: do not edit. Edit tiercache.config.ts, then run',
    '// `npm run config` and commit both files (a test fails when they differ from what it writes).',
    `// ${use}`,
    `${JSON.stringify(config, null, 2)}\n`,
  ].join('\n');
}

/** A configuration file's JSON: the header's comment lines dropped (configText writes no other comment). */
export function parseConfigText(text: string): WranglerConfig {
  const json = text
    .split('\n')
    .filter((line) => !line.startsWith('//'))
    .join('\n');
  return JSON.parse(json) as WranglerConfig;
}

/** Each configuration's text, as `npm run config` writes it, by worker. */
export function configTexts(settings: DeploySettings, layout?: ConfigLayout): Record<Worker, string> {
  const configs = wranglerConfigs(settings, layout);
  return { edge: configText('edge', configs.edge), shield: configText('shield', configs.shield) };
}

/** The configuration files under `root` that differ from what `npm run config` would write (absent ones too). */
export async function staleConfigFiles(settings: DeploySettings, root: string): Promise<string[]> {
  const texts = configTexts(settings);
  const stale: string[] = [];
  for (const worker of ['edge', 'shield'] as const) {
    const held = await readFile(resolve(root, CONFIG_FILES[worker]), 'utf8').catch(() => undefined);
    if (held !== texts[worker]) stale.push(CONFIG_FILES[worker]);
  }
  return stale;
}

/** The PURGES namespace's id: the one the deploy recorded, else UNSET_KV_ID. */
function purgesId(settings: DeploySettings): string {
  const id = settings.purgesNamespaceId;
  return id === undefined || id === '' ? UNSET_KV_ID : id;
}

/** The settings both workers read, as wrangler vars: every value a string. */
function sharedVars(settings: DeploySettings): Record<string, string> {
  return Object.fromEntries(
    Object.entries(settings.vars).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

function common(
  settings: DeploySettings,
  worker: Worker,
  layout: ConfigLayout,
): Record<string, unknown> & { name: string } {
  const file = resolve(layout.root, layout.files[worker]);
  return {
    $schema: relativePath(dirname(file), resolve(layout.root, 'node_modules/wrangler/config-schema.json')),
    name: worker === 'edge' ? settings.edge.name : settings.shield.name,
    main: relativePath(dirname(file), resolve(layout.root, MAIN[worker])),
    compatibility_date: settings.compatibility.date,
    compatibility_flags: [...settings.compatibility.flags],
    ...(settings.accountId !== undefined ? { account_id: settings.accountId } : {}),
    send_metrics: false,
    // Workers Logs: the JSON lines of each request (docs/operating.md); also in `wrangler tail`.
    observability: { enabled: true },
  };
}

function relativePath(from: string, to: string): string {
  return relative(from, to).split('\\').join('/');
}

/**
 * The shield's exports. The stats store is a Durable Object class declared here, with its storage, and never in
 * `migrations`: Cloudflare's docs say "You cannot use both `exports` and `migrations` in the same Worker
 * configuration" (cli/wrangler-config-check.ts), and the Workers Cache entrypoints are `exports` too.
 *
 * With Workers Cache, caching is on for the slice entrypoint only (developers.cloudflare.com/workers/cache/configuration/
 * #per-entrypoint-caching): the default entrypoint, which the edge's binding calls, runs on every request (it checks
 * the edge's credential, reads its purge watermark and revalidations) and hands what may be kept to the cached one.
 */
function shieldExports(mode: 'workers-cache' | 'cache-api'): Record<string, unknown> {
  const stats = { [STATS_CLASS]: { type: 'durable-object', storage: 'sqlite' } };
  if (mode !== 'workers-cache') return stats;
  return {
    default: { type: 'worker', cache: { enabled: false } },
    [SLICES_ENTRYPOINT]: { type: 'worker', cache: { enabled: true } },
    ...stats,
  };
}
