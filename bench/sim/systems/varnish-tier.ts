// One tier of the Varnish baseline: varnishd in the foreground (Debian's package, bench/setup/peers/install.sh) with
// malloc storage, on a free loopback port, its VCL (varnish-tier.vcl) and working directory in a temporary directory
// removed on stop; it sends every miss to its next hop, a shaped link.

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from '../../setup/free-port.ts';
import {
  DEFAULT_TTL,
  fillTemplate,
  type OriginAddress,
  type Peer,
  parseOrigin,
  READY_PATH,
  startDaemon,
  temporaryDirectory,
  waitUntilReady,
} from '../../setup/peers/daemon.ts';
import type { Installed } from '../../setup/peers/detect.ts';

/** The tier's name in its Cache-Status member (`varnish-edge`, `varnish-shield`). */
export type TierRole = 'edge' | 'shield';

export interface VarnishTierOptions {
  role: TierRole;
  /** The next hop's link, `http://127.0.0.1:PORT`: the shield link (a location) or the origin link (the shield). */
  next: string;
  /** The origin: every tier asks with its Host; the shield prefixes its path. */
  origin: OriginAddress;
  /** Size of the malloc storage (`-s malloc,<n>m`): big enough that the run evicts nothing. */
  storageMiB: number;
  installed: Installed;
}

/**
 * Threads: one pool of at least 20 (Varnish's default is two pools of 100 each, per instance; a run starts seven
 * instances on two cores). Varnish adds threads as it needs them, up to thread_pool_max (5000). An idle keep-alive
 * connection is kept 65 s (timeout_idle; Varnish's default is 5 s), as nginx's keepalive_timeout in the nginx
 * baseline: a replay client's pause must not cost one system its connections and not another.
 */
const PARAMETERS = ['-p', 'thread_pools=1', '-p', 'thread_pool_min=20', '-p', 'timeout_idle=65'];

export async function startVarnishTier(options: VarnishTierOptions): Promise<Peer> {
  if (!Number.isInteger(options.storageMiB) || options.storageMiB < 1)
    throw new Error(`storageMiB must be a whole number of MiB ≥ 1, got ${options.storageMiB}`);
  const next = parseOrigin(options.next);
  const port = await freePort();
  const text = await fillTemplate(
    'varnish-tier.vcl',
    {
      TIER: options.role,
      NEXT_HOST: next.host,
      NEXT_PORT: next.port,
      NEXT_PATH: options.role === 'shield' ? options.origin.path : '',
      ORIGIN_AUTHORITY: options.origin.authority,
      READY_PATH,
    },
    new URL('./', import.meta.url),
  );
  const directory = await temporaryDirectory(`varnish-${options.role}`, (directory) =>
    writeFile(join(directory, 'tier.vcl'), text),
  );
  const args = [
    '-F',
    ...['-a', `127.0.0.1:${port}`],
    ...['-f', join(directory, 'tier.vcl')],
    ...['-s', `malloc,${options.storageMiB}m`],
    ...['-n', join(directory, 'work')],
    ...['-t', String(DEFAULT_TTL)],
    ...['-T', 'none'],
    ...PARAMETERS,
  ];
  const daemon = startDaemon('varnishd', options.installed.bin, args, directory);
  const url = `http://127.0.0.1:${port}`;
  await waitUntilReady('varnishd', daemon, url);
  return { name: `varnish ${options.role}`, url, version: options.installed.version, stop: daemon.stop };
}
