// An unmodified static file server as an `http` origin: Python's `http.server`, which decodes `%2F`, merges slashes
// and removes dot segments before it opens a file (as nginx and most static servers do), serving a temporary
// directory on a free loopback port. What it was asked for is read from its own request log.

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface StaticFileServer {
  url: string;
  /** The request targets it logged, in order (`GET /private/secret.txt`). */
  received(): string[];
  close(): Promise<void>;
}

/** How long the server may take to say which port it listens on. */
const START_TIMEOUT_MS = 10_000;

/** Serves `files` (relative path → body) until closed. */
export async function startStaticFileServer(files: Record<string, string>): Promise<StaticFileServer> {
  const root = await mkdtemp(join(tmpdir(), 'tiercache-static-'));
  for (const [path, body] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), body);
  }
  // -u: unbuffered, so the port line and each request's log line arrive as they are written. Port 0: the system's
  // choice of a free one, which the server prints.
  const child = spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', root], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log: string[] = [];
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => log.push(chunk));
  let port: number;
  try {
    port = await listeningPort(child);
  } catch (error) {
    child.kill();
    await rm(root, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    // `127.0.0.1 - - [date] "GET /path HTTP/1.1" 200 -`
    received: () => [...log.join('').matchAll(/"([A-Z]+ \S+) HTTP\/1\.[01]"/g)].map((match) => match[1] ?? ''),
    close: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill();
        await exited;
      }
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** The port from `Serving HTTP on 127.0.0.1 port 40123 (...)`. */
function listeningPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`http.server did not start: ${out}`)), START_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`http.server exited with ${code}: ${out}`));
    });
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const port = / port (\d+) /.exec(out)?.[1];
      if (port !== undefined) {
        clearTimeout(timer);
        resolve(Number(port));
      }
    });
  });
}
