// The no-shield baseline: a CDN without a shared tier. Every location is a whole tiercache stack of its own (both
// tiers in one workerd process, local/workers.ts: its edge and a shield that serves it alone), fetching from the
// origin across a link of its own, so each location's first read of an object costs the origin its bytes again.
// Each location's clients reach it across their client link; its origin link is links.ts directOriginLink.

import { randomUUID } from 'node:crypto';
import { startWorkers } from '../../../local/workers.ts';
import { directOriginLink, startLink } from '../links.ts';
import type { SimLocation, StartSystem } from '../system.ts';
import { startedOrStopped, teardown } from './teardown.ts';

export const startNoShieldSystem: StartSystem = async (topology, origin) => {
  const parts = teardown();
  return startedOrStopped(parts, async () => {
    const locations: SimLocation[] = [];
    // One after another: each start bundles both workers and boots workerd, which two cores do no faster at once.
    for (const [index, spec] of topology.locations.entries()) {
      const originShaper = await startLink(directOriginLink(topology, index), origin.url);
      parts.add(originShaper.close);
      const stack = await startWorkers({
        // As the tiercache system runs (ORIGIN_KIND=http in front of the origin link), logging nothing per request.
        config: { ORIGIN_KIND: 'http', ORIGIN_URL: originShaper.url, SHIELD_TOKEN: randomUUID(), LOG_SAMPLE: '0' },
      });
      parts.add(stack.dispose);
      const clientLink = await startLink(spec.client, stack.url);
      parts.add(clientLink.close);
      locations.push({ name: spec.name, url: clientLink.url });
    }
    return { name: 'no-shield', locations, stop: () => parts.stop() };
  });
};
