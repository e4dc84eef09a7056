// The topology runner: one origin over the trace's catalogue, then each system in turn started on the same links,
// the same trace replayed against it, its origin counted, its purge timed, its operations and stats read, and it
// stopped before the next starts (the machine is shared: one system at a time). Which systems exist is the caller's
// (bench/sim.ts hands the registry in), so the runner is tested with a stand-in of its own.

import type { PrefetchCounts } from '../../shared/stats/store-operations.ts';
import { type CatalogueOrigin, type OriginAnswer, startCatalogueOrigin } from './catalogue-origin.ts';
import { type PurgeTiming, timePurge } from './purge-probe.ts';
import type { R2Tally } from './r2/r2-tally.ts';
import { type ReplayResult, replay } from './replay.ts';
import type { EndpointCounts, SimOperations, SimSystem, StartSystem, SystemName } from './system.ts';
import type { SimTopology } from './topology.ts';
import { HLS_SEGMENT_SECONDS } from './workload/catalogue.ts';
import { CROWD_TAG } from './workload/generate.ts';
import { type ContentBook, contentBook } from './workload/object-content.ts';
import type { Trace, TraceRequest } from './workload/trace.ts';

/** How long the stats may take to hold every request: the local flush is 1 s (STATS_FLUSH_MS), checked twice over. */
const STATS_SETTLE_MS = 10_000;
/** Beyond the modelled KV delay, what a purge may take: shared/purge/purge-bounds.ts's 60 s plus a refresh. */
const PURGE_BOUND_MARGIN_MS = 75_000;

export interface RunSimOptions {
  /** The systems to run, in the order given. */
  systems: readonly { name: SystemName; start: StartSystem }[];
  topology: SimTopology;
  trace: Trace;
  speed: number;
  log?(line: string): void;
}

export interface SystemRun {
  name: SystemName;
  /** Why the system did not run to the end; its numbers are then partial or absent. */
  error?: string;
  wallMs: number;
  /** Every trace request's result (PURGE lines excluded), in trace order. */
  results: ReplayResult[];
  originRequests: number;
  originBytes: number;
  /** The origin's answers for the cold crowd's object. */
  crowdAnswers: OriginAnswer[];
  purge?: PurgeTiming;
  operations?: SimOperations;
  /**
   * Requests the client sent (trace and purge probes), those a response head came back for (what an edge can have
   * counted: a connection that failed before may never have reached it), and what the system's stats counted at
   * its edge.
   */
  ledger?: { sent: number; answered: number; counted: number | undefined };
  /** What each origin endpoint saw, where the topology has several. */
  endpoints?: EndpointCounts[];
  /** The segments the system prefetched, as its stats counted them (tiercache's stats.json). */
  prefetches?: PrefetchCounts;
  /** The origin's answers for paths no client of the run asked for, and their bytes: what only a prefetch wanted. */
  unasked: { requests: number; bytes: number };
  /** What its R2 tier did to its bucket and what the bucket holds at the end (`--r2-tier`). */
  r2?: R2Tally;
}

export interface SimRun {
  trace: Trace;
  topology: SimTopology;
  speed: number;
  systems: SystemRun[];
  wallMs: number;
}

export async function runSim(options: RunSimOptions): Promise<SimRun> {
  const log = options.log ?? (() => undefined);
  const began = performance.now();
  // The trace's playlists name their segments at the pace the replay plays them (object-content.ts).
  const content = contentBook(options.trace.objects, HLS_SEGMENT_SECONDS / options.speed);
  const origin = await startCatalogueOrigin(options.trace.objects, content);
  const runs: SystemRun[] = [];
  try {
    for (const { name, start } of options.systems) {
      origin.reset();
      log(`sim: ${name}: starting ${options.topology.locations.length} locations`);
      const run = await runSystem(name, start, origin, { ...options, content });
      log(`sim: ${name}: ${run.error ?? 'done'} in ${(run.wallMs / 1000).toFixed(1)} s`);
      runs.push(run);
    }
  } finally {
    await origin.close();
  }
  return {
    trace: options.trace,
    topology: options.topology,
    speed: options.speed,
    systems: runs,
    wallMs: performance.now() - began,
  };
}

