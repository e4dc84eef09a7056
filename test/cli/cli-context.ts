// A CliContext for tests: what the command prints, collected; its environment as given; its
// stack file in a temp folder of the test's own (absent unless the test writes one).

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliContext } from '../../cli/command.ts';

export interface TestContext extends CliContext {
  stdout: string[];
  stderr: string[];
  /** Everything printed, both streams. */
  printed(): string;
}

export function testContext(stackPath: string, env: Record<string, string> = {}, timeoutMs = 5_000): TestContext {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    env,
    stackPath,
    timeoutMs,
    stdout,
    stderr,
    out: (text) => stdout.push(text),
    err: (text) => stderr.push(text),
    printed: () => [...stdout, ...stderr].join('\n'),
  };
}

export interface StackFolder {
  /** Where the stack file goes (nothing there until `write`). */
  stackPath: string;
  write(stack: unknown): Promise<void>;
  remove(): Promise<void>;
}

export async function stackFolder(): Promise<StackFolder> {
  const folder = await mkdtemp(join(tmpdir(), 'tiercache-cli-'));
  const stackPath = join(folder, 'stack.json');
  return {
    stackPath,
    write: (stack) => writeFile(stackPath, typeof stack === 'string' ? stack : JSON.stringify(stack)),
    remove: () => rm(folder, { recursive: true, force: true }),
  };
}
