// What `npm ci` says about engines on the oldest Node the project admits. npm checks each
// package's `engines.node` against the Node that runs npm, not the one that runs the scripts:
// the scripts run on the `node` devDependency (node_modules/.bin comes first on an npm
// script's PATH), so a Cloudflare tool that wants Node 22 works from a Node 20 install, and
// its warning is the one the README explains. Any other warning is a defect: either a package
// that the scripts' Node cannot run, or an optional native binding that npm would silently
// not install (npm marks an optional package whose engines reject the running Node as inert:
// below Node 20.19 that is rolldown's binding, and vitest no longer starts).
// The ranges are read with `semver`, as npm reads them (npm-install-checks, includePrerelease).

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

type Semver = {
  satisfies(version: string, range: string, options: { includePrerelease: boolean }): boolean;
  minVersion(range: string): { version: string } | null;
};
const semver = createRequire(import.meta.url)('semver') as Semver;

type LockedPackage = { version?: string; optional?: boolean; engines?: { node?: string } };
type Manifest = { engines: { node: string }; devDependencies: Record<string, string> };

const ROOT = new URL('..', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as Manifest;
const lock = JSON.parse(readFileSync(new URL('package-lock.json', ROOT), 'utf8')) as {
  packages: Record<string, LockedPackage>;
};

/** The packages the lockfile installs, by name (the last `node_modules/` segment of the path). */
const installed = Object.entries(lock.packages)
  .filter(([path]) => path !== '')
  .map(([path, locked]) => ({
    name: path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length),
    ...locked,
  }));

/** Names of the packages whose `engines.node` the given Node does not satisfy. */
function rejecting(node: string, packages: typeof installed): string[] {
  const names = packages
    .filter(
      (locked) =>
        locked.engines?.node !== undefined && !semver.satisfies(node, locked.engines.node, { includePrerelease: true }),
    )
    .map((locked) => locked.name);
  return [...new Set(names)].sort();
}

const oldestNode = semver.minVersion(manifest.engines.node)?.version ?? '';
const scriptsNode = manifest.devDependencies.node ?? '';
const required = installed.filter((locked) => locked.optional !== true);
const optional = installed.filter((locked) => locked.optional === true);

describe('npm ci on the oldest Node the engines field admits', () => {
  it('admits Node 20, from a release line of its own, and runs the scripts on a pinned Node 22', () => {
    expect(oldestNode).toMatch(/^20\.\d+\.\d+$/);
    expect(scriptsNode).toMatch(/^22\.\d+\.\d+$/);
  });

  it('warns of an unsupported engine only for the Cloudflare tools the README names', () => {
    // wrangler and miniflare (and wrangler's asset handler) have required Node 22 since
    // Node 20's end of life; pinning them back would pin workerd months back too.
    expect(rejecting(oldestNode, required)).toEqual(['@cloudflare/kv-asset-handler', 'miniflare', 'wrangler']);
  });

  it('installs every optional native binding (none is skipped for its engines)', () => {
    expect(rejecting(oldestNode, optional)).toEqual([]);
  });

  it('installs nothing that the Node running the scripts cannot run', () => {
    expect(rejecting(scriptsNode, required)).toEqual([]);
  });
});
