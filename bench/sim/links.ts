// The shaped links a baseline stands on, laid as the sim's contract lays them (system.ts): a shaper per location
// in front of its edge (client link), one per location between its edge and the shield (shield link), one between
// the shield and the origin (origin link). Pure reading of the map here; the shapers are bench/setup/shaper.ts.

import { type Shaper, startShaper } from '../setup/shaper.ts';
import type { SimLink, SimTopology } from './topology.ts';

/**
 * A shaper carrying `link` in front of `target` (`http://127.0.0.1:PORT`). Its latency is added to what the hops
 * beyond it take (shaper.ts `latencyFrom: 'response'`), so a first byte through client, shield and origin links
 * waits their sum, as firstByteFloorMs counts it.
 */
export function startLink(link: SimLink, target: string): Promise<Shaper> {
  return startShaper({
    target,
    firstByteLatencyMs: link.latencyMs,
    bandwidthBytesPerSec: link.bytesPerSec,
    latencyFrom: 'response',
  });
}

/** The shield↔origin link: the link's own latency plus the origin's time to a first byte, its bandwidth. */
export function originLink(topology: SimTopology): SimLink {
  return {
    latencyMs: topology.origin.latencyMs + topology.originFirstByteMs,
    bytesPerSec: topology.origin.bytesPerSec,
  };
}

/**
 * Location `index` straight to the origin, with no shield between (the no-shield baseline): the origin stands where
 * the shield does (topology.ts: the origin 10 ms from the shield), so the location reaches it across its shield link's
 * distance plus the origin link's, at the narrower of the two bandwidths. A miss then has the same first-byte floor as
 * a two-tier miss (topology.ts firstByteFloorMs 'miss').
 */
export function directOriginLink(topology: SimTopology, index: number): SimLink {
  const location = topology.locations[index];
  if (location === undefined) throw new Error(`no location ${index}`);
  const origin = originLink(topology);
  return {
    latencyMs: location.shield.latencyMs + origin.latencyMs,
    bytesPerSec: Math.min(location.shield.bytesPerSec, origin.bytesPerSec),
  };
}
