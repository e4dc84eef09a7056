// A run's numbers, per system, from what the runner recorded (run-sim.ts): pure, so the tables (sim-tables.ts) and
// sim.json say the same thing. Nothing here is a system's word about itself but the ledger's count and the
// operations: the origin's bytes are the origin's, the bytes served the client's, each checked.

import { RECORDS_REACH_MS } from '../../../shared/purge/purge-bounds.ts';
import { REFRESH_MS } from '../../../shared/purge/purge-rules.ts';
import type { SimRun, SystemRun } from '../run-sim.ts';
import type { SimOperations, SystemName } from '../system.ts';
import { CROWD_TAG } from '../workload/generate.ts';
import { contentBook } from '../workload/object-content.ts';
import { type CrowdCost, crowdCost } from './crowd.ts';
import { type EndpointSummary, endpointSummary } from './endpoint-summary.ts';
import { type FirstByteRow, firstByteRows } from './first-bytes.ts';
import { type HedgePairs, hedgePairs } from './hedge-pairs.ts';
import { type R2Summary, r2Summary } from './r2-summary.ts';
import { uniqueRequestedBytes } from './requested-bytes.ts';
import { type PrefetchPairs, prefetchPairs, type SegmentSummary, segmentSummary } from './segment-summary.ts';
import { type LocationRatios, tierRatios } from './tier-ratios.ts';

/** tiercache's slice size (shared/config/limits.ts DEFAULT_SLICE_SIZE); the baselines that slice use the same. */
const SIM_SLICE_BYTES = 8 * 2 ** 20;

interface PurgeSummary {
  path: string;
  at: number;
  callMs: number;
  /** Per location; undefined: not within the deadline. */
  takenMs: (number | undefined)[];
  /** The slowest location's; undefined when one never took it. */
  everywhereMs: number | undefined;
  /** The modelled KV delay plus an isolate's refresh: what the design promises on this topology. */
  modelledBoundMs: number;
  /** The documented bound (shared/purge/purge-bounds.ts RECORDS_REACH_MS). */
  documentedBoundMs: number;
}

interface OperationsSummary extends SimOperations {
  kvPerRequest: number;
  storePerRequest: number;
  kvPerIsolateMinute: number;
  storePerIsolateMinute: number;
}

export interface SystemSummary {
  name: SystemName;
  error?: string;
  wallSeconds: number;
  requests: number;
  /** Responses with a byte other than the object's at its offset: must be 0. */
  wrongBytes: number;
  /** Responses that failed otherwise (network error, 5xx, cut short by the system). */
  failures: number;
  problems: string[];
  /** Requests sent a second time after their kept-alive connection failed before any answer (replay.ts). */
  retried: number;
  bytesServed: number;
  originRequests: number;
  originBytes: number;
  uniqueBytes: number;
  /** originBytes ÷ uniqueBytes: 1.00 is every asked byte fetched once. */
  originPerUnique: number | undefined;
  tiers: LocationRatios[];
  firstBytes: FirstByteRow[];
  crowd: CrowdCost | undefined;
  purge: PurgeSummary | undefined;
  operations: OperationsSummary | undefined;
  /** The stats' edge requests against the requests answered (run-sim.ts); `exact` only when they are equal. */
  ledger: { sent: number; answered: number; counted: number | undefined; exact: boolean } | undefined;
  /** The client's own lateness against the trace's pacing (p99, ms): a loaded runner says so here. */
  lateP99Ms: number;
  /** On an origin at several endpoints (`--slow-endpoint`): misses' first bytes, the endpoints, hedge egress. */
  endpoints?: EndpointSummary;
  /** Where the trace's playlists name segments (`--hls`): their first bytes, what was prefetched and wasted. */
  segments?: SegmentSummary;
  /** Behind small caches (`--r2-tier`): what the origin sent, what the R2 tier did and kept, the month. */
  r2?: R2Summary;
}

export interface SimReport {
  locations: number;
  requests: number;
  speed: number;
  wallSeconds: number;
  systems: SystemSummary[];
  /** With the hedge off and on over several endpoints (`--slow-endpoint`): the misses of both, request by request. */
  hedgePairs?: HedgePairs;
  /** With segment prefetching off and on (`--hls`): the segments of both, request by request. */
  prefetchPairs?: PrefetchPairs;
}

const MAX_PROBLEMS = 10;

export function simReport(run: SimRun): SimReport {
  return {
    locations: run.topology.locations.length,
    requests: run.trace.requests.filter((request) => request.method !== 'PURGE').length,
    speed: run.speed,
    wallSeconds: run.wallMs / 1000,
    systems: run.systems.map((system) => summarize(system, run)),
    ...optional('hedgePairs', pairsOf(run.systems)),
    ...optional('prefetchPairs', prefetchPairsOf(run)),
  };
}

/** The segments the trace's playlists name (object-content.ts). */
function segmentsOf(run: SimRun): ReadonlySet<string> {
  return contentBook(run.trace.objects, 1).segments;
}

