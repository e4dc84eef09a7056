// The settings file (tiercache.config.ts): read once, as the module it is; and the one value a deploy writes back
// into it, the KV namespace id it found or created, so that the committed configurations bind that namespace.

import { readFile, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { CliFailure, EXIT_USAGE } from './cli-failure.ts';
import type { DeploySettings } from './deploy-settings.ts';

/** The settings file when none is named. */
export const SETTINGS_FILE = 'tiercache.config.ts';

/** The field the deploy writes: `purgesNamespaceId: '<id>'` (or JSON's `"purgesNamespaceId": "<id>"`). */
const NAMESPACE_ID_FIELD = /(["']?purgesNamespaceId["']?\s*:\s*)(["'])[^"'\n]*\2/g;

/** The settings `path` exports by default; a CliFailure when it cannot be read or exports something else. */
export async function loadSettings(path: string): Promise<DeploySettings> {
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

/**
 * Writes `id` as purgesNamespaceId in the settings file at `path`, in place of the value there; a CliFailure saying
 * what to write by hand when the file has no such field, or more than one.
 */
export async function recordNamespaceId(path: string, id: string): Promise<void> {
  const text = await readFile(path, 'utf8');
  const found = text.match(NAMESPACE_ID_FIELD) ?? [];
  if (found.length !== 1)
    throw new CliFailure(
      `could not write the KV namespace's id into ${path} (${found.length === 0 ? 'no' : 'more than one'} purgesNamespaceId field): write \`purgesNamespaceId: '${id}'\` in it, run \`npm run config\`, and deploy again`,
    );
  await writeFile(
    path,
    text.replace(NAMESPACE_ID_FIELD, (_, head: string, quote: string) => `${head}${quote}${id}${quote}`),
  );
}
