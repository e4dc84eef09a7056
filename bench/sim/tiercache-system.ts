// tiercache on a topology (topology.ts), as a deployment runs it: each edge location its own workerd process (its own
// cache, its own memory) with `isolatesPerLocation` copies of the edge, one shield process, and every link shaped
// (bench/setup/shaper.ts): client↔edge in front of each location, edge↔shield behind each location's SHIELD binding
// (an external service: the binding's credential and headers cross as they do), shield↔origin in front of the origin.
// Every process reads the one purge list (a modelled KV namespace, kv-model.ts, with KV's propagation delay) and
// writes to the one stats store (stats-relay.ts), each through a wrapped binding, so the operations they cost are
// counted where a bill would count them.

import { randomUUID } from 'node:crypto';
import { bundleWorker } from '../../local/bundle.ts';
import { type Location, startLocation } from '../../local/location.ts';
import { edgeEntry, shieldEntry } from '../../local/tier-options.ts';
import type { RawConfig } from '../../shared/config/config.ts';
import { PURGE_PATH, STATS_JSON_PATH } from '../../shared/request/reserved-paths.ts';
import type { Shaper } from '../setup/shaper.ts';
import { KvModel } from './kv-model.ts';
import { kvBinding, kvService, kvWrapperWorker } from './kv-server.ts';
import { originLink as originLinkOf, startLink } from './links.ts';
import { startOriginEndpoints } from './origin-endpoints.ts';
import { R2_TALLY_PATH, type R2Tally } from './r2/r2-tally.ts';
import { startShieldProcess } from './shield-process.ts';
import { statsBinding, statsRelay, statsWrapperWorker } from './stats-relay.ts';
import type { SimLocation, SimOperations, SimOriginEndpoint, SimSystem, StartSystem } from './system.ts';
import type { SimTopology } from './topology.ts';

/** The shield's place on the modelled KV's map: a location of its own. */
export const SHIELD_LOCATION = 'shield';
/**
 * How often each isolate flushes its stats batch (STATS_FLUSH_MS): short, so that stats() settles in seconds; the
 * cost of the deployed 5 s flush is the cost model's to price (shared/cost/).
 */
const SIM_FLUSH_MS = 1000;

export interface TiercacheSystemOptions {
  /** One clock (ms epoch) for every worker's freshness and purge times and the modelled KV; absent = the real one. */
  clock?: () => number;
  /** Settings over the runner's (SLICE_SIZE and the like). */
  config?: RawConfig;
  /** Without its R2 tier on a topology with small caches (`tiercache-no-r2`); with it otherwise there. */
  noR2?: boolean;
}

/** The R2 tier's write budget in its run: past anything a run's minutes ask, so that admission alone decides. */
const SIM_R2_WRITES_PER_HOUR = 1_000_000;

/** The R2 tier's run (topology.ts smallCaches): the deployed entries with their Cache API bounded, the shield's R2 counted. */
const SMALL_CACHE_ENTRIES = {
  edge: 'bench/sim/r2/small-cache-edge.ts',
  shield: 'bench/sim/r2/small-cache-shield.ts',
} as const;

/** The system as the runner sees it, and what a test or a report may read beyond the contract. */
export interface TiercacheSystem extends SimSystem {
  /** The modelled purge namespace: its operations by isolate. */
  kv: KvModel;
  /** Stats store requests relayed, by object name (one, or the shards). */
  storeRequests(): ReadonlyMap<string, number>;
  /** Each location's edge copies (the isolates named in `kv.byIsolate()`). */
  isolateNames: readonly (readonly string[])[];
  /** The shield↔origin link: its counts, and `reshape` (bench:cold-download --topology measures the stack unshaped). */
  originLink: Shaper;
}

export const startTiercache: StartSystem = (topology, origin) => startTiercacheSystem(topology, origin);

/** tiercache without its R2 tier, on a topology with small caches (`--r2-tier`): what the R2 tier saves. */
export const startTiercacheNoR2: StartSystem = async (topology, origin) => ({
  ...(await startTiercacheSystem(topology, origin, { noR2: true })),
  name: 'tiercache-no-r2',
});

