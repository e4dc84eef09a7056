// What `npm start` says about the stack it runs (`.build/local/stack.json`): the edge's URL and
// the tokens it made up for stats and purge. The commands go there when told of no other
// deployment. A file that is not what `npm start` writes is reported, not guessed around.

import { readFile } from 'node:fs/promises';
import { CliFailure, EXIT_USAGE } from './cli-failure.ts';

export interface LocalStack {
  url: string;
  statsToken?: string;
  purgeToken?: string;
}

/** The stack file, or undefined when there is none (no stack started here). */
export async function readLocalStack(path: string): Promise<LocalStack | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw new CliFailure(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`, EXIT_USAGE);
  }
  const stack = asLocalStack(parse(text));
  if (stack === undefined) {
    throw new CliFailure(
      `${path} is not what \`npm start\` writes (expected {"url": "http://…", "statsToken": "…", "purgeToken": "…"}): restart it with \`npm start\``,
      EXIT_USAGE,
    );
  }
  return stack;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function asLocalStack(value: unknown): LocalStack | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { url, statsToken, purgeToken } = value as Record<string, unknown>;
  if (typeof url !== 'string' || !URL.canParse(url)) return undefined;
  const stack: LocalStack = { url };
  if (typeof statsToken === 'string' && statsToken !== '') stack.statsToken = statsToken;
  if (typeof purgeToken === 'string' && purgeToken !== '') stack.purgeToken = purgeToken;
  return stack;
}

function isMissing(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'ENOENT';
}
