// One tier of the nginx slice baseline: nginx with its slice module (Debian's package, bench/setup/peers/install.sh)
// in the foreground, one worker, on a free loopback port, proxy_cache in a temporary prefix removed on stop; every
// miss becomes slice requests to its next hop, a shaped link (nginx-slice-tier.conf).

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
import type { TierRole } from './varnish-tier.ts';

export interface NginxSliceTierOptions {
  role: TierRole;
  /** The next hop's link, `http://127.0.0.1:PORT`: the shield link (a location) or the origin link (the shield). */
  next: string;
  /** The origin: every tier asks with its Host; the shield prefixes its path. */
  origin: OriginAddress;
  /** Bytes per slice: tiercache's SLICE_SIZE. */
  sliceSize: number;
  installed: Installed & { hasSlice: boolean };
}

export async function startNginxSliceTier(options: NginxSliceTierOptions): Promise<Peer> {
  if (!Number.isInteger(options.sliceSize) || options.sliceSize < 1)
    throw new Error(`sliceSize must be a whole number of bytes ≥ 1, got ${options.sliceSize}`);
  if (!options.installed.hasSlice)
    throw new Error(`nginx at ${options.installed.bin} was built without the slice module (--with-http_slice_module)`);
  const next = parseOrigin(options.next);
  const port = await freePort();
  const values = {
    TIER: options.role,
    PORT: port,
    NEXT_AUTHORITY: next.authority,
    NEXT_PATH: options.role === 'shield' ? options.origin.path : '',
    ORIGIN_AUTHORITY: options.origin.authority,
    SLICE_SIZE: options.sliceSize,
    DEFAULT_TTL,
    READY_PATH,
  };
  const directory = await temporaryDirectory(`nginx-${options.role}`, async (prefix) => {
    const text = await fillTemplate(
      'nginx-slice-tier.conf',
      { ...values, PREFIX: prefix },
      new URL('./', import.meta.url),
    );
    await writeFile(join(prefix, 'nginx.conf'), text);
  });
  // -e: errors before the config is read go to the prefix too, not to /var/log/nginx.
  const daemon = startDaemon(
    'nginx',
    options.installed.bin,
    ['-p', directory, '-c', join(directory, 'nginx.conf'), '-e', join(directory, 'error.log')],
    directory,
  );
  const url = `http://127.0.0.1:${port}`;
  await waitUntilReady('nginx', daemon, url);
  return { name: `nginx slice ${options.role}`, url, version: options.installed.version, stop: daemon.stop };
}