/** tiercache with its R2 tier keeping every entry it may (R2_TIER_ADMIT=all), on a topology with small caches. */
export const startTiercacheR2All: StartSystem = async (topology, origin) => ({
  ...(await startTiercacheSystem(topology, origin, { config: { R2_TIER_ADMIT: 'all' } })),
  name: 'tiercache-r2-all',
});

/** tiercache with its hedged first byte off (ORIGIN_HEDGE=off): what hedging saves, on the same endpoints. */
export const startTiercacheNoHedge: StartSystem = async (topology, origin) => ({
  ...(await startTiercacheSystem(topology, origin, { config: { ORIGIN_HEDGE: 'off' } })),
  name: 'tiercache-no-hedge',
});

/** tiercache with its segment prefetching off (PREFETCH_SEGMENTS=0): what prefetching saves, on the same trace. */
export const startTiercacheNoPrefetch: StartSystem = async (topology, origin) => ({
  ...(await startTiercacheSystem(topology, origin, { config: { PREFETCH_SEGMENTS: '0' } })),
  name: 'tiercache-no-prefetch',
});

export async function startTiercacheSystem(
  topology: SimTopology,
  origin: SimOriginEndpoint,
  options: TiercacheSystemOptions = {},
): Promise<TiercacheSystem> {
  const now = options.clock ?? Date.now;
  const startedAt = performance.now();
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  };
  try {
    // The deployed entries, or the local ones that read the test clock when there is one, or (small caches) the sim's.
    const small = topology.smallCaches;
    if (small !== undefined && options.clock !== undefined) throw new Error('small caches run on the real clock');
    const entries =
      small === undefined ? { edge: edgeEntry(options), shield: shieldEntry(options) } : SMALL_CACHE_ENTRIES;
    const [edge, shield] = await Promise.all([bundleWorker(entries.edge), bundleWorker(entries.shield)]);
    const r2Tier = small !== undefined && options.noR2 !== true;
    const kv = new KvModel(topology.kvPropagationMs);
    const relay = statsRelay();
    const wrappers = [kvWrapperWorker(kvService(kv, now)), statsWrapperWorker(relay)];
    // One link to the origin, or one per endpoint (topology.ts `endpoints`), each through a counting proxy.
    const endpoints =
      topology.endpoints === undefined
        ? undefined
        : await startOriginEndpoints(topology, topology.endpoints, origin.url);
    if (endpoints !== undefined) stops.push(endpoints.close);
    const originLink = endpoints?.links[0] ?? (await startLink(originLinkOf(topology), origin.url));
    if (endpoints === undefined) stops.push(originLink.close);
    const tokens = { SHIELD_TOKEN: randomUUID(), PURGE_TOKEN: randomUUID(), STATS_TOKEN: randomUUID() };
    const config: RawConfig = {
      ORIGIN_KIND: 'http',
      ORIGIN_URL: endpoints === undefined ? originLink.url : endpoints.urls.join(' '),
      STATS_FLUSH_MS: String(SIM_FLUSH_MS),
      // Only failures are logged, as `npm start` does without LOG=1: the run's output is its tables.
      LOG_SAMPLE: '0',
      ...tokens,
      ...options.config,
      // The sim's entries' own bindings (bench/sim/r2/small-cache-*.ts), beside the configuration, which ignores them.
      ...((small === undefined
        ? {}
        : {
            SIM_EDGE_CACHE_BYTES: String(small.edgeBytes),
            SIM_SHIELD_CACHE_BYTES: String(small.shieldBytes),
            // The trace plays faster than it was written, and an hour's budget is not what the run measures: what the
            // tier admits is.
            R2_WRITES_PER_HOUR: String(SIM_R2_WRITES_PER_HOUR),
          }) as RawConfig),
    };
    const clock = options.clock === undefined ? {} : { clock: options.clock };
    const shieldProcess = await startShieldProcess({
      shield,
      config,
      shared: {
        workers: wrappers,
        bindings: { ...kvBinding({ location: SHIELD_LOCATION, isolate: 'shield' }), ...statsBinding() },
      },
      ...clock,
      r2Tier,
    });
    stops.push(shieldProcess.stop);
    relay.setGateway(shieldProcess.statsGatewayUrl);
    // Settled, not raced: a location that fails leaves none still starting when the rest are stopped.
    const settled = await Promise.allSettled(
      topology.locations.map(async (spec) => {
        const shieldLink = await startLink(spec.shield, shieldProcess.url);
        stops.push(shieldLink.close);
        const location = await startLocation({
          edge,
          config,
          shieldUrl: shieldLink.url,
          reach: 'binding',
          copies: topology.isolatesPerLocation,
          shared: {
            workers: wrappers,
            bindings: (copy) => ({ ...kvBinding({ location: spec.name, isolate: copy }), ...statsBinding() }),
          },
          ...clock,
        });
        stops.push(location.dispose);
        const clientLink = await startLink(spec.client, location.url);
        stops.push(clientLink.close);
        return { name: spec.name, url: clientLink.url, location };
      }),
    );
    const started = settled.map((outcome) => {
      if (outcome.status === 'rejected') throw outcome.reason;
      return outcome.value;
    });
    const locations: SimLocation[] = started.map(({ name, url }) => ({ name, url }));
    const isolates = topology.locations.length * topology.isolatesPerLocation + 1;
    return {
      name: 'tiercache',
      locations,
      kv,
      isolateNames: started.map(({ location }: { location: Location }) => location.copies),
      storeRequests: relay.requests,
      originLink,
      purge: (path, at) => purgeAt(locationAt(locations, at), path, tokens.PURGE_TOKEN),
      operations: () => operations(kv, relay.requests(), isolates, performance.now() - startedAt),
      ...(endpoints === undefined ? {} : { endpoints: endpoints.counts }),
      ...(r2Tier ? { r2: () => readR2Tally(shieldProcess.url) } : {}),
      async stats() {
        // Every isolate's batch is flushed SIM_FLUSH_MS after its last record (record-sinks.ts): wait for the last.
        await new Promise((resolve) => setTimeout(resolve, 2 * SIM_FLUSH_MS));
        return readStatsJson(locationAt(locations, 0), tokens.STATS_TOKEN);
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

function locationAt(locations: readonly SimLocation[], at: number): SimLocation {
  const location = locations[at];
  if (location === undefined) throw new RangeError(`no location ${at} of ${locations.length}`);
  return location;
}

/** The purge API at a location (docs/purge.md): the path's entries at every location, within the bound. */
async function purgeAt(location: SimLocation, path: string, token: string): Promise<void> {
  const answer = await fetch(new URL(PURGE_PATH, location.url), {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ urls: [path] }),
  });
  const text = await answer.text();
  if (!answer.ok) throw new Error(`purge of ${path} at ${location.name}: ${answer.status} ${text.slice(0, 300)}`);
}

/** What the shield's R2 tier did to its bucket (bench/sim/r2/r2-tally.ts), from the shield's process itself. */
async function readR2Tally(shieldUrl: string): Promise<R2Tally> {
  const answer = await fetch(new URL(R2_TALLY_PATH, shieldUrl));
  if (!answer.ok) throw new Error(`the R2 tally: ${answer.status} ${(await answer.text()).slice(0, 300)}`);
  return (await answer.json()) as R2Tally;
}

async function readStatsJson(location: SimLocation, token: string): Promise<unknown> {
  const answer = await fetch(new URL(STATS_JSON_PATH, location.url), { headers: { authorization: `Bearer ${token}` } });
  if (!answer.ok)
    throw new Error(`stats.json at ${location.name}: ${answer.status} ${(await answer.text()).slice(0, 300)}`);
  return answer.json();
}

/** KV's operations priced as KV prices them (a delete is a write); every store request, every shard. */
function operations(
  kv: KvModel,
  store: ReadonlyMap<string, number>,
  isolates: number,
  elapsedMs: number,
): SimOperations {
  const counts = kv.totals();
  return {
    kvLists: counts.lists,
    kvReads: counts.reads,
    kvWrites: counts.writes + counts.deletes,
    storeRequests: [...store.values()].reduce((sum, count) => sum + count, 0),
    isolates,
    isolateMinutes: (isolates * elapsedMs) / 60_000,
  };
}
