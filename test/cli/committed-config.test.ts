// The wrangler configuration in the repository (wrangler.jsonc, the edge; shield/wrangler.jsonc, the shield) is what
// `npm run config` writes from tiercache.config.ts, and what Cloudflare documents as valid: a fresh clone deploys,
// runs and tails with wrangler alone.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { staleMessage } from '../../cli/config.ts';
import { CONFIG_FILES, configTexts, parseConfigText } from '../../cli/wrangler-config.ts';
import { wranglerConfigProblems } from '../../cli/wrangler-config-check.ts';
import settings from '../../tiercache.config.ts';

const ROOT = new URL('../../', import.meta.url);
const committed = (file: string): string => {
  try {
    return readFileSync(new URL(file, ROOT), 'utf8');
  } catch {
    return '(absent)';
  }
};

describe('the committed wrangler configuration', () => {
  it('is what `npm run config` writes from tiercache.config.ts, byte for byte', () => {
    const texts = configTexts(settings);
    for (const worker of ['edge', 'shield'] as const) {
      const file = CONFIG_FILES[worker];
      expect(committed(file), staleMessage([file])).toBe(texts[worker]);
    }
  });

  it('says it is generated, from what and by what, and not to edit it', () => {
    for (const file of Object.values(CONFIG_FILES))
      expect(committed(file).split('\n', 1)[0]).toBe(
        '// Generated from tiercache.config.ts by `npm run config`: do not edit. Edit tiercache.config.ts, then run',
      );
  });

  it('is the edge at the root (wrangler finds it with no flag) and the shield beside its code', () => {
    const edge = parseConfigText(committed(CONFIG_FILES.edge));
    const shield = parseConfigText(committed(CONFIG_FILES.shield));
    expect([CONFIG_FILES.edge, edge.name, edge.main]).toEqual([
      'wrangler.jsonc',
      settings.edge.name,
      'worker/index.ts',
    ]);
    expect([CONFIG_FILES.shield, shield.name, shield.main]).toEqual([
      'shield/wrangler.jsonc',
      settings.shield.name,
      'index.ts',
    ]);
  });

  it('has nothing Cloudflare documents as invalid: no `exports` beside `migrations`, every own Durable Object declared', () => {
    for (const file of Object.values(CONFIG_FILES))
      expect(wranglerConfigProblems(parseConfigText(committed(file))), file).toEqual([]);
  });
});