async function runSystem(
  name: SystemName,
  start: StartSystem,
  origin: CatalogueOrigin,
  options: RunSimOptions & { content: ContentBook },
): Promise<SystemRun> {
  const began = performance.now();
  const run: SystemRun = {
    name,
    wallMs: 0,
    results: [],
    originRequests: 0,
    originBytes: 0,
    crowdAnswers: [],
    unasked: { requests: 0, bytes: 0 },
  };
  let system: SimSystem | undefined;
  try {
    system = await start(options.topology, { url: origin.url });
    const live = system;
    const sizes = new Map(options.trace.objects.map((object) => [object.path, object.size]));
    const onPurge = async (request: TraceRequest) => {
      const version = origin.bump(request.path);
      if (live.purge === undefined) return;
      run.purge = await timePurge(live.purge.bind(live), request, live.locations, {
        version,
        size: sizes.get(request.path) ?? 0,
        deadlineMs: options.topology.kvPropagationMs + PURGE_BOUND_MARGIN_MS,
      });
    };
    run.results = await replay({
      trace: options.trace,
      locations: live.locations,
      speed: options.speed,
      versionOf: (path) => origin.version(path),
      onPurge,
      content: options.content,
    });
    const all = [...run.results, ...(run.purge?.probes ?? [])];
    const answered = all.filter((result) => result.status > 0).length;
    if (live.stats !== undefined) {
      const { counted, stats } = await countedAtEdge(live, answered);
      run.ledger = { sent: all.length, answered, counted };
      const prefetches = prefetchCounts(stats);
      if (prefetches !== undefined) run.prefetches = prefetches;
    }
    if (live.operations !== undefined) run.operations = live.operations();
    if (live.endpoints !== undefined) run.endpoints = live.endpoints();
    if (live.r2 !== undefined) run.r2 = await live.r2();
  } catch (error) {
    run.error = error instanceof Error ? error.message : String(error);
  } finally {
    const crowd = new Set(options.trace.requests.filter((r) => r.tag === CROWD_TAG).map((r) => r.path));
    const asked = new Set(run.results.map((result) => result.path));
    for (const [path, count] of origin.counts()) {
      run.originRequests += count.requests;
      run.originBytes += count.bytes;
      if (asked.has(path)) continue;
      run.unasked.requests += count.requests;
      run.unasked.bytes += count.bytes;
    }
    run.crowdAnswers = origin.answers().filter((answer) => crowd.has(answer.path));
    await system?.stop().catch((error: unknown) => {
      run.error ??= `stop: ${error instanceof Error ? error.message : String(error)}`;
    });
    run.wallMs = performance.now() - began;
  }
  return run;
}

/**
 * The edge's request count in the system's stats, read until it reaches `expected` or the stats had time to settle,
 * and the stats it was read from.
 */
async function countedAtEdge(
  system: SimSystem,
  expected: number,
): Promise<{ counted: number | undefined; stats: unknown }> {
  const deadline = performance.now() + STATS_SETTLE_MS;
  let counted: number | undefined;
  let stats: unknown;
  do {
    stats = await system.stats?.().catch(() => undefined);
    counted = edgeRequests(stats);
    if (counted === expected) return { counted, stats };
    await new Promise((resolve) => setTimeout(resolve, 1000));
  } while (performance.now() < deadline);
  return { counted, stats };
}

/** stats.json's prefetch counts (`cost.windowOperations`: shared/stats/stats-json.ts), where it has them. */
function prefetchCounts(stats: unknown): PrefetchCounts | undefined {
  const counted = field(field(stats, 'cost'), 'windowOperations');
  const read = (name: keyof PrefetchCounts): number | undefined => {
    const value = field(counted, name);
    return typeof value === 'number' ? value : undefined;
  };
  const prefetched = read('prefetched');
  if (prefetched === undefined) return undefined;
  return {
    prefetched,
    prefetchesUsed: read('prefetchesUsed') ?? 0,
    prefetchesWasted: read('prefetchesWasted') ?? 0,
    prefetchBytes: read('prefetchBytes') ?? 0,
    prefetchWastedBytes: read('prefetchWastedBytes') ?? 0,
  };
}

/** stats.json's `tiers.edge.totals.requests` (shared/stats/stats-json.ts), read from an unknown value. */
function edgeRequests(stats: unknown): number | undefined {
  const tiers = field(stats, 'tiers');
  const requests = field(field(field(tiers, 'edge'), 'totals'), 'requests');
  return typeof requests === 'number' ? requests : undefined;
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}
