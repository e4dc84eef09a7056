// The production configuration `npm run deploy` writes from tiercache.config.ts
// (cli/wrangler-config.ts), read as wrangler reads it: the edge on a custom domain with
// workers.dev off, the shield with no public route at all, every shared setting from one
// source, and the bindings and the Durable Object migration both workers rely on.

import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type DeploySettings,
  SLICES_ENTRYPOINT,
  settingsWarnings,
  WORKERS_CACHE_VAR,
  wranglerConfigs,
} from '../../cli/wrangler-config.ts';
import settings from '../../tiercache.config.ts';

const ROOT = new URL('../../', import.meta.url);
const KV_ID = '0123456789abcdef0123456789abcdef';
const { edge, shield } = wranglerConfigs(settings, KV_ID);

describe('the deployed configuration', () => {
  it('puts the edge on a route or custom domain, with workers.dev and preview URLs off (the Cache API does nothing there)', () => {
    expect(edge.routes).toEqual([{ pattern: 'cdn.example.com', custom_domain: true }]);
    expect(edge.workers_dev).toBe(false);
    expect(edge.preview_urls).toBe(false);
  });

  it('warns loudly whoever turns workers.dev on for the edge, and still never serves the shield there', () => {
    const on: DeploySettings = { ...settings, edge: { ...settings.edge, workersDev: true } };
    expect(settingsWarnings(on).join('\n')).toMatch(/workers\.dev, where Cloudflare's Cache API does nothing/);
    const configs = wranglerConfigs(on, KV_ID);
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
    const changed = wranglerConfigs({ ...settings, vars: { ...settings.vars, SLICE_SIZE: '16MiB' } }, KV_ID);
    expect([changed.edge.vars.SLICE_SIZE, changed.shield.vars.SLICE_SIZE]).toEqual(['16MiB', '16MiB']);
    expect(edge.compatibility_date).toBe(shield.compatibility_date);
    expect(edge.compatibility_flags).toEqual(shield.compatibility_flags);
    // Nothing but the shield's Workers Cache switch, derived from the settings, is a var of one worker only.
    expect(Object.keys(shield.vars).filter((name) => !(name in edge.vars))).toEqual([WORKERS_CACHE_VAR]);
    expect(Object.keys(edge.vars).filter((name) => !(name in shield.vars))).toEqual([]);
  });

  it('keeps no second copy of the settings: no wrangler.toml, and no secret among the vars', () => {
    expect(existsSync(new URL('wrangler.toml', ROOT))).toBe(false);
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

  it("declares the stats store's migration in the shield, whose script holds the class", () => {
    expect(shield.migrations).toEqual([{ tag: 'v1', new_sqlite_classes: ['StatsStore'] }]);
    expect(edge).not.toHaveProperty('migrations');
    expect(readFileSync(new URL('shield/index.ts', ROOT), 'utf8')).toMatch(/export \{ StatsStore \}/);
  });

  it("puts Workers Cache in front of the shield's slice entrypoint only, which the shield's script exports and its gateway is told to use", () => {
    expect(shield.cache).toEqual({ enabled: true });
    expect(shield.exports).toEqual({
      default: { type: 'worker', cache: { enabled: false } },
      [SLICES_ENTRYPOINT]: { type: 'worker', cache: { enabled: true } },
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
    const off = wranglerConfigs({ ...settings, shield: { ...settings.shield, workersCache: false } }, KV_ID).shield;
    expect(off).not.toHaveProperty('cache');
    expect(off).not.toHaveProperty('exports');
    expect(off.vars[WORKERS_CACHE_VAR]).toBe('off');
  });
});
