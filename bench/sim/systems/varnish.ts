// The Varnish baseline: Varnish as two tiers, as a Varnish user builds a tiered CDN (Debian's package, builtin VCL
// but for a Cache-Status member per tier): a varnishd at each location, its misses sent across the location's
// shield link to one shield varnishd, whose misses cross the origin link. Each location's clients reach it across
// their client link. What Varnish does with ranges on a miss (the whole object, streamed): varnish-tier.vcl.

import { parseOrigin } from '../../setup/peers/daemon.ts';
import { detectVarnish } from '../../setup/peers/detect.ts';
import { originLink, startLink } from '../links.ts';
import type { SimLocation, StartSystem } from '../system.ts';
import { startedOrStopped, teardown } from './teardown.ts';
import { startVarnishTier } from './varnish-tier.ts';

export interface VarnishSystemOptions {
  /**
   * Each varnishd's malloc storage, MiB (default 4096): more than a run's catalogue, so nothing is evicted (malloc
   * takes memory only as objects are stored; each of the N + 1 instances may come to hold the whole catalogue).
   */
  storageMiB?: number;
}

const DEFAULT_STORAGE_MIB = 4096;

export function varnishSystem(options: VarnishSystemOptions = {}): StartSystem {
  const storageMiB = options.storageMiB ?? DEFAULT_STORAGE_MIB;
  return async (topology, origin) => {
    const installed = await detectVarnish();
    if (!installed) throw new Error('varnishd is not installed: run bench/setup/peers/install.sh');
    const address = parseOrigin(origin.url);
    const parts = teardown();
    return startedOrStopped(parts, async () => {
      const originShaper = await startLink(originLink(topology), origin.url);
      parts.add(originShaper.close);
      const shield = await startVarnishTier({
        role: 'shield',
        next: originShaper.url,
        origin: address,
        storageMiB,
        installed,
      });
      parts.add(shield.stop);
      const locations = await Promise.all(
        topology.locations.map(async (spec): Promise<SimLocation> => {
          const shieldLink = await startLink(spec.shield, shield.url);
          parts.add(shieldLink.close);
          const edge = await startVarnishTier({
            role: 'edge',
            next: shieldLink.url,
            origin: address,
            storageMiB,
            installed,
          });
          parts.add(edge.stop);
          const clientLink = await startLink(spec.client, edge.url);
          parts.add(clientLink.close);
          return { name: spec.name, url: clientLink.url };
        }),
      );
      return { name: 'varnish', locations, stop: () => parts.stop() };
    });
  };
}

/** The Varnish baseline with its default storage. */
export const startVarnishSystem: StartSystem = varnishSystem();
