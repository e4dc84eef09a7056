// What a command touches outside itself, handed in so that the tests can run the commands as
// functions: the environment (tokens), where the local stack describes itself, where text
// goes, and how long an answer may take. The entries (stats.ts, purge.ts) hand in the process's.

import { fileURLToPath } from 'node:url';

export interface CliContext {
  env: Readonly<Record<string, string | undefined>>;
  /** `.build/local/stack.json`, written by `npm start` (local-stack.ts). */
  stackPath: string;
  /** Standard output: the answer (tables, JSON). */
  out: (text: string) => void;
  /** Standard error: usage and why it failed. */
  err: (text: string) => void;
  /** How long the edge has to answer, headers and body, before the command gives up. */
  timeoutMs: number;
}

/** Where `npm start` writes the local stack's URL and tokens. */
export const LOCAL_STACK_PATH = fileURLToPath(new URL('../.build/local/stack.json', import.meta.url));

const TIMEOUT_MS = 30_000;

export function processContext(): CliContext {
  return {
    env: process.env,
    stackPath: LOCAL_STACK_PATH,
    out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
    err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
    timeoutMs: TIMEOUT_MS,
  };
}
