// Which peers this machine has: varnishd and nginx found on PATH or in the sbin directories
// Debian installs them to (often not on a user's PATH), and what their -V says.

import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SBIN_DIRECTORIES = ['/usr/local/sbin', '/usr/sbin', '/sbin'];
/** nginx -V lists the configure arguments; the slice module is not built by default. */
const SLICE_MODULE = '--with-http_slice_module';

export interface Installed {
  version: string;
  bin: string;
}

export interface Peers {
  varnish?: Installed;
  nginx?: Installed & { hasSlice: boolean };
}

/** The peers installed here; an absent key means that peer is not (bench/setup/peers/install.sh installs both). */
export async function detectPeers(): Promise<Peers> {
  const [varnish, nginx] = await Promise.all([detectVarnish(), detectNginx()]);
  return { ...(varnish && { varnish }), ...(nginx && { nginx }) };
}

export async function detectVarnish(): Promise<Installed | undefined> {
  const bin = await findExecutable('varnishd');
  // "varnishd (varnish-7.1.1 revision 7cee1c5…)", on stderr.
  const version = bin && (await versionText(bin))?.match(/varnish-(\d[\w.~+-]*)/)?.[1];
  return bin && version ? { bin, version } : undefined;
}

export async function detectNginx(): Promise<(Installed & { hasSlice: boolean }) | undefined> {
  const bin = await findExecutable('nginx');
  const text = bin && (await versionText(bin));
  // "nginx version: nginx/1.22.1", then "configure arguments: …", on stderr.
  const version = text?.match(/nginx\/(\d[\w.~+-]*)/)?.[1];
  return bin && text && version ? { bin, version, hasSlice: text.includes(SLICE_MODULE) } : undefined;
}

/** `bin -V`'s output, both streams (both daemons print it on stderr); undefined if it fails. */
async function versionText(bin: string): Promise<string | undefined> {
  try {
    const { stdout, stderr } = await run(bin, ['-V'], { timeout: 5000 });
    return `${stdout}${stderr}`;
  } catch {
    return undefined;
  }
}

async function findExecutable(name: string): Promise<string | undefined> {
  const directories = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), ...SBIN_DIRECTORIES];
  for (const directory of new Set(directories)) {
    const path = join(directory, name);
    if (
      await access(path, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return path;
  }
  return undefined;
}
