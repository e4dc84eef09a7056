// `--from FILE|-`, as the commands that take a list read it (purge.ts, warm.ts): a file's text, or standard input's
// for `-`, parsed by the command; a file that cannot be read, or a line its parser refuses, is a usage error (exit 2).

import { readFile } from 'node:fs/promises';
import { usageError } from './cli-failure.ts';

/** What `--from path` holds, as `parse` reads it; `input` reads the file (tests give their own), `usage` the command's. */
export async function fromFile<T extends object>(
  path: string,
  input: (path: string) => Promise<string>,
  usage: string,
  parse: (text: string) => T | { error: string },
): Promise<T> {
  let text: string;
  try {
    text = await input(path);
  } catch (error) {
    throw usageError(`--from ${path}: ${error instanceof Error ? error.message : String(error)}`, usage);
  }
  const parsed = parse(text);
  if ('error' in parsed) throw usageError(`--from ${path}: ${parsed.error}`, usage);
  return parsed;
}

/** A file's text, or standard input's for `-`. */
export async function readInput(path: string): Promise<string> {
  if (path !== '-') return readFile(path, 'utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
