// What the local stack hands its operator (docs/operating.md): a stats token and a purge token (random
// unless set), the JSON request log when asked (LOG=1; quiet otherwise), and a note of where the stack runs.

import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { RawConfig } from '../shared/config/config.ts';
import { STATS_PATH } from '../shared/request/reserved-paths.ts';
import { PROJECT_ROOT } from './bundle.ts';

/**
 * Where the running stack is noted (generated, ignored by git, readable by this user only): `npm run stats`,
 * `npm run purge` and `npm run sign` read it when no --base is given.
 */
export const STACK_FILE = join(PROJECT_ROOT, '.build', 'local', 'stack.json');

export interface StackNote {
  url: string;
  statsToken: string;
  purgeToken: string;
  /** SIGNING_KEYS, for `npm run sign` (made up when SIGNED_PREFIXES is set without them); absent = none. */
  signingKeys?: string;
}

/** Sets the tokens and the log sample in `config` (the user's own values win). */
export function withOperatorSettings(
  config: RawConfig,
  env: NodeJS.ProcessEnv,
): { statsToken: string; purgeToken: string; signingKeys?: string } {
  config.STATS_TOKEN ??= randomUUID();
  config.PURGE_TOKEN ??= randomUUID();
  // Protected prefixes need a key to sign with: one made up for this run, as the tokens are.
  if (config.SIGNED_PREFIXES?.trim() && !config.SIGNING_KEYS?.trim())
    config.SIGNING_KEYS = `local=${randomBytes(32).toString('base64url')}`;
  // Locally the log is the terminal: every request when asked, none (but errors) otherwise.
  config.LOG_SAMPLE ??= env.LOG === '1' ? '1' : '0';
  // Counts show on the page at once: a local stack has one isolate per tier and little traffic.
  config.STATS_FLUSH_MS ??= '1000';
  const signing = config.SIGNING_KEYS?.trim() ? { signingKeys: config.SIGNING_KEYS } : {};
  return { statsToken: config.STATS_TOKEN, purgeToken: config.PURGE_TOKEN, ...signing };
}

/** Notes the stack for the CLI; answers a function that removes the note. */
export async function noteStack(note: StackNote): Promise<() => Promise<void>> {
  await mkdir(dirname(STACK_FILE), { recursive: true });
  await writeFile(STACK_FILE, `${JSON.stringify(note, null, 2)}\n`, { mode: 0o600 });
  return () => rm(STACK_FILE, { force: true });
}

/** The lines `npm start` prints about the stats page and the CLI. */
export function operatorLines(note: StackNote, logging: boolean): string[] {
  return [
    `  stats   ${note.url}${STATS_PATH}  token ${note.statsToken}  (a browser asks for it: any user name, the token as password)`,
    `          npm run stats    npm run purge -- --url /index.html    (they read ${relative(PROJECT_ROOT, STACK_FILE)})`,
    `  logs    ${logging ? 'one JSON line per request and tier, below' : 'LOG=1 npm start prints one JSON line per request and tier'}`,
  ];
}
