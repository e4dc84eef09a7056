// What a deployment uses of each metered thing for a given traffic (docs/costs.md): Workers requests and
// CPU at each tier, Durable Objects, KV, Analytics Engine, Workers Logs, and the origin's egress.

import {
  COLD_REQUEST_CPU_MS,
  COLD_SLICED_CPU_MS_PER_MIB,
  COLD_WHOLE_CPU_MS_PER_MIB,
  EDGE_SHARE_OF_COLD,
  MEMORY_HIT_CPU_MS,
  WARM_REQUEST_CPU_MS,
  WARM_SLICE_CPU_MS_PER_MIB,
  WARM_WHOLE_CPU_MS_PER_MIB,
} from './measured-cpu.ts';
import {
  DURABLE_OBJECT_GB,
  LOG_EVENT_BYTES,
  LOG_RETENTION_DAYS,
  STATS_OBJECT_ACTIVE_MS,
  SUBREQUESTS,
} from './platform-operations.ts';

const MIB = 1024 * 1024;
export const DAY_MS = 86_400_000;
/** A month as the plans count one. */
export const MONTH_MS = 30 * DAY_MS;

/** Requests, and the body bytes they sent. */
export interface Volume {
  requests: number;
  bytes: number;
}

/** What the tiers did over a period: requests and bytes sent by outcome, as the stats count them. */
export interface Traffic {
  periodMs: number;
  edge: {
    /** Hits from the isolate's memory layer. */
    memoryHits: Volume;
    /** Hits from the edge's Cache API (stale, revalidated and collapsed answers among them). */
    cacheHits: Volume;
    /** Requests whose bytes came from the shield. */
    misses: Volume;
    /** Bypasses, refusals and errors. */
    other: Volume;
  };
  /** One request per whole object or slice the edge asked for. */
  shield: { hits: Volume; misses: Volume; other: Volume };
  /** Of the shield's requests, those for slices. */
  sliceRequests: number;
  /** The share of bytes that move as slices (0–1). */
  slicedShare: number;
  /** Bytes the shield fetched from the origin. */
  originBytes: number;
  /**
   * Hedges (shield/origin/endpoint-race.ts): more origin requests (subrequests of the shield's), and the bytes their
   * cancelled requests were charged, which the origin bills as egress besides originBytes; absent: none.
   */
  hedges?: Volume;
  /**
   * Segments the shield prefetched (shield/segment-prefetch.ts): each a shield miss nobody asked for yet (a lookup, the
   * origin's fetch, a put: subrequests of the read that started it, no request of its own) and its bytes from the
   * origin, which the stats count apart from the requests' (the read is the tier's own, recorded by none); absent: none.
   */
  prefetches?: Volume;
  /**
   * KV writes made for purges: per purge request a batch (up to 1,000 targets, one key) and the head key beside it (at
   * most once a second), plus the occasional snapshot of the list; a delete is billed as a write and counted among them.
   */
  purgeWrites: number;
  /** Share of records logged as JSON lines (LOG_SAMPLE). */
  logSample: number;
  /** Whether the tiers write to Analytics Engine (one point per counted request per tier). */
  analytics: boolean;
  /** The R2 tier behind the shield (shield/r2/), where it is on; absent: off. */
  r2?: R2Traffic;
}

/** What the R2 tier did over the period: the shield's misses it answered and those it fetched, what it kept. */
export interface R2Traffic {
  /** The shield's misses answered from R2. */
  hits: Volume;
  /** The shield's misses R2 did not hold, fetched from the origin (originBytes counts them). */
  misses: Volume;
  /** Gets made to answer both (a whole object's entry, or a slice's and its object's manifest), and heads: Class B. */
  lookups: number;
  /** Puts of what it admitted. */
  writes: number;
  /** Lists of its bucket: the walk of its index, a page a minute per shield isolate at most (R2_SWEEP_EVERY_MS). */
  lists: number;
  /**
   * What it kept, in byte-seconds over the period: the bytes kept on average times the period's length (a modelled
   * month), or the storage the period's puts commit to, each put's bytes times its retention (the stats: accrued when
   * it is put, not the bucket's size at any moment).
   */
  storedByteSeconds: number;
}

/**
 * The operations made per isolate per interval, over the same period: estimated
 * (refresh-design.ts, from platform-operations.ts) or counted (the stats store counts its own).
 */
