// An unmodified static file server in front of a directory: Python's `http.server`, which ignores Range (every GET
// answers 200 with the whole file, its Content-Length and Last-Modified), as many plain origins do. On a free loopback
// port, as a child process of this one, stopped by its own id.

import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from './free-port.ts';

/** How long the interpreter may take to start listening. */
const START_WAIT_MS = 10_000;

export interface StaticFileServer {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  close(): Promise<void>;
}

/** `python3 -m http.server` serving `directory` on 127.0.0.1; rejects when it does not listen within START_WAIT_MS. */
export async function startStaticFileServer(directory: string): Promise<StaticFileServer> {
  const port = await freePort();
  const child = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', directory], {
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const started = Date.now();
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() - started > START_WAIT_MS) {
      await close();
      throw new Error(`python3 -m http.server did not listen on 127.0.0.1:${port} (${describe(child)})`);
    }
    await delay(50);
  }
  return { url: `http://127.0.0.1:${port}`, close };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function describe(child: ChildProcess): string {
  return child.exitCode === null ? 'still starting' : `exited with ${child.exitCode}`;
}
