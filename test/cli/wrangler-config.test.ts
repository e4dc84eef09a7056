// The production configuration `npm run config` writes from tiercache.config.ts
// (cli/wrangler-config.ts), read as wrangler reads it: the edge on a custom domain with
// workers.dev off, the shield with no public route at all (or, in the `cache-api` mode, on a
// hostname of its own), every shared setting from one source, and the bindings and the Durable
// Object class declaration both workers rely on.

import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type DeploySettings, settingsWarnings } from '../../cli/deploy-settings.ts';
import {
  SHIELD_URL_VAR,
  SLICES_ENTRYPOINT,
  UNSET_KV_ID,
  WORKERS_CACHE_VAR,
  wranglerConfigs,
} from '../../cli/wrangler-config.ts';
import settings from '../../tiercache.config.ts';

const ROOT = new URL('../../', import.meta.url);
const KV_ID = '0123456789abcdef0123456789abcdef';
const deployed: DeploySettings = { ...settings, purgesNamespaceId: KV_ID };
const { edge, shield } = wranglerConfigs(deployed);
/** The second mode: the shield on a hostname of its own, its Cache API, no Workers Cache. */
const cacheApi: DeploySettings = {
  ...deployed,
  shield: { ...deployed.shield, cache: 'cache-api', hostname: 'shield.cdn.test.example' },
};

