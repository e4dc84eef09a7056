// nginx as two peers from one process: proxy_cache on whole objects on one port, and the slice
// module on another; prefix, caches, logs and pid in a temporary directory removed on stop.

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from '../free-port.ts';
import {
  DEFAULT_TTL,
  fillTemplate,
  type Peer,
  parseOrigin,
  READY_PATH,
  startDaemon,
  temporaryDirectory,
  waitUntilReady,
} from './daemon.ts';
import { detectNginx, type Installed } from './detect.ts';

export interface NginxOptions {
  /** The origin's base URL, plain HTTP: `http://host:port` or `http://host:port/prefix`. */
  origin: string;
  /** Bytes per slice, as tiercache's SLICE_SIZE. */
  sliceSize: number;
  /** Bound on each cache's size on disk (`max_size`); none when absent. */
  storageMiB?: number;
  /** nginx to run, as detectPeers() found it; looked up when absent. */
  installed?: Installed & { hasSlice: boolean };
}

export interface NginxPeers {
  /** proxy_cache, whole objects. */
  cache: Peer;
  /** proxy_cache with the slice module. */
  slice: Peer;
}

export async function startNginx(options: NginxOptions): Promise<NginxPeers> {
  if (!Number.isInteger(options.sliceSize) || options.sliceSize < 1)
    throw new Error(`sliceSize must be a whole number of bytes ≥ 1, got ${options.sliceSize}`);
  const origin = parseOrigin(options.origin);
  const installed = options.installed ?? (await detectNginx());
  if (!installed) throw new Error('nginx is not installed: run bench/setup/peers/install.sh');
  if (!installed.hasSlice)
    throw new Error(`nginx at ${installed.bin} was built without the slice module (--with-http_slice_module)`);
  const cachePort = await freePort();
  let slicePort = await freePort();
  for (let attempt = 0; slicePort === cachePort && attempt < 10; attempt++) slicePort = await freePort();
  const values = {
    CACHE_PORT: cachePort,
    SLICE_PORT: slicePort,
    SLICE_SIZE: options.sliceSize,
    DEFAULT_TTL,
    MAX_SIZE: options.storageMiB ? `max_size=${options.storageMiB}m` : '',
    ORIGIN_AUTHORITY: origin.authority,
    ORIGIN_PATH: origin.path,
    READY_PATH,
  };
  const directory = await temporaryDirectory('nginx', async (prefix) => {
    await writeFile(join(prefix, 'nginx.conf'), await fillTemplate('nginx.conf', { ...values, PREFIX: prefix }));
  });
  const conf = join(directory, 'nginx.conf');
  // -e: errors before the config is read go to the prefix too, not to /var/log/nginx.
  const daemon = startDaemon(
    'nginx',
    installed.bin,
    ['-p', directory, '-c', conf, '-e', join(directory, 'error.log')],
    directory,
  );
  const cacheUrl = `http://127.0.0.1:${cachePort}`;
  const sliceUrl = `http://127.0.0.1:${slicePort}`;
  await waitUntilReady('nginx', daemon, cacheUrl);
  await waitUntilReady('nginx', daemon, sliceUrl);
  // One process behind both: stopping either stops both, and a second stop() is a no-op.
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= daemon.stop());
  return {
    cache: { name: 'nginx proxy_cache', url: cacheUrl, version: installed.version, stop },
    slice: { name: `nginx slice ${describeSize(options.sliceSize)}`, url: sliceUrl, version: installed.version, stop },
  };
}

function describeSize(bytes: number): string {
  return bytes % 2 ** 20 === 0 ? `${bytes / 2 ** 20} MiB` : `${bytes} B`;
}
