// Every version a benchmark result depends on: Node, the runtime (workerd, driven by Miniflare),
// wrangler, the peers and the load generator; absent tools are said to be so.

import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../local/bundle.ts';
import type { Peers } from '../setup/peers/peers.ts';

export interface Versions {
  node: string;
  workerd: string;
  miniflare: string;
  wrangler: string;
  varnish: string;
  nginx: string;
  wrk: string;
}

export async function versions(peers: Peers): Promise<Versions> {
  return {
    node: process.version,
    workerd: await packageVersion('workerd'),
    miniflare: await packageVersion('miniflare'),
    wrangler: await packageVersion('wrangler'),
    varnish: peers.varnish?.version ?? 'not installed',
    nginx: peers.nginx ? `${peers.nginx.version}${peers.nginx.hasSlice ? '' : ' (no slice module)'}` : 'not installed',
    wrk: await wrkVersion(),
  };
}

async function packageVersion(name: string): Promise<string> {
  const path = join(PROJECT_ROOT, 'node_modules', name, 'package.json');
  return readFile(path, 'utf8').then(
    (text) => String((JSON.parse(text) as { version?: unknown }).version ?? 'unknown'),
    () => 'not found',
  );
}

/** `wrk -v` prints "wrk debian/4.1.0-3+b2 [epoll] …" and exits 1. */
async function wrkVersion(): Promise<string> {
  const output = await promisify(execFile)('wrk', ['-v'], { timeout: 5000 }).then(
    ({ stdout, stderr }) => stdout + stderr,
    (error: { stdout?: string; stderr?: string; code?: unknown }) =>
      error.code === 'ENOENT' ? '' : `${error.stdout ?? ''}${error.stderr ?? ''}`,
  );
  return /^wrk (\S+)/m.exec(output)?.[1] ?? 'not installed';
}
