// The map a run is played on, pure: edge locations, one shield, the origin, and the link between each pair (one
// way's first-byte latency and a connection's bandwidth). The defaults look like a real map: clients 5–20 ms from
// their location, locations 20–150 ms from a shield in Frankfurt, the origin 10 ms from the shield, 25 MB/s per origin
// connection (Storj's users report 7–20 MB/s per connection; ../shared/FIELD.md).

/** A link: what each response waits before its first byte, and what one connection carries. */
export interface SimLink {
  latencyMs: number;
  bytesPerSec: number;
}

interface SimLocationSpec {
  name: string;
  /** Its clients to it. */
  client: SimLink;
  /** It to the shield. */
  shield: SimLink;
}

export interface SimTopology {
  locations: readonly SimLocationSpec[];
  /** The shield to the origin. */
  origin: SimLink;
  /** The origin's own time to a first byte (a gateway's lookup), beyond its link. */
  originFirstByteMs: number;
  /** Worker copies (isolates) per location: each edge location runs this many copies of the edge. Default 1. */
  isolatesPerLocation: number;
  /** KV's propagation delay as modelled: a write is seen at another location this long after it was made. */
  kvPropagationMs: number;
  /**
   * The origin at several endpoints (`--slow-endpoint`: Storj's gateways, one of them slow at times), for a system
   * that can use them (tiercache's ORIGIN_URL); absent: one endpoint.
   */
  endpoints?: SimEndpoints;
  /**
   * The R2 tier's run (`--r2-tier`): every location's and the shield's Cache API this small, evicting what was used
   * longest ago (bench/sim/r2/bounded-caches.ts); `tiercache` with its R2 tier, `tiercache-no-r2` without. Absent: the
   * Cache API as workerd keeps it (it never evicts), no R2 tier.
   */
  smallCaches?: SimSmallCaches;
}

/** The Cache API's size at each tier in the R2 tier's run, bytes. */
export interface SimSmallCaches {
  edgeBytes: number;
  shieldBytes: number;
}

/**
 * A location's Cache API of 8 MiB and the shield's of 16 MiB: a few percent of what the default trace asks (about 260 MB
 * without its cold crowd; measured, 48 MiB at the shield evicted nothing that was asked again within the trace's 3
 * minutes), so that what is not the hottest is evicted and asked for again, as at a busy location.
 */
export const SMALL_CACHES: SimSmallCaches = { edgeBytes: 8 * 2 ** 20, shieldBytes: 16 * 2 ** 20 };

/** The origin reached at `count` endpoints, each over a link like the origin's; the first slow on some answers. */
export interface SimEndpoints {
  count: number;
  /** The first endpoint holds the head of one answer in `slowEvery` this much longer. */
  slowHoldMs: number;
  slowEvery: number;
}

/**
 * Three endpoints, the preferred one's first byte 400 ms late on a fifth of its answers: a gateway slow at times, as
 * Storj's users report its first bytes ("almost bimodal", storj/edge #228).
 */
export const SLOW_ENDPOINT: SimEndpoints = { count: 3, slowHoldMs: 400, slowEvery: 5 };

const MB = 1e6;

/** Locations in the order a run takes them; a run with N locations takes the first N (cycling with a suffix past 8). */
const MAP: readonly { name: string; clientMs: number; shieldMs: number }[] = [
  { name: 'ams', clientMs: 5, shieldMs: 20 },
  { name: 'iad', clientMs: 10, shieldMs: 90 },
  { name: 'sin', clientMs: 15, shieldMs: 150 },
  { name: 'gru', clientMs: 20, shieldMs: 120 },
  { name: 'sjc', clientMs: 8, shieldMs: 140 },
  { name: 'waw', clientMs: 12, shieldMs: 30 },
  { name: 'nrt', clientMs: 10, shieldMs: 145 },
  { name: 'jnb', clientMs: 18, shieldMs: 110 },
];

export interface TopologyOptions {
  locations?: number;
  isolatesPerLocation?: number;
  kvPropagationMs?: number;
  /** Multiplies every latency (0: an unshaped map, for a run's ceiling). Default 1. */
  latencyScale?: number;
  originBytesPerSec?: number;
  endpoints?: SimEndpoints;
  smallCaches?: SimSmallCaches;
}

/** The default map with `locations` locations (default 6). */
export function defaultTopology(options: TopologyOptions = {}): SimTopology {
  const count = options.locations ?? 6;
  if (!Number.isInteger(count) || count < 1 || count > 64) throw new Error(`expected 1–64 locations, got ${count}`);
  const scale = options.latencyScale ?? 1;
  const locations = Array.from({ length: count }, (_, index) => {
    const place = MAP[index % MAP.length] as (typeof MAP)[number];
    const round = Math.floor(index / MAP.length);
    return {
      name: round === 0 ? place.name : `${place.name}${round + 1}`,
      client: { latencyMs: place.clientMs * scale, bytesPerSec: 100 * MB },
      shield: { latencyMs: place.shieldMs * scale, bytesPerSec: 100 * MB },
    };
  });
  return {
    locations,
    origin: { latencyMs: 10 * scale, bytesPerSec: options.originBytesPerSec ?? 25 * MB },
    originFirstByteMs: 20 * scale,
    isolatesPerLocation: options.isolatesPerLocation ?? 1,
    kvPropagationMs: options.kvPropagationMs ?? 60_000,
    ...(options.endpoints === undefined ? {} : { endpoints: options.endpoints }),
    ...(options.smallCaches === undefined ? {} : { smallCaches: options.smallCaches }),
  };
}

/** The physical floor of a first byte at location `index`: the round trips its path crosses, plus the origin's own. */
export function firstByteFloorMs(topology: SimTopology, index: number, path: 'hit' | 'shield-hit' | 'miss'): number {
  const location = topology.locations[index];
  if (location === undefined) throw new Error(`no location ${index}`);
  const client = location.client.latencyMs;
  if (path === 'hit') return client;
  if (path === 'shield-hit') return client + location.shield.latencyMs;
  return client + location.shield.latencyMs + topology.origin.latencyMs + topology.originFirstByteMs;
}