/** tiercache with segment prefetching off against on, when both ran on a trace whose playlists name segments. */
function prefetchPairsOf(run: SimRun): PrefetchPairs | undefined {
  const off = run.systems.find((system) => system.name === 'tiercache-no-prefetch');
  const on = run.systems.find((system) => system.name === 'tiercache');
  const segments = segmentsOf(run);
  if (off === undefined || on === undefined || segments.size === 0) return undefined;
  return prefetchPairs(off.results, on.results, segments);
}

/** tiercache with its hedge off against on, when both ran on several endpoints. */
function pairsOf(systems: readonly SystemRun[]): HedgePairs | undefined {
  const off = systems.find((system) => system.name === 'tiercache-no-hedge');
  const on = systems.find((system) => system.name === 'tiercache');
  if (off?.endpoints === undefined || on?.endpoints === undefined) return undefined;
  // The same answers are held in both runs; a path either run saw held is one the hedge is for.
  const heldPaths = new Set([...off.endpoints, ...on.endpoints].flatMap((endpoint) => endpoint.heldPaths));
  return hedgePairs(off.results, on.results, heldPaths);
}

function summarize(system: SystemRun, run: SimRun): SystemSummary {
  const sizes = new Map(run.trace.objects.map((object) => [object.path, object.size]));
  const probes = system.purge?.probes ?? [];
  const all = [...system.results, ...probes];
  const uniqueBytes = uniqueRequestedBytes(all, sizes);
  const crowdPath = run.trace.requests.find((request) => request.tag === CROWD_TAG)?.path;
  const late = system.results.map((result) => result.lateMs).sort((a, b) => a - b);
  return {
    name: system.name,
    ...(system.error !== undefined && { error: system.error }),
    wallSeconds: system.wallMs / 1000,
    requests: all.length,
    wrongBytes: all.filter((result) => result.wrong).length,
    failures: all.filter((result) => !result.wrong && result.problem !== undefined).length,
    problems: all
      .filter((result) => result.problem !== undefined)
      .slice(0, MAX_PROBLEMS)
      .map((result) => `${result.method} ${result.path} ${result.range ?? ''} → ${result.status}: ${result.problem}`),
    retried: all.filter((result) => result.retried).length,
    bytesServed: all.reduce((sum, result) => sum + result.bytes, 0),
    originRequests: system.originRequests,
    originBytes: system.originBytes,
    uniqueBytes,
    originPerUnique: uniqueBytes === 0 ? undefined : system.originBytes / uniqueBytes,
    tiers: tierRatios(system.results, run.topology.locations.length),
    firstBytes: firstByteRows(system.results, run.topology),
    crowd:
      crowdPath === undefined
        ? undefined
        : crowdCost(crowdPath, sizes.get(crowdPath) ?? 0, system.crowdAnswers, SIM_SLICE_BYTES),
    purge: purgeSummary(system, run),
    operations: operationsSummary(system.operations, all.length),
    ledger:
      system.ledger === undefined
        ? undefined
        : { ...system.ledger, exact: system.ledger.counted === system.ledger.answered },
    lateP99Ms: late[Math.max(0, Math.ceil(late.length * 0.99) - 1)] ?? 0,
    ...optional('endpoints', endpointSummary(system.results, system.endpoints, system.originBytes, uniqueBytes)),
    ...optional(
      'segments',
      segmentSummary(
        system.results,
        segmentsOf(run),
        { bytes: system.originBytes, unasked: system.unasked },
        system.prefetches,
      ),
    ),
    ...optional(
      'r2',
      run.topology.smallCaches === undefined
        ? undefined
        : r2Summary(system.originBytes, system.r2, run.trace.requests.at(-1)?.atMs ?? 0),
    ),
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function purgeSummary(system: SystemRun, run: SimRun): PurgeSummary | undefined {
  const purge = system.purge;
  if (purge === undefined) return undefined;
  const everywhere = purge.takenMs.every((ms) => ms !== undefined)
    ? Math.max(...purge.takenMs.map((ms) => ms ?? 0))
    : undefined;
  return {
    path: purge.path,
    at: purge.at,
    callMs: purge.callMs,
    takenMs: purge.takenMs,
    everywhereMs: everywhere,
    modelledBoundMs: run.topology.kvPropagationMs + REFRESH_MS,
    documentedBoundMs: RECORDS_REACH_MS,
  };
}

function operationsSummary(operations: SimOperations | undefined, requests: number): OperationsSummary | undefined {
  if (operations === undefined) return undefined;
  const kv = operations.kvLists + operations.kvReads + operations.kvWrites;
  const minutes = operations.isolateMinutes;
  return {
    ...operations,
    kvPerRequest: requests === 0 ? 0 : kv / requests,
    storePerRequest: requests === 0 ? 0 : operations.storeRequests / requests,
    kvPerIsolateMinute: minutes === 0 ? 0 : kv / minutes,
    storePerIsolateMinute: minutes === 0 ? 0 : operations.storeRequests / minutes,
  };
}
