// The purge's paths (docs/purge.md "Paths"): the records (KV, always: the backstop) and, where the deployment gives
// the means (CF_API_TOKEN, CF_ZONE_ID), Cloudflare's zone purge; what the answer says of each (its bound and the
// layers it reaches) and the bound that applies to the whole purge (shared/purge/purge-bounds.ts).

import type { Config } from '../shared/config/config.ts';
import { originTraits } from '../shared/config/origin-traits.ts';
import {
  BOUND_KIND,
  PLATFORM_BOUND_BASIS,
  PLATFORM_REACHES,
  PLATFORM_REACHES_EVERY_LOCATION_WITHIN,
  type PurgeLayer,
  purgeBound,
  purgeBoundBasis,
  REACHES_EVERY_LOCATION_WITHIN,
  RECORDS_BOUND_BASIS,
  recordsReach,
} from '../shared/purge/purge-bounds.ts';
import type { PurgeRecord } from '../shared/purge/purge-rules.ts';
import { MAX_CALLS_PER_PURGE, QUEUE_BUDGET_MS, zonePurgeCalls } from '../shared/purge/zone-purge.ts';
import { sendZonePurge, type ZonePurgePort, type ZonePurgeReport } from './zone-purge-client.ts';

/**
 * A bound as the answer states it: the time (machine-readable, `65s`), that it is a typical figure and not a
 * guarantee (`bound`), and what it rests on, quoted from the platform's page (`boundBasis`).
 */
interface StatedBound {
  reachesEveryLocationWithin: string;
  bound: typeof BOUND_KIND;
  boundBasis: string;
}

export interface PurgePaths extends StatedBound {
  paths: {
    platform:
      | (StatedBound & { sent: true; reaches: readonly PurgeLayer[]; calls: ZonePurgeReport[] })
      | { sent: false; reason: string; calls: ZonePurgeReport[] };
    records: StatedBound & { reaches: readonly PurgeLayer[] };
  };
  /**
   * The platform's bound when every call was accepted and no layer it cannot reach may hold a copy (the edge's memory
   * layer off), else the records' (purge-bounds.ts purgeBound); `boundBasis` the same one's.
   */
  reachesEveryLocationWithin: string;
}

/** The platform purge of `records` (when configured), made after they are recorded; never throws. */
export async function purgePaths(
  records: readonly PurgeRecord[],
  purgeUrl: URL,
  config: Config,
  port: ZonePurgePort,
): Promise<PurgePaths> {
  // The edge's memory layer (worker/edge-cache.ts edgeMemory): on unless MEMORY_CACHE_SIZE is 0.
  const memoryLayer = config.memory.budget > 0;
  const records_: PurgePaths['paths']['records'] = {
    reachesEveryLocationWithin: REACHES_EVERY_LOCATION_WITHIN,
    reaches: recordsReach(memoryLayer),
    bound: BOUND_KIND,
    boundBasis: RECORDS_BOUND_BASIS,
  };
  const recordsOnly = (reason: string, calls: ZonePurgeReport[] = []): PurgePaths => ({
    paths: { platform: { sent: false, reason, calls }, records: records_ },
    reachesEveryLocationWithin: purgeBound(false, memoryLayer),
    bound: BOUND_KIND,
    boundBasis: purgeBoundBasis(false, memoryLayer),
  });
  const zone = config.zonePurge;
  if (zone === undefined) return recordsOnly('not configured (CF_API_TOKEN and CF_ZONE_ID)');
  const hosts = servedHosts(purgeUrl, config);
  const calls = zonePurgeCalls(records, hosts);
  if (calls.length === 0) return recordsOnly('nothing for the platform to purge');
  if (calls.length > MAX_CALLS_PER_PURGE)
    return recordsOnly(
      `${calls.length} calls (prefixes on ${hosts.length} hosts) would pass the ${MAX_CALLS_PER_PURGE} one purge makes`,
    );
  const reports = await sendZonePurge(calls, zone, port);
  const notSent = reports.filter((report) => report.outcome !== 'sent');
  if (notSent.length > 0)
    return recordsOnly(`${notSent.length} of ${reports.length} calls not accepted (${said(notSent)})`, reports);
  return {
    paths: {
      platform: {
        sent: true,
        reachesEveryLocationWithin: PLATFORM_REACHES_EVERY_LOCATION_WITHIN,
        reaches: PLATFORM_REACHES,
        bound: BOUND_KIND,
        boundBasis: PLATFORM_BOUND_BASIS,
        calls: reports,
      },
      records: records_,
    },
    reachesEveryLocationWithin: purgeBound(true, memoryLayer),
    bound: BOUND_KIND,
    boundBasis: purgeBoundBasis(true, memoryLayer),
  };
}

/** What became of the calls not accepted, a clause per outcome (a purge of 1,000 targets makes a dozen calls). */
function said(notSent: readonly ZonePurgeReport[]): string {
  const limited = notSent.filter((report) => report.outcome === 'rateLimited');
  const clauses =
    limited.length === 0
      ? []
      : [
          `${limited.length} rate-limited, queued to be tried again from ${Math.ceil((limited[0]?.retryAfterMs ?? 0) / 1000)}s on, for at most ${QUEUE_BUDGET_MS / 1000}s after this answer`,
        ];
  for (const report of notSent)
    if (report.outcome === 'refused' || report.outcome === 'failed')
      clauses.push(`${report.outcome}: ${report.reason}`);
  return clauses.join('; ');
}

/** The hosts a prefix is purged on: the one the purge came to, and (S3) every one HOST_BUCKETS names. */
function servedHosts(purgeUrl: URL, config: Config): string[] {
  return [...new Set([purgeUrl.host, ...originTraits(config).namedHosts])];
}

/** The port as the runtime gives it. */
export function runtimePort(waitUntil: (work: Promise<unknown>) => void): ZonePurgePort {
  return {
    fetch: (url, init) => fetch(url, init),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    waitUntil,
    now: () => Date.now(),
  };
}
