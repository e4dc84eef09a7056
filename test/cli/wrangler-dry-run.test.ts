// Both shield cache modes' configurations build with the real wrangler (`wrangler deploy --dry-run`, no network, no
// login): the committed files as they are (the default mode, 'workers-cache'), and the 'cache-api' mode's written to
// a folder of the test's own.

import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeploySettings } from '../../cli/deploy-settings.ts';
import { CONFIG_FILES, configTexts } from '../../cli/wrangler-config.ts';
import settings from '../../tiercache.config.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WRANGLER = join(ROOT, 'node_modules/.bin/wrangler');
/** A build of both workers takes seconds; two cores are shared. */
const BUILD_MS = 120_000;

let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'tiercache-dry-run-'));
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** What `wrangler deploy --dry-run -c <config>` printed; it throws (and the test fails) when wrangler fails. */
async function dryRun(config: string, out: string): Promise<string> {
  const { stdout, stderr } = await promisify(execFile)(
    WRANGLER,
    ['deploy', '--dry-run', '-c', config, '--outdir', join(folder, out)],
    { cwd: ROOT, env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1' }, timeout: BUILD_MS },
  );
  return `${stdout}${stderr}`;
}

describe('wrangler deploy --dry-run', () => {
  it(
    "builds the committed edge and shield as they are (the 'workers-cache' mode)",
    async () => {
      const shield = await dryRun(CONFIG_FILES.shield, 'shield');
      expect(shield).toContain('--dry-run: exiting now.');
      expect(shield).toMatch(/SHIELD_WORKERS_CACHE \("on"\)/);
      const edge = await dryRun(CONFIG_FILES.edge, 'edge');
      expect(edge).toContain('--dry-run: exiting now.');
      expect(edge).toMatch(/env\.SHIELD \(tiercache-shield\)\s+Worker/);
    },
    BUILD_MS,
  );

  it(
    "builds the 'cache-api' mode's edge and shield: the shield on its hostname, the edge with SHIELD_URL and no binding",
    async () => {
      const cacheApi: DeploySettings = {
        ...settings,
        shield: { ...settings.shield, cache: 'cache-api', hostname: 'shield.cdn.test.example' },
      };
      const files = { edge: join(folder, 'edge.jsonc'), shield: join(folder, 'shield.jsonc') };
      const texts = configTexts(cacheApi, { root: ROOT, files });
      await writeFile(files.edge, texts.edge);
      await writeFile(files.shield, texts.shield);
      const shield = await dryRun(files.shield, 'cache-api-shield');
      expect(shield).toContain('--dry-run: exiting now.');
      expect(shield).toMatch(/SHIELD_WORKERS_CACHE \("off"\)/);
      const edge = await dryRun(files.edge, 'cache-api-edge');
      expect(edge).toContain('--dry-run: exiting now.');
      expect(edge).toContain('SHIELD_URL ("https://shield.cdn.test.example")');
      expect(edge).not.toMatch(/env\.SHIELD \(/);
    },
    BUILD_MS,
  );
});
