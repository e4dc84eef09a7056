// How long a purge takes to reach every location: after the origin has a new version of the path and the system was
// told to purge it at one location, every location is asked for the path again and again until it answers the new
// version (its ETag, and its bytes checked). The time at a location is from the purge's call to its first answer of
// the new version, to within one probe interval.

import { Agent } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { type ReplayResult, send } from './replay.ts';
import type { SimLocation } from './system.ts';
import type { TraceRequest } from './workload/trace.ts';

const PROBE_INTERVAL_MS = 250;

export interface PurgeTiming {
  path: string;
  /** Where the purge was made. */
  at: number;
  /** Per location, ms from the purge's call until it answered the new version; undefined: not within the deadline. */
  takenMs: (number | undefined)[];
  /** The purge call's own time (its answer). */
  callMs: number;
  /** Every probe's result: counted in the ledger (the system saw them) and checked as any request is. */
  probes: ReplayResult[];
}

export async function timePurge(
  purge: (path: string, at: number) => Promise<void>,
  request: TraceRequest,
  locations: readonly SimLocation[],
  options: { version: number; size: number; deadlineMs: number },
): Promise<PurgeTiming> {
  const started = performance.now();
  await purge(request.path, request.location);
  const callMs = performance.now() - started;
  const probes: ReplayResult[] = [];
  const agent = new Agent({ keepAlive: true });
  try {
    const takenMs = await Promise.all(
      locations.map(async (location, index) => {
        while (performance.now() - started < options.deadlineMs) {
          const probe: TraceRequest = {
            atMs: 0,
            location: index,
            method: 'GET',
            path: request.path,
            tag: 'purge-probe',
          };
          const result = await send(location.url, agent, probe, {
            index: -1,
            size: options.size,
            late: 0,
            version: options.version,
          });
          probes.push(result);
          if (result.versionServed === options.version && !result.wrong) return performance.now() - started;
          await delay(PROBE_INTERVAL_MS);
        }
        return undefined;
      }),
    );
    return { path: request.path, at: request.location, takenMs, callMs, probes };
  } finally {
    agent.destroy();
  }
}
