// Varnish as a peer: varnishd in the foreground with malloc storage, on a free loopback port,
// its working directory (-n) and VCL in a temporary directory removed on stop.

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
import { detectVarnish, type Installed } from './detect.ts';

export interface VarnishOptions {
  /** The origin's base URL, plain HTTP: `http://host:port` or `http://host:port/prefix`. */
  origin: string;
  /** Size of the malloc storage (`-s malloc,<n>m`). */
  storageMiB: number;
  /** varnishd to run, as detectPeers() found it; looked up when absent. */
  installed?: Installed;
}

export async function startVarnish(options: VarnishOptions): Promise<Peer> {
  if (!Number.isInteger(options.storageMiB) || options.storageMiB < 1)
    throw new Error(`storageMiB must be a whole number of MiB ≥ 1, got ${options.storageMiB}`);
  const origin = parseOrigin(options.origin);
  const installed = options.installed ?? (await detectVarnish());
  if (!installed) throw new Error('varnishd is not installed: run bench/setup/peers/install.sh');
  const port = await freePort();
  const text = await fillTemplate('varnish.vcl', {
    ORIGIN_HOST: origin.host,
    ORIGIN_PORT: origin.port,
    ORIGIN_AUTHORITY: origin.authority,
    ORIGIN_PATH: origin.path,
    READY_PATH,
  });
  const directory = await temporaryDirectory('varnish', (directory) => writeFile(join(directory, 'peer.vcl'), text));
  const vcl = join(directory, 'peer.vcl');
  const args = [
    '-F',
    ...['-a', `127.0.0.1:${port}`],
    ...['-f', vcl],
    ...['-s', `malloc,${options.storageMiB}m`],
    ...['-n', join(directory, 'work')],
    ...['-t', String(DEFAULT_TTL)],
    ...['-T', 'none'],
  ];
  const daemon = startDaemon('varnishd', installed.bin, args, directory);
  const url = `http://127.0.0.1:${port}`;
  await waitUntilReady('varnishd', daemon, url);
  return { name: 'varnish', url, version: installed.version, stop: daemon.stop };
}