export interface Operations {
  /** Stats flushes (each one Durable Object request), both tiers. */
  flushes: number;
  durableObjectRowsRead: number;
  durableObjectRowsWritten: number;
  /** Lists of the purge namespace (each one KV list request), both tiers. */
  kvLists: number;
  /**
   * KV gets, both tiers: reads of the purge head (refresh-design.ts), and of purge batches too large for their key's
   * metadata and of snapshots (counted by the stats; left out of a modelled month, few against the head's).
   */
  kvReads: number;
}

/** What the traffic uses, over its period. */
export interface Usage {
  periodMs: number;
  workersRequests: number;
  cpuMs: { edge: number; shield: number };
  /** Not billed; each request has a budget of them. */
  subrequests: number;
  durableObjectRequests: number;
  durableObjectGbSeconds: number;
  durableObjectRowsRead: number;
  durableObjectRowsWritten: number;
  kvListRequests: number;
  kvReadRequests: number;
  kvWriteRequests: number;
  analyticsDataPoints: number;
  logsIngestedGb: number;
  logsStoredGbMonths: number;
  /** Bytes the edge sent: what the origin would have sent without tiercache. */
  servedBytes: number;
  originBytes: number;
  /** The R2 tier's operations and storage, where it is on. */
  r2?: R2Usage;
}

/** What the R2 tier uses of R2 (developers.cloudflare.com/r2/pricing/): Class A and B operations, GB-months kept. */
interface R2Usage {
  /** Puts and lists. */
  classA: number;
  /** Gets. */
  classB: number;
  storageGbMonths: number;
}

export function usageOf(traffic: Traffic, operations: Operations): Usage {
  const { edge, shield } = traffic;
  const edgeRequests = edge.memoryHits.requests + edge.cacheHits.requests + edge.misses.requests + edge.other.requests;
  const shieldRequests = shield.hits.requests + shield.misses.requests + shield.other.requests;
  const cpu = cpuOf(traffic);
  // The copy of a slice read ahead is a shield invocation the stats count with its warm.
  const invocations = edgeRequests + shieldRequests + traffic.sliceRequests + operations.flushes;
  const logEvents = invocations + traffic.logSample * (edgeRequests + shieldRequests);
  const logsIngestedGb = (logEvents * LOG_EVENT_BYTES) / 1e9;
  return {
    periodMs: traffic.periodMs,
    workersRequests: edgeRequests,
    cpuMs: cpu,
    subrequests:
      subrequestsOf(traffic) +
      (traffic.hedges?.requests ?? 0) +
      (traffic.prefetches?.requests ?? 0) * SUBREQUESTS.shieldMiss,
    durableObjectRequests: operations.flushes,
    durableObjectGbSeconds: operations.flushes * (STATS_OBJECT_ACTIVE_MS / 1000) * DURABLE_OBJECT_GB,
    durableObjectRowsRead: operations.durableObjectRowsRead,
    durableObjectRowsWritten: operations.durableObjectRowsWritten,
    kvListRequests: operations.kvLists,
    kvReadRequests: operations.kvReads,
    kvWriteRequests: traffic.purgeWrites,
    analyticsDataPoints: traffic.analytics ? edgeRequests + shieldRequests : 0,
    logsIngestedGb,
    // Each GB stays queryable LOG_RETENTION_DAYS: that many thirtieths of a GB-month.
    logsStoredGbMonths: logsIngestedGb * (LOG_RETENTION_DAYS / 30),
    servedBytes: edge.memoryHits.bytes + edge.cacheHits.bytes + edge.misses.bytes + edge.other.bytes,
    originBytes: traffic.originBytes + (traffic.hedges?.bytes ?? 0) + (traffic.prefetches?.bytes ?? 0),
    ...(traffic.r2 === undefined ? {} : { r2: r2UsageOf(traffic.r2) }),
  };
}

/** The R2 tier's use: its puts and lists (Class A), its lookups (Class B), what it kept as GB-months. */
function r2UsageOf(r2: R2Traffic): R2Usage {
  return {
    classA: r2.writes + r2.lists,
    classB: r2.lookups,
    storageGbMonths: r2.storedByteSeconds / 1e9 / (MONTH_MS / 1000),
  };
}

