// What the local stack hands its operator (docs/operating.md): a stats token and a purge token (random
// unless set), the JSON request log when asked (LOG=1; quiet otherwise), and a note of where the stack runs,
// one file per stack (by its edge's port), so that several stacks run side by side and the CLI reaches each.

import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { RawConfig } from '../shared/config/config.ts';
import { PURGE_PATH, STATS_PATH } from '../shared/request/reserved-paths.ts';
import { PROJECT_ROOT } from './bundle.ts';

/**
 * Where each running stack is noted, `<port>.json` (generated, ignored by git, readable by this user only):
 * `npm run stats`, `npm run purge` and `npm run sign` read them when no --base is given (cli/local-stacks.ts).
 */
export const STACKS_DIR = join(PROJECT_ROOT, '.build', 'local', 'stacks');

export interface StackNote {
  url: string;
  statsToken: string;
  purgeToken: string;
  /** SIGNING_KEYS, for `npm run sign` (made up when SIGNED_PREFIXES is set without them); absent = none. */
  signingKeys?: string;
  /** The stack's other edge locations (its second location's URL), each with its own cache, the same shield. */
  locations?: string[];
}

/** Which tokens this run made up (printed, being this run's own) rather than took from the user (never printed). */
export interface MadeUp {
  statsToken: boolean;
  purgeToken: boolean;
}

/** Sets the tokens and the log sample in `config` (the user's own values win). */
export function withOperatorSettings(
  config: RawConfig,
  env: NodeJS.ProcessEnv,
): { statsToken: string; purgeToken: string; signingKeys?: string; madeUp: MadeUp } {
  const madeUp = { statsToken: config.STATS_TOKEN === undefined, purgeToken: config.PURGE_TOKEN === undefined };
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
  return { statsToken: config.STATS_TOKEN, purgeToken: config.PURGE_TOKEN, ...signing, madeUp };
}

/** The note's file of the stack whose edge is at `url`, in `dir`. */
function stackFile(url: string, dir = STACKS_DIR): string {
  return join(dir, `${new URL(url).port}.json`);
}

/**
 * Notes the stack for the CLI, with this process's id (a note whose process is gone is the CLI's to ignore);
 * answers a function that removes the note.
 */
export async function noteStack(note: StackNote, dir = STACKS_DIR): Promise<() => Promise<void>> {
  const file = stackFile(note.url, dir);
  await mkdir(dir, { recursive: true });
  await writeFile(file, `${JSON.stringify({ ...note, pid: process.pid }, null, 2)}\n`, { mode: 0o600 });
  return () => rm(file, { force: true });
}

/**
 * The lines `npm start` prints about the stats page, purging and the CLI: this run's tokens (the user's own are
 * named, not printed), with a purge ready to paste, by the CLI and by curl.
 */
export function operatorLines(note: StackNote, madeUp: MadeUp, logging: boolean): string[] {
  const port = new URL(note.url).port;
  const shown = (token: string, own: boolean, name: string): string => (own ? token : `(yours, ${name})`);
  const purgeToken = madeUp.purgeToken ? note.purgeToken : '$PURGE_TOKEN';
  const body = JSON.stringify({ urls: ['/index.html'] });
  return [
    `  stats   ${note.url}${STATS_PATH}  token ${shown(note.statsToken, madeUp.statsToken, 'STATS_TOKEN')}  (a browser asks for it: any user name, the token as password)`,
    `  purge   ${note.url}${PURGE_PATH}  token ${shown(note.purgeToken, madeUp.purgeToken, 'PURGE_TOKEN')}`,
    `          npm run purge -- --url /index.html --port ${port}`,
    `          curl -X POST ${note.url}${PURGE_PATH} -H 'Authorization: Bearer ${purgeToken}' -H 'Content-Type: application/json' -d '${body}'`,
    `          npm run stats -- --port ${port}    (the CLI reads ${relative(PROJECT_ROOT, stackFile(note.url))}; --port picks this stack when several run)`,
    `  logs    ${logging ? 'one JSON line per request and tier, below' : 'LOG=1 npm start prints one JSON line per request and tier'}`,
  ];
}
