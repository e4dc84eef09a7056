// Bundles a worker entry the way wrangler does (esbuild, ESM, workerd export conditions), so Miniflare
// runs the same code shape as production.

import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const PROJECT_ROOT = fileURLToPath(new URL('../', import.meta.url));
/** A copy of each bundle lands here, for reading: workerd's stack traces name that file and its lines. */
const OUTPUT_DIRECTORY = join(PROJECT_ROOT, '.build', 'local');

export interface WorkerBundle {
  /** The module's code, to hand to Miniflare (never read back from disk). */
  code: string;
  /** Where a copy was written, e.g. `.build/local/worker/index.js` (absolute). */
  path: string;
}

/** Bundles `entry` (relative to the project root) with its npm dependencies. */
export async function bundleWorker(entry: string): Promise<WorkerBundle> {
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: PROJECT_ROOT,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    // As wrangler without nodejs_compat: packages' workerd/worker/browser builds, never Node's.
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    target: 'es2022',
    // workerd provides these; anything else must be bundled, or fail here rather than at runtime.
    external: ['cloudflare:*'],
    define: { 'process.env.NODE_ENV': '"development"' },
    // Inline, so a debugger or source-map tool can go from the written bundle to the TypeScript.
    sourcemap: 'inline',
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]?.text;
  if (code === undefined) throw new Error(`esbuild produced no output for ${entry}`);
  const path = join(OUTPUT_DIRECTORY, entry.replace(/\.[cm]?[jt]s$/, '.js'));
  await writeAtomically(path, code);
  return { code, path };
}

/** Test files start stacks in parallel processes: a reader never sees a half-written bundle. */
async function writeAtomically(path: string, contents: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temporary, contents);
  await rename(temporary, path);
}
