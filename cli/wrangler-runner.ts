// How `npm run deploy` runs wrangler: the `wrangler` on PATH (npm puts the project's own,
// node_modules/.bin, first), with no terminal to prompt on (stdin closed: wrangler fails rather
// than asks, and the deploy says why), its output captured, and shown as it comes when asked.
// A port (Wrangler), so the tests put a recording stub first on PATH instead.

import { spawn } from 'node:child_process';
import { CliFailure } from './command.ts';

export interface WranglerResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface WranglerCall {
  /** Show its output as it comes (a deploy), besides capturing it. */
  show?: boolean;
}

export type Wrangler = (args: readonly string[], call?: WranglerCall) => Promise<WranglerResult>;

/** The wrangler on `env.PATH`, run in `cwd`; shown output goes to `out` and `err`. */
export function spawnedWrangler(
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
  out: (text: string) => void,
  err: (text: string) => void,
): Wrangler {
  return (args, call = {}) =>
    new Promise((resolve, reject) => {
      const child = spawn('wrangler', [...args], {
        cwd,
        env: { ...env } as NodeJS.ProcessEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const stdout: string[] = [];
      const stderr: string[] = [];
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout.push(chunk);
        if (call.show) out(chunk);
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr.push(chunk);
        if (call.show) err(chunk);
      });
      child.on('error', (error) =>
        reject(
          new CliFailure(
            `could not run wrangler (${error.message}): run the deploy with \`npm run deploy\`, which puts the project's wrangler on PATH`,
          ),
        ),
      );
      child.on('close', (code) => resolve({ code: code ?? 1, stdout: stdout.join(''), stderr: stderr.join('') }));
    });
}
