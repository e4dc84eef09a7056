// The nginx slice baseline: nginx's slice module as two tiers, as an nginx user builds a tiered CDN for large
// objects: an nginx at each location, its slice misses sent across the location's shield link to one shield nginx,
// whose misses cross the origin link; both slice at tiercache's SLICE_SIZE (shared/config/limits.ts), so a byte is
// fetched in the same aligned pieces. Each location's clients reach it across their client link.

import { parseConfig } from '../../../shared/config/config.ts';
import { parseOrigin } from '../../setup/peers/daemon.ts';
import { detectNginx } from '../../setup/peers/detect.ts';
import { originLink, startLink } from '../links.ts';
import type { SimLocation, StartSystem } from '../system.ts';
import { startNginxSliceTier } from './nginx-slice-tier.ts';
import { startedOrStopped, teardown } from './teardown.ts';

/** tiercache's slice size as its settings give it in `http` mode with nothing else set: the default. */
export function tiercacheSliceSize(originUrl: string): number {
  return parseConfig({ ORIGIN_KIND: 'http', ORIGIN_URL: originUrl }).slicing.sliceSize;
}

interface NginxSliceSystemOptions {
  /** Bytes per slice at both tiers; default: tiercache's (tiercacheSliceSize). A run that sets SLICE_SIZE passes it. */
  sliceSize?: number;
}

function nginxSliceSystem(options: NginxSliceSystemOptions = {}): StartSystem {
  return async (topology, origin) => {
    const installed = await detectNginx();
    if (!installed) throw new Error('nginx is not installed: run bench/setup/peers/install.sh');
    const address = parseOrigin(origin.url);
    const sliceSize = options.sliceSize ?? tiercacheSliceSize(origin.url);
    const parts = teardown();
    return startedOrStopped(parts, async () => {
      const originShaper = await startLink(originLink(topology), origin.url);
      parts.add(originShaper.close);
      const tier = { origin: address, sliceSize, installed };
      const shield = await startNginxSliceTier({ ...tier, role: 'shield', next: originShaper.url });
      parts.add(shield.stop);
      const locations = await Promise.all(
        topology.locations.map(async (spec): Promise<SimLocation> => {
          const shieldLink = await startLink(spec.shield, shield.url);
          parts.add(shieldLink.close);
          const edge = await startNginxSliceTier({ ...tier, role: 'edge', next: shieldLink.url });
          parts.add(edge.stop);
          const clientLink = await startLink(spec.client, edge.url);
          parts.add(clientLink.close);
          return { name: spec.name, url: clientLink.url };
        }),
      );
      return { name: 'nginx-slice', locations, stop: () => parts.stop() };
    });
  };
}

/** The nginx slice baseline at tiercache's default slice size. */
export const startNginxSliceSystem: StartSystem = nginxSliceSystem();
