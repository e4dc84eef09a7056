// What the topology runner (`npm run sim`) runs a trace against: a system of edge locations at a distance from one
// origin, started on shaped links (topology.ts), whichever software plays the tiers (tiercache, or a baseline). The
// runner replays the same trace on the same links against each in turn and reads what each cost the origin.

import type { R2Tally } from './r2/r2-tally.ts';
import type { SimTopology } from './topology.ts';

/** The systems a run compares (docs/sim.md): tiercache and its baselines on the same links and trace. */
export type SystemName =
  | 'tiercache'
  | 'tiercache-no-hedge'
  | 'tiercache-no-prefetch'
  | 'tiercache-no-r2'
  | 'tiercache-r2-all'
  | 'no-shield'
  | 'varnish'
  | 'nginx-slice';

/** One location as a client reaches it. */
export interface SimLocation {
  /** The location's name in the topology (`ams`, `sin`, …). */
  name: string;
  /** Where the location's clients send requests: `http://127.0.0.1:PORT`, already behind its client↔edge link. */
  url: string;
}

/** Platform operations a system made during a run (tiercache's, counted at the modelled KV and stats store). */
export interface SimOperations {
  kvLists: number;
  kvReads: number;
  kvWrites: number;
  /** Requests that reached the stats store (Durable Object requests), every shard. */
  storeRequests: number;
  /** Isolates that served (each edge or shield worker copy), and their minutes alive during the run. */
  isolates: number;
  isolateMinutes: number;
}

export interface SimSystem {
  name: SystemName;
  locations: readonly SimLocation[];
  /**
   * Purges `path` at location `at` (tiercache: its purge API there). Absent where the system has no purge that
   * reaches other locations (the baselines): the run says `n/a`.
   */
  purge?(path: string, at: number): Promise<void>;
  /** The platform operations so far (tiercache only). */
  operations?(): SimOperations;
  /** What each origin endpoint saw, where the topology has several (topology.ts `endpoints`; tiercache only). */
  endpoints?(): EndpointCounts[];
  /** The stats the system kept of itself, as stats.json says them (tiercache only), for the ledger check. */
  stats?(): Promise<unknown>;
  /** What its R2 tier did to its bucket, and what the bucket holds (tiercache with it: `--r2-tier`). */
  r2?(): Promise<R2Tally>;
  stop(): Promise<void>;
}

/** What one origin endpoint saw (bench/setup/slow-endpoint.ts counts it). */
export interface EndpointCounts {
  requests: number;
  /** Answers whose head it held back (the slow one's), and the paths they were for. */
  held: number;
  heldPaths: string[];
  /** Body bytes it sent. */
  bytes: number;
  /** Requests the shield gave up before their answer was all sent (a hedge's loser), and the bytes sent for them. */
  gaveUp: number;
  gaveUpBytes: number;
}

/** The origin every system of a run is put in front of (origin.ts), reached by each through its own shaped link. */
export interface SimOriginEndpoint {
  /** `http://127.0.0.1:PORT` of the origin itself (unshaped: a system puts its shield↔origin link in front). */
  url: string;
}

export type StartSystem = (topology: SimTopology, origin: SimOriginEndpoint) => Promise<SimSystem>;