describe('the deployed configuration', () => {
  it('puts the edge on a route or custom domain, with workers.dev and preview URLs off (the Cache API does nothing there)', () => {
    expect(edge.routes).toEqual([{ pattern: 'cdn.example.com', custom_domain: true }]);
    expect(edge.workers_dev).toBe(false);
    expect(edge.preview_urls).toBe(false);
  });

  it('warns loudly whoever turns workers.dev on for the edge, and still never serves the shield there', () => {
    const on: DeploySettings = { ...settings, edge: { ...settings.edge, workersDev: true } };
    expect(settingsWarnings(on).join('\n')).toMatch(/workers\.dev, where Cloudflare's Cache API does nothing/);
    const configs = wranglerConfigs(on);
    expect(configs.edge.workers_dev).toBe(true);
    expect(configs.shield.workers_dev).toBe(false);
  });

  it('gives the shield no public route: no workers.dev, no preview URLs, no routes', () => {
    expect(shield.workers_dev).toBe(false);
    expect(shield.preview_urls).toBe(false);
    expect(shield.routes).toEqual([]);
    expect(shield).not.toHaveProperty('route');
  });

  it('places the shield next to the origin named once, in ORIGIN_URL', () => {
    expect(shield.placement).toEqual({ mode: 'targeted', hostname: new URL(settings.vars.ORIGIN_URL).hostname });
    expect(edge).not.toHaveProperty('placement');
  });

  it('gives both workers every shared setting from its one source, and the same runtime', () => {
    for (const [name, value] of Object.entries(settings.vars)) {
      expect(edge.vars[name], name).toBe(value);
      expect(shield.vars[name], name).toBe(value);
    }
    // Written once: a setting changed in the settings changes in both workers.
    const changed = wranglerConfigs({ ...settings, vars: { ...settings.vars, SLICE_SIZE: '16MiB' } });
    expect([changed.edge.vars.SLICE_SIZE, changed.shield.vars.SLICE_SIZE]).toEqual(['16MiB', '16MiB']);
    expect(edge.compatibility_date).toBe(shield.compatibility_date);
    expect(edge.compatibility_flags).toEqual(shield.compatibility_flags);
    // Nothing but the shield's Workers Cache switch, derived from the settings, is a var of one worker only.
    expect(Object.keys(shield.vars).filter((name) => !(name in edge.vars))).toEqual([WORKERS_CACHE_VAR]);
    expect(Object.keys(edge.vars).filter((name) => !(name in shield.vars))).toEqual([]);
  });

  it('keeps no second copy of the settings: no wrangler.toml, and no secret among the vars', () => {
    expect(existsSync(new URL('wrangler.toml', ROOT))).toBe(false);
    expect(existsSync(new URL('shield/wrangler.toml', ROOT))).toBe(false);
    for (const secret of ['SHIELD_TOKEN', 'PURGE_TOKEN', 'STATS_TOKEN', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY']) {
      expect(edge.vars).not.toHaveProperty(secret);
      expect(shield.vars).not.toHaveProperty(secret);
    }
  });

  it('binds the edge to the shield (SHIELD), both to one PURGES namespace, to the stats store (STATS) and to Analytics Engine (ANALYTICS)', () => {
    expect(edge.services).toEqual([{ binding: 'SHIELD', service: shield.name }]);
    expect(edge.kv_namespaces).toEqual([{ binding: 'PURGES', id: KV_ID }]);
    expect(shield.kv_namespaces).toEqual(edge.kv_namespaces);
    expect(edge.durable_objects).toEqual({
      bindings: [{ name: 'STATS', class_name: 'StatsStore', script_name: shield.name }],
    });
    expect(shield.durable_objects).toEqual({ bindings: [{ name: 'STATS', class_name: 'StatsStore' }] });
    expect(edge.analytics_engine_datasets).toEqual([{ binding: 'ANALYTICS', dataset: 'tiercache' }]);
    expect(shield.analytics_engine_datasets).toEqual(edge.analytics_engine_datasets);
    expect(shield).not.toHaveProperty('services');
  });

  it('binds the R2 tier its bucket at the shield alone where the settings name one (R2_TIER), and none by default', () => {
    expect(shield).not.toHaveProperty('r2_buckets');
    const withR2 = wranglerConfigs({ ...deployed, shield: { ...deployed.shield, r2Bucket: 'tiercache-r2' } });
    expect(withR2.shield.r2_buckets).toEqual([{ binding: 'R2_TIER', bucket_name: 'tiercache-r2' }]);
    expect(withR2.edge).not.toHaveProperty('r2_buckets');
  });

  it('binds one PURGES namespace in both, the id the deploy recorded, or a placeholder until it has', () => {
    const unset = wranglerConfigs({ ...settings, purgesNamespaceId: '' });
    expect(unset.edge.kv_namespaces).toEqual([{ binding: 'PURGES', id: UNSET_KV_ID }]);
    expect(unset.shield.kv_namespaces).toEqual(unset.edge.kv_namespaces);
  });

  it("declares the stats store in the shield's exports with its SQLite storage, and no migrations (Cloudflare: not both)", () => {
    expect(shield).not.toHaveProperty('migrations');
    expect(edge).not.toHaveProperty('migrations');
    expect((shield.exports as Record<string, unknown>).StatsStore).toEqual({
      type: 'durable-object',
      storage: 'sqlite',
    });
    expect(edge).not.toHaveProperty('exports');
    expect(readFileSync(new URL('shield/index.ts', ROOT), 'utf8')).toMatch(/export \{[^}]*\bStatsStore\b/);
    expect((wranglerConfigs(cacheApi).shield.exports as Record<string, unknown>).StatsStore).toEqual({
      type: 'durable-object',
      storage: 'sqlite',
    });
  });

  it("puts Workers Cache in front of the shield's slice entrypoint only, which the shield's script exports and its gateway is told to use", () => {
    expect(shield.cache).toEqual({ enabled: true });
    expect(shield.exports).toEqual({
      default: { type: 'worker', cache: { enabled: false } },
      [SLICES_ENTRYPOINT]: { type: 'worker', cache: { enabled: true } },
      StatsStore: { type: 'durable-object', storage: 'sqlite' },
    });
    expect(shield.vars[WORKERS_CACHE_VAR]).toBe('on');
    expect(edge).not.toHaveProperty('cache');
    // The names the shield's code uses are the ones written here.
    expect(readFileSync(new URL('shield/index.ts', ROOT), 'utf8')).toMatch(
      new RegExp(`export \\{[^}]*\\b${SLICES_ENTRYPOINT}\\b`),
    );
    expect(readFileSync(new URL('shield/shield-app.ts', ROOT), 'utf8')).toMatch(
      new RegExp(`SLICES_ENTRYPOINT = '${SLICES_ENTRYPOINT}'`),
    );
    expect(readFileSync(new URL('shield/env.ts', ROOT), 'utf8')).toMatch(new RegExp(`${WORKERS_CACHE_VAR}\\?: string`));
  });

  it("in the 'cache-api' mode: the shield on its own custom domain with no Workers Cache, the edge reaching it at SHIELD_URL with no binding", () => {
    const configs = wranglerConfigs(cacheApi);
    expect(configs.shield.routes).toEqual([{ pattern: 'shield.cdn.test.example', custom_domain: true }]);
    expect(configs.shield.workers_dev).toBe(false);
    expect(configs.shield.preview_urls).toBe(false);
    expect(configs.shield).not.toHaveProperty('cache');
    expect(configs.shield.exports).toEqual({ StatsStore: { type: 'durable-object', storage: 'sqlite' } });
    expect(configs.shield.vars[WORKERS_CACHE_VAR]).toBe('off');
    expect(configs.edge.vars[SHIELD_URL_VAR]).toBe('https://shield.cdn.test.example');
    expect(configs.edge).not.toHaveProperty('services');
    expect(edge.vars).not.toHaveProperty(SHIELD_URL_VAR);
    // The rest is the default mode's: the same vars, placement, namespace, stats store and dataset.
    expect(configs.shield.placement).toEqual(shield.placement);
    expect(configs.edge.kv_namespaces).toEqual(edge.kv_namespaces);
    expect(configs.edge.durable_objects).toEqual(edge.durable_objects);
    expect(Object.keys(configs.edge.vars).filter((name) => !(name in configs.shield.vars))).toEqual([SHIELD_URL_VAR]);
  });
});
