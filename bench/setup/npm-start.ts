// `npm start` as a user runs it: local/start.ts as a process of its own (in its own process group, so that workerd
// under it goes with it), its settings from the environment, its output kept, and always stopped.

import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const READY_MS = 120_000;
const STOP_GRACE_MS = 10_000;

export interface NpmStart {
  /** The edge's URL it printed (its front). */
  url: string;
  /** The second location it printed (`edge 2`: an edge in a workerd process of its own, the same shield), if any. */
  secondLocation: string | undefined;
  /** The workerd processes' parent: its pid. */
  pid: number;
  /** Everything it printed so far, stdout and stderr interleaved. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts it with `env` over this process's environment; resolves once it printed its edge, rejects if it exits. */
export async function startNpmStart(env: Record<string, string>): Promise<NpmStart> {
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', 'local/start.ts'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (!signalGroup(child, 'SIGTERM')) return;
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS))]);
    signalGroup(child, 'SIGKILL');
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start printed no edge in ${READY_MS / 1000} s`)), READY_MS);
      const look = () => {
        const edge = /ready in [\s\S]*?^\s+edge\s+(http:\/\/\S+)/m.exec(output)?.[1];
        if (edge === undefined) return;
        clearTimeout(timer);
        resolve(edge);
      };
      child.stdout.on('data', look);
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`npm start exited: ${output.trim().split('\n').slice(-5).join(' | ')}`));
      });
    });
    const secondLocation = /^\s+edge 2\s+(http:\/\/\S+)/m.exec(output)?.[1];
    return { url, secondLocation, pid: child.pid ?? 0, output: () => output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Signals the child's whole group (what it started too, after it exited); false when none of it is left. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): boolean {
  if (child.pid === undefined) return false;
  try {
    process.kill(-child.pid, signal);
    return true;
  } catch {
    return false;
  }
}
