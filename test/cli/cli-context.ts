// A CliContext for tests: what the command prints, collected; its environment as given; its
// folder of stack notes a temp folder of the test's own (empty unless the test writes a note).

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliContext } from '../../cli/command.ts';

export interface TestContext extends CliContext {
  stdout: string[];
  stderr: string[];
  /** Everything printed, both streams. */
  printed(): string;
}

export function testContext(stacksDir: string, env: Record<string, string> = {}, timeoutMs = 5_000): TestContext {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    env,
    stacksDir,
    timeoutMs,
    stdout,
    stderr,
    out: (text) => stdout.push(text),
    err: (text) => stderr.push(text),
    printed: () => [...stdout, ...stderr].join('\n'),
  };
}

export interface StackFolder {
  /** Where the stack notes go, one per port, as `npm start` writes them (nothing there until `write`). */
  stacksDir: string;
  /** The file `write` writes for a note at `url` (`<port>.json`; `note.json` for a note without a port). */
  pathFor(url?: string): string;
  /** Writes a note, named after its URL's port; answers its path. */
  write(stack: unknown): Promise<string>;
  remove(): Promise<void>;
}

export async function stackFolder(): Promise<StackFolder> {
  const folder = await mkdtemp(join(tmpdir(), 'tiercache-cli-'));
  const stacksDir = join(folder, 'stacks');
  await mkdir(stacksDir);
  const pathFor = (url?: string): string => {
    const port = url !== undefined && URL.canParse(url) ? new URL(url).port : '';
    return join(stacksDir, `${port === '' ? 'note' : port}.json`);
  };
  return {
    stacksDir,
    pathFor,
    async write(stack) {
      const url = typeof stack === 'object' && stack !== null ? (stack as { url?: unknown }).url : undefined;
      const path = pathFor(typeof url === 'string' ? url : undefined);
      await writeFile(path, typeof stack === 'string' ? stack : JSON.stringify(stack));
      return path;
    },
    remove: () => rm(folder, { recursive: true, force: true }),
  };
}