/** The same use over `factor` times the period (a window scaled to a month). */
export function scaledUsage(usage: Usage, factor: number): Usage {
  const scale = (value: number): number => value * factor;
  return {
    periodMs: usage.periodMs * factor,
    workersRequests: scale(usage.workersRequests),
    cpuMs: { edge: scale(usage.cpuMs.edge), shield: scale(usage.cpuMs.shield) },
    subrequests: scale(usage.subrequests),
    durableObjectRequests: scale(usage.durableObjectRequests),
    durableObjectGbSeconds: scale(usage.durableObjectGbSeconds),
    durableObjectRowsRead: scale(usage.durableObjectRowsRead),
    durableObjectRowsWritten: scale(usage.durableObjectRowsWritten),
    kvListRequests: scale(usage.kvListRequests),
    kvReadRequests: scale(usage.kvReadRequests),
    kvWriteRequests: scale(usage.kvWriteRequests),
    analyticsDataPoints: scale(usage.analyticsDataPoints),
    logsIngestedGb: scale(usage.logsIngestedGb),
    logsStoredGbMonths: scale(usage.logsStoredGbMonths),
    servedBytes: scale(usage.servedBytes),
    originBytes: scale(usage.originBytes),
    ...(usage.r2 === undefined
      ? {}
      : {
          r2: {
            classA: scale(usage.r2.classA),
            classB: scale(usage.r2.classB),
            storageGbMonths: scale(usage.r2.storageGbMonths),
          },
        }),
  };
}

/**
 * CPU time at each tier (measured-cpu.ts): a request's own cost by where it was answered, and
 * its bytes' by whether they were stored already (warm) or came from the origin (cold, shared
 * between the tiers), whole or sliced by the traffic's sliced share. A slice's own request is in
 * the sliced rates; a whole object's is added per request.
 */
function cpuOf(traffic: Traffic): { edge: number; shield: number } {
  const { edge, shield, slicedShare } = traffic;
  const mib = (bytes: number): number => bytes / MIB;
  const warm = blend(WARM_WHOLE_CPU_MS_PER_MIB, WARM_SLICE_CPU_MS_PER_MIB, slicedShare);
  const cold = blend(COLD_WHOLE_CPU_MS_PER_MIB, COLD_SLICED_CPU_MS_PER_MIB, slicedShare);
  const shieldSent = shield.hits.bytes + shield.misses.bytes + shield.other.bytes;
  const wholeShieldRequests = Math.max(
    0,
    shield.hits.requests + shield.misses.requests + shield.other.requests - traffic.sliceRequests,
  );
  const edgeCpu =
    edge.memoryHits.requests * MEMORY_HIT_CPU_MS +
    (edge.cacheHits.requests + edge.other.requests) * WARM_REQUEST_CPU_MS +
    mib(edge.cacheHits.bytes) * warm +
    edge.misses.requests * COLD_REQUEST_CPU_MS * EDGE_SHARE_OF_COLD +
    // What the edge fetched from the shield it stores and sends: its share of a cold byte.
    mib(shieldSent) * cold * EDGE_SHARE_OF_COLD;
  // A prefetch is the shield's share of a whole miss: its request and its cold bytes, stored, sent to nobody.
  const prefetches = traffic.prefetches ?? { requests: 0, bytes: 0 };
  const shieldCpu =
    (wholeShieldRequests + prefetches.requests) * COLD_REQUEST_CPU_MS * (1 - EDGE_SHARE_OF_COLD) +
    mib(prefetches.bytes) * COLD_WHOLE_CPU_MS_PER_MIB * (1 - EDGE_SHARE_OF_COLD) +
    mib(shield.hits.bytes + shield.other.bytes) * warm +
    mib(shield.misses.bytes) * cold * (1 - EDGE_SHARE_OF_COLD);
  return { edge: edgeCpu, shield: shieldCpu };
}

function subrequestsOf(traffic: Traffic): number {
  const { edge, shield } = traffic;
  const wholeMisses = Math.max(0, edge.misses.requests * (1 - traffic.slicedShare));
  return (
    (edge.cacheHits.requests + edge.other.requests) * SUBREQUESTS.edgeHit +
    wholeMisses * SUBREQUESTS.edgeWholeMiss +
    traffic.sliceRequests * SUBREQUESTS.edgeSlice +
    (shield.hits.requests + shield.other.requests) * SUBREQUESTS.shieldHit +
    shield.misses.requests * SUBREQUESTS.shieldMiss
  );
}

function blend(whole: number, sliced: number, slicedShare: number): number {
  const share = Math.min(1, Math.max(0, Number.isFinite(slicedShare) ? slicedShare : 0));
  return whole + (sliced - whole) * share;
}
