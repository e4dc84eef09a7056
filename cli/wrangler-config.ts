// Each worker's wrangler configuration, written from the deployment's settings
// (tiercache.config.ts, deploy-settings.ts): one JSON file per worker, so that nothing relies on
// what wrangler's environments inherit and what they do not ([vars] and kv_namespaces are not
// inherited). Every setting both workers share comes from one place in the settings; the
// bindings that join them (SHIELD, STATS, PURGES, ANALYTICS) are named here once. Pure: the
// files are written by run-deploy.ts.

import type { DeploySettings, Placement } from './deploy-settings.ts';

/** Where the configurations (and the dry run's bundles) are written, from the project root. */
export const DEPLOY_DIR = '.build/deploy';
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

export interface WranglerConfigs {
  shield: WranglerConfig;
  edge: WranglerConfig;
}

/** Both workers' configurations; `purgesId`: the PURGES namespace's id. */
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

/** The settings' placement, or next to the origin's host (developers.cloudflare.com/workers/configuration/placement/). */
export function shieldPlacement(settings: DeploySettings): Placement {
  if (settings.shield.placement !== undefined) return settings.shield.placement;
  return { mode: 'targeted', hostname: new URL(settings.vars.ORIGIN_URL ?? 'https://gateway.storjshare.io').hostname };
}

/**
 * Workers Cache on the shield's slice entrypoint only (developers.cloudflare.com/workers/cache/
 * configuration/#per-entrypoint-caching): the default entrypoint, which the edge's binding
 * calls, runs on every request (it checks the edge's credential, reads the edge's purge
 * watermark and revalidations) and hands the answers that may be kept to the cached one.
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
