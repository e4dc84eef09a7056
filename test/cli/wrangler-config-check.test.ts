// wranglerConfigProblems (cli/wrangler-config-check.ts): what Cloudflare's docs call invalid and wrangler's dry run
// lets through, refused on a deliberately bad configuration and absent from the generated one.

import { describe, expect, it } from 'vitest';
import { wranglerConfigs } from '../../cli/wrangler-config.ts';
import { EXPORTS_OR_MIGRATIONS_DOC, wranglerConfigProblems } from '../../cli/wrangler-config-check.ts';
import settings from '../../tiercache.config.ts';

const STATS = { bindings: [{ name: 'STATS', class_name: 'StatsStore' }] };

describe('wranglerConfigProblems', () => {
  it('refuses `exports` beside `migrations`, as Cloudflare documents, even when no export is a Durable Object', () => {
    const bad = {
      name: 'tiercache-shield',
      durable_objects: STATS,
      migrations: [{ tag: 'v1', new_sqlite_classes: ['StatsStore'] }],
      exports: { ShieldSlices: { type: 'worker', cache: { enabled: true } } },
    };
    const problems = wranglerConfigProblems(bad);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('`exports` and `migrations` together');
    expect(problems[0]).toContain(EXPORTS_OR_MIGRATIONS_DOC);
  });

  it('refuses a Durable Object class bound from its own script that `exports` does not declare live', () => {
    const missing = { name: 'w', durable_objects: STATS, exports: { Other: { type: 'worker' } } };
    expect(wranglerConfigProblems(missing)).toEqual([
      'w: binds the Durable Object class StatsStore of its own script, which neither `exports` (as a live `durable-object`) nor `migrations` declares',
    ]);
    const deleted = { ...missing, exports: { StatsStore: { type: 'durable-object', state: 'deleted' } } };
    expect(wranglerConfigProblems(deleted)).toHaveLength(1);
  });

  it('accepts a class declared in `exports` with its storage, a binding to another script, or `migrations` alone', () => {
    expect(
      wranglerConfigProblems({
        durable_objects: STATS,
        exports: { StatsStore: { type: 'durable-object', storage: 'sqlite' } },
      }),
    ).toEqual([]);
    expect(
      wranglerConfigProblems({
        durable_objects: { bindings: [{ name: 'STATS', class_name: 'StatsStore', script_name: 'tiercache-shield' }] },
      }),
    ).toEqual([]);
    expect(
      wranglerConfigProblems({
        durable_objects: STATS,
        migrations: [{ tag: 'v1', new_sqlite_classes: ['StatsStore'] }],
      }),
    ).toEqual([]);
  });

  it('finds nothing to refuse in either generated configuration', () => {
    const configs = wranglerConfigs(settings);
    expect(wranglerConfigProblems(configs.shield)).toEqual([]);
    expect(wranglerConfigProblems(configs.edge)).toEqual([]);
  });
});
