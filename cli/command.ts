// What a command runs in: the context handed to it (so that the tests run the commands as functions) and whether its
// module is the one node was asked to run. Flags are flags.ts, printing print.ts, the edge's API edge-api.ts, failures
// and exit codes cli-failure.ts.

import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { LOCAL_STACKS_DIR } from './local-stacks.ts';

/** What a command touches outside itself, handed in so that the tests run the commands as functions. */
export interface CliContext {
  env: Readonly<Record<string, string | undefined>>;
  /** `.build/local/stacks/`, one note per running `npm start` (local-stacks.ts). */
  stacksDir: string;
  /** Standard output: the answer (tables, JSON). */
  out: (text: string) => void;
  /** Standard error: usage and why it failed. */
  err: (text: string) => void;
  /** How long the edge has to answer, headers and body, before the command gives up. */
  timeoutMs: number;
}

const TIMEOUT_MS = 30_000;

export function processContext(): CliContext {
  return {
    env: process.env,
    stacksDir: LOCAL_STACKS_DIR,
    out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
    err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
    timeoutMs: TIMEOUT_MS,
  };
}

/** Whether the module at `moduleUrl` is the one node was asked to run (`node cli/stats.ts`), not one a test imports. */
export function isEntry(moduleUrl: string): boolean {
  const main = process.argv[1];
  if (main === undefined) return false;
  try {
    // Node names the entry module by its real path (symlinks resolved), so the argument is too.
    return pathToFileURL(realpathSync(main)).href === moduleUrl;
  } catch {
    return false;
  }
}
