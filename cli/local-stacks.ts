// The local stacks the commands can reach without --base: each `npm start` notes itself in a file of its own,
// named after its edge's port (`.build/local/stacks/8787.json`, local/operator.ts), and removes it when it stops.
// Several may run at once; --port picks one, --base one by its URL; a note whose process is gone is removed.

import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliFailure, EXIT_USAGE } from './cli-failure.ts';

/** Where `npm start` notes each stack it runs (local/operator.ts STACKS_DIR; test/cli/local-stacks.test.ts checks both agree). */
export const LOCAL_STACKS_DIR = fileURLToPath(new URL('../.build/local/stacks/', import.meta.url));

/** The flag that picks a local stack by its edge's port when several run. */
export const PORT_FLAG = 'port';

/** What `npm start` says of one stack it runs: the edge's URL, the tokens it made up, and its process. */
export interface LocalStack {
  url: string;
  /** The note's file, named in messages about it. */
  path: string;
  /** The `npm start` process; absent from a note written without it (then taken as running). */
  pid?: number;
  statsToken?: string;
  purgeToken?: string;
  signingKeys?: string; // SIGNING_KEYS as the stack runs with them (`npm run sign`)
  /** The stack's other edge locations (`npm start`'s second location): same objects, its own cache. */
  locations?: string[];
}

const NOTE = /^\d{1,5}\.json$/;

/**
 * The running stacks' notes in `dir`, by port. A note whose process has gone (killed rather than stopped, so it could
 * not remove its note) is removed and skipped; one `npm start` did not write is reported, not guessed at.
 */
export async function readLocalStacks(dir: string): Promise<LocalStack[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new CliFailure(`cannot read ${dir}: ${error instanceof Error ? error.message : String(error)}`, EXIT_USAGE);
  }
  const stacks: LocalStack[] = [];
  for (const name of names.filter((entry) => entry.endsWith('.json')).sort(byPort)) {
    const stack = await readNote(join(dir, name));
    if (stack === undefined) continue;
    if (stack.pid !== undefined && !isRunning(stack.pid)) await rm(stack.path, { force: true });
    else stacks.push(stack);
  }
  return stacks;
}

/** The stack a command without --base goes to: --port's, else the only one; a CliFailure saying what to pass else. */
export function chooseLocalStack(stacks: readonly LocalStack[], port: number | undefined): LocalStack {
  if (port !== undefined) {
    const chosen = stacks.find((stack) => portOf(stack.url) === port);
    if (chosen !== undefined) return chosen;
    const others = stacks.length === 0 ? '' : `; running: ${stacks.map((stack) => portOf(stack.url)).join(', ')}`;
    throw new CliFailure(
      `no local stack on port ${port}: start one with \`PORT=${port} npm start\`${others}`,
      EXIT_USAGE,
    );
  }
  const [only, ...more] = stacks;
  if (only === undefined) throw new CliFailure('no local stack: start it with `npm start`, or pass --base', EXIT_USAGE);
  if (more.length === 0) return only;
  throw new CliFailure(
    [
      `${stacks.length} local stacks are running: pass --${PORT_FLAG} N (or --base URL) to say which`,
      ...stacks.map((stack) => `  --${PORT_FLAG} ${portOf(stack.url)}  ${stack.url}`),
    ].join('\n'),
    EXIT_USAGE,
  );
}

/**
 * The stack one of whose other locations (`npm start`'s second location) is at `base`'s origin, if one runs: the same
 * objects, but not its tokens, which belong to the stack's own edge.
 */
export function stackWithLocation(stacks: readonly LocalStack[], base: URL): LocalStack | undefined {
  return stacks.find((stack) => stack.locations?.some((location) => new URL(location).origin === base.origin));
}

/** The local stack whose edge is at `base`'s origin (its tokens may go there), if one runs. */
export function stackAt(stacks: readonly LocalStack[], base: URL): LocalStack | undefined {
  return stacks.find((stack) => new URL(stack.url).origin === base.origin);
}

/** --port's value as a port number; a usage failure for anything else. */
export function parsePort(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= 1 && port <= 65_535))
    throw new CliFailure(
      `expected --${PORT_FLAG} to be the local edge's port, 1..65535; got ${JSON.stringify(text)}`,
      EXIT_USAGE,
    );
  return port;
}

/** The port a URL names, its scheme's default when it names none. */
export function portOf(url: string): number {
  const parsed = new URL(url);
  return parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
}

async function readNote(path: string): Promise<LocalStack | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined; // its stack stopped meanwhile
    throw new CliFailure(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`, EXIT_USAGE);
  }
  const stack = asLocalStack(text, path);
  if (stack === undefined) {
    throw new CliFailure(
      `${path} is not what \`npm start\` writes (expected {"url": "http://…", "statsToken": "…", "purgeToken": "…"}): restart it with \`npm start\``,
      EXIT_USAGE,
    );
  }
  return stack;
}

function asLocalStack(text: string, path: string): LocalStack | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { url, pid, statsToken, purgeToken, signingKeys, locations } = value as Record<string, unknown>;
  if (typeof url !== 'string' || !URL.canParse(url)) return undefined;
  const stack: LocalStack = { url, path };
  if (typeof pid === 'number' && Number.isInteger(pid) && pid > 0) stack.pid = pid;
  if (typeof statsToken === 'string' && statsToken !== '') stack.statsToken = statsToken;
  if (typeof purgeToken === 'string' && purgeToken !== '') stack.purgeToken = purgeToken;
  if (typeof signingKeys === 'string' && signingKeys !== '') stack.signingKeys = signingKeys;
  if (Array.isArray(locations))
    stack.locations = locations.filter((entry): entry is string => typeof entry === 'string' && URL.canParse(entry));
  return stack;
}

/** Whether a process `pid` exists: signal 0 checks without sending (EPERM: it exists, as another user's). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Notes by port number (8787 before 18787), then any other name. */
function byPort(a: string, b: string): number {
  const [left, right] = [
    NOTE.test(a) ? Number.parseInt(a, 10) : Infinity,
    NOTE.test(b) ? Number.parseInt(b, 10) : Infinity,
  ];
  return left === right ? a.localeCompare(b) : left - right;
}
