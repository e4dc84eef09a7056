// bench:cold-download --topology: tiercache on the sim's topology (tiercache-system.ts: each location its own workerd,
// one shield process, every link shaped) in front of the sim's origin (catalogue-origin.ts: any byte of a 1 GiB
// object computed where it is sent, nothing held), its origin link switched between the map's shape and none.

import { totalCpuSeconds } from '../probes/process-cpu.ts';
import { procAvailable, processesNamed, RUNTIME_NAME } from '../probes/process-rss.ts';
import type { QuietSignals } from '../probes/quiet.ts';
import type { LinkShape, Shaper } from '../setup/shaper.ts';
import { startCatalogueOrigin } from './catalogue-origin.ts';
import { type ColdLinks, coldTopology, originShapes, sampledMatches } from './cold-links.ts';
import { startTiercacheSystem } from './tiercache-system.ts';
import { contentSeed } from './workload/content.ts';

/** A stack a cold download is measured through, behind one origin link whose shape is switched (cold-download.ts). */
export interface ColdStack {
  /** Each location's URL, by the name the table gives it, in the order measured. */
  bases: ReadonlyMap<string, string>;
  link: Shaper;
  shaped: LinkShape;
  unshaped: LinkShape;
  signals: QuietSignals;
  /** Whether a chunk read at `offset` of `path` has the object's bytes there; absent: only the length is checked. */
  check?(path: string, offset: number, chunk: Uint8Array): boolean;
  /** The setup, in a sentence for the results. */
  setup: string;
  stop(): Promise<void>;
}

export async function startColdTopology(
  objects: readonly { path: string; size: number }[],
  links: ColdLinks,
): Promise<ColdStack> {
  const origin = await startCatalogueOrigin(objects);
  try {
    const topology = coldTopology(links);
    const system = await startTiercacheSystem(topology, origin);
    const { shaped, unshaped } = originShapes(topology);
    const pids = procAvailable() ? processesNamed(process.pid, RUNTIME_NAME) : [];
    // The origin answers a fresh key's query string with the path's bytes (it reads only the path), version 0.
    const seeds = new Map(objects.map(({ path }) => [path, contentSeed({ path, version: 0 })]));
    const far = topology.locations
      .map((spec) => `${spec.name} (client ${spec.client.latencyMs} ms, shield ${spec.shield.latencyMs} ms)`)
      .join(', ');
    return {
      bases: new Map(system.locations.map((location) => [location.name, location.url])),
      link: system.originLink,
      shaped,
      unshaped,
      signals: {
        originBytes: () => system.originLink.stats().bytesToClient,
        originOpen: () => 0,
        runtimeCpu: () => totalCpuSeconds(pids),
      },
      check(path, offset, chunk) {
        const seed = seeds.get(path);
        return seed !== undefined && sampledMatches(seed, offset, chunk);
      },
      setup: `The sim's topology (bench/sim/tiercache-system.ts, ${links} links): ${topology.locations.length} locations, each an edge in a workerd of its own — ${far}${links === 'open' ? ', both links opened (no latency, no cap)' : ', 100 MB/s a connection on each'} — and one shield process, in front of the sim's catalogue origin (bytes computed per path, in this process). ${pids.length} workerd. The origin link is switched between the map's shape and none; each chunk's first and last 32 bytes are checked against the object's deterministic bytes, and every length.`,
      async stop() {
        await system.stop();
        await origin.close();
      },
    };
  } catch (error) {
    await origin.close();
    throw error;
  }
}
