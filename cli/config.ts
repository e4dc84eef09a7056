// `npm run config` (docs/deploying.md): writes each worker's wrangler configuration (wrangler.jsonc,
// shield/wrangler.jsonc) from tiercache.config.ts, to be committed; `--check` only says whether they are current.

import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliFailure, EXIT_USAGE, failureExit } from './cli-failure.ts';
import { isEntry } from './command.ts';
import { type DeploySettings, settingsWarnings, type Worker } from './deploy-settings.ts';
import { parseFlags, single } from './flags.ts';
import { loadSettings, SETTINGS_FILE } from './settings-file.ts';
import { CONFIG_FILES, configTexts, staleConfigFiles, UNSET_KV_ID, wranglerConfigs } from './wrangler-config.ts';
import { wranglerConfigProblems } from './wrangler-config-check.ts';

export const CONFIG_USAGE = `Usage: npm run config [-- --check] [-- --settings FILE]

Writes wrangler.jsonc (the edge) and shield/wrangler.jsonc (the shield) from tiercache.config.ts.
Run it after every edit of the settings, and commit both files.

  --check            write nothing; fail when a file differs from what would be written
  --settings FILE    the settings file (default: tiercache.config.ts)
  --help             this text`;

export interface ConfigContext {
  /** The project root: where the settings are and the configurations are written. */
  root: string;
  out(text: string): void;
  err(text: string): void;
}

/** The command, as a function of its arguments and context, answering the exit code. */
export async function runConfig(argv: readonly string[], context: ConfigContext): Promise<number> {
  try {
    const flags = parseFlags(
      argv,
      { check: { type: 'boolean' }, settings: { type: 'string' }, help: { type: 'boolean' } },
      CONFIG_USAGE,
    );
    if (flags.booleans.help === true) {
      context.out(CONFIG_USAGE);
      return 0;
    }
    const settings = await loadSettings(
      resolve(context.root, single(flags, 'settings', CONFIG_USAGE) ?? SETTINGS_FILE),
    );
    if (flags.booleans.check === true) {
      const stale = await staleConfigFiles(settings, context.root);
      if (stale.length > 0) throw new CliFailure(staleMessage(stale), EXIT_USAGE);
      context.out(`${Object.values(CONFIG_FILES).join(' and ')}: as tiercache.config.ts says.`);
      return 0;
    }
    for (const warning of settingsWarnings(settings)) context.err(`WARNING: ${warning}`);
    const written = await writeConfigs(settings, context.root);
    context.out(
      written.length === 0
        ? `${Object.values(CONFIG_FILES).join(' and ')}: unchanged.`
        : `Wrote ${written.join(' and ')} from tiercache.config.ts: commit ${written.length === 1 ? 'it' : 'them'}.`,
    );
    if ((settings.purgesNamespaceId ?? '') === '')
      context.out(
        `purgesNamespaceId is not set yet (the files bind ${UNSET_KV_ID}): \`npm run deploy\` finds or creates the namespace and writes its id; until then \`npx wrangler deploy\` stops on a namespace that does not exist.`,
      );
    return 0;
  } catch (error) {
    return failureExit(error, context.err);
  }
}

/** What a stale configuration means, and how to fix it. */
export function staleMessage(stale: readonly string[]): string {
  return `${stale.join(' and ')} ${stale.length === 1 ? 'is' : 'are'} not what tiercache.config.ts says: run \`npm run config\` and commit the result`;
}

/**
 * Writes both configurations under `root` (CONFIG_FILES) and answers the files that changed. Refuses, writing
 * nothing, a configuration Cloudflare documents as invalid (wrangler-config-check.ts).
 */
export async function writeConfigs(settings: DeploySettings, root: string): Promise<string[]> {
  const configs = wranglerConfigs(settings);
  const workers: Worker[] = ['edge', 'shield'];
  const problems = workers.flatMap((worker) => wranglerConfigProblems(configs[worker]));
  if (problems.length > 0) throw new CliFailure(`nothing written:\n${problems.join('\n')}`);
  const texts = configTexts(settings);
  const stale = new Set(await staleConfigFiles(settings, root));
  const written: string[] = [];
  for (const worker of workers) {
    const file = CONFIG_FILES[worker];
    if (!stale.has(file)) continue;
    await mkdir(dirname(resolve(root, file)), { recursive: true });
    await writeFile(resolve(root, file), texts[worker]);
    written.push(file);
  }
  return written;
}

if (isEntry(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  process.exitCode = await runConfig(process.argv.slice(2), {
    root,
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
  });
}
