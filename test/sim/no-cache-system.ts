// A test double of a system, for the runner's own tests: no cache at all, each location a shaper straight to the
// origin (its client link's latency plus the origin link's), so every request reaches the origin. It is the floor
// a cache must beat: its origin bytes over unique bytes is above 1 whenever an object is asked twice. Its stats are
// its shapers' request counts in stats.json's shape (shared/stats/stats-json.ts), for the runner's ledger.

import { startShaper } from '../../bench/setup/shaper.ts';
import type { StartSystem } from '../../bench/sim/system.ts';

export const startNoCache: StartSystem = async (topology, origin) => {
  const shapers = await Promise.all(
    topology.locations.map((location) =>
      startShaper({
        target: origin.url,
        firstByteLatencyMs:
          location.client.latencyMs +
          location.shield.latencyMs +
          topology.origin.latencyMs +
          topology.originFirstByteMs,
        bandwidthBytesPerSec: Math.min(location.client.bytesPerSec, topology.origin.bytesPerSec),
      }),
    ),
  );
  return {
    // A stand-in takes a name of the contract's; the tests never mistake it for the real no-shield system.
    name: 'no-shield',
    locations: shapers.map((shaper, index) => ({
      name: topology.locations[index]?.name ?? `l${index}`,
      url: shaper.url,
    })),
    stats: async () => ({
      tiers: { edge: { totals: { requests: shapers.reduce((sum, shaper) => sum + shaper.stats().requests, 0) } } },
    }),
    stop: async () => {
      await Promise.all(shapers.map((shaper) => shaper.close()));
    },
  };
};
