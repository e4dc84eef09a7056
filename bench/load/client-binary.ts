// Running an HTTP client binary (curl, wget): bounded in time, its output captured, and
// "not installed" told apart from a failure. Only loopback is ever a target, never via a proxy.

import { spawn } from 'node:child_process';

/** Output kept per stream; more is dropped (a client's progress meter must not fill memory). */
const MAX_OUTPUT_CHARS = 1024 * 1024;
const PROXY_VARIABLES = ['http_proxy', 'https_proxy', 'all_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY'];

export interface ClientRun {
  /** Exit code; `null` when the client was killed. */
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** The first line of `<command> --version`; `undefined` when the command is not installed. */
export async function clientVersion(command: string): Promise<string | undefined> {
  const run = await runClient(command, ['--version'], { timeoutMs: 10_000 });
  return run?.stdout.split('\n')[0]?.trim();
}

/** Runs `command` to its end or until `timeoutMs` (then SIGKILL); `undefined` when not installed. */
export function runClient(
  command: string,
  args: readonly string[],
  options: { cwd?: string; timeoutMs: number },
): Promise<ClientRun | undefined> {
  const env: NodeJS.ProcessEnv = { ...process.env, LC_ALL: 'C', no_proxy: '127.0.0.1', NO_PROXY: '127.0.0.1' };
  for (const name of PROXY_VARIABLES) delete env[name];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      cwd: options.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: options.timeoutMs,
      killSignal: 'SIGKILL',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('latin1').on('data', (chunk: string) => {
      stdout = (stdout + chunk).slice(0, MAX_OUTPUT_CHARS);
    });
    child.stderr.setEncoding('latin1').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-MAX_OUTPUT_CHARS);
    });
    child.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ENOENT' ? resolve(undefined) : reject(error),
    );
    child.once('close', (code, signal) => {
      const timedOut = signal === 'SIGKILL' && performance.now() - started >= options.timeoutMs;
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}

/** A one-line account of a run that went wrong: exit code or timeout, and the client's last words. */
export function describeRun(run: ClientRun): string {
  const lastWords = run.stderr.trim().split('\n').at(-1)?.trim() ?? '';
  const ending = run.timedOut ? 'timed out' : `exit code ${run.code}`;
  return lastWords ? `${ending}: ${lastWords}` : ending;
}
