// The processes a conformance run starts, each in a process group of its own (so that workerd under
// `npm start` goes with it), their output kept for a failure's report, and always stopped.
import { type ChildProcess, spawn } from 'node:child_process';

/** What is kept of a child's output for the report of a failure: its last lines, not a whole run's. */
const OUTPUT_KEPT = 64 * 1024;
/** How long a stopped child may take to close what it started before its group is killed. */
const STOP_GRACE_MS = 10_000;
/** Between two readiness probes, and the most one probe may take. */
const PROBE_EVERY_MS = 200;
const PROBE_TIMEOUT_MS = 2_000;

export interface Child {
  name: string;
  process: ChildProcess;
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  exited: Promise<number | string>;
  /** The last of its stdout and stderr, interleaved. */
  output(): string;
  /** Its whole stdout (for a child whose stdout is its answer). */
  stdout(): string;
}

/** Starts `command` as the leader of a new process group, its output kept. */
export function startChild(
  name: string,
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; keepStdout?: boolean },
): Child {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, detached: true, stdio: 'pipe' });
  child.stdin.end();
  let tail = '';
  let whole = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-OUTPUT_KEPT);
  };
  child.stdout.on('data', (chunk: Buffer) => {
    if (options.keepStdout) whole += chunk.toString('utf8');
    else keep(chunk);
  });
  child.stderr.on('data', keep);
  const exited = new Promise<number | string>((resolve) => {
    child.once('error', (error) => {
      tail += `\n${name}: ${error.message}`;
      resolve(error.message);
    });
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  return { name, process: child, exited, output: () => tail, stdout: () => whole };
}

/** Asks the child's group to stop (SIGTERM), then kills the group if it has not exited in time. */
export async function stopChild(child: Child): Promise<void> {
  if (!signalGroup(child, 'SIGTERM')) return;
  let timer: NodeJS.Timeout | undefined;
  const gone = await Promise.race([
    child.exited.then(() => true),
    new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), STOP_GRACE_MS);
    }),
  ]);
  clearTimeout(timer);
  // The leader may be gone while something it started (workerd) is not: the group goes too.
  signalGroup(child, 'SIGKILL');
  if (!gone) await child.exited;
}

/** Kills the child's whole group at once: for a process exit that cannot wait. */
export function killNow(child: Child): void {
  signalGroup(child, 'SIGKILL');
}

/** Resolves once `url` answers HTTP at all (any status); rejects when the child exits or `ms` pass first. */
export async function waitForHttp(url: string, child: Child, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  let exit: number | string | undefined;
  void child.exited.then((code) => {
    exit = code;
  });
  for (;;) {
    if (exit !== undefined) throw new Error(`${child.name} exited (${exit}) before it answered ${url}`);
    // A socket that accepts and closes (a port's probe, a server not yet serving) is not an answer.
    const answered = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) }).then(
      async (response) => {
        await response.body?.cancel();
        return true;
      },
      () => false,
    );
    if (answered) return;
    if (Date.now() > deadline) throw new Error(`${child.name} did not answer ${url} within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
  }
}

/** `promise`, or a rejection naming `what` once `ms` have passed (the work itself is stopped by the caller). */
export function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Signals the child's process group; false when there is none left. */
function signalGroup(child: Child, signal: NodeJS.Signals): boolean {
  const pid = child.process.pid;
  if (pid === undefined) return false;
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false; // ESRCH: the group has no process left
  }
}
