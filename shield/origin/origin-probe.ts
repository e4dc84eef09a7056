// The health check's question to the origin (docs/operating.md): one object (probe-target.ts), asked for as every
// request is (signed, for S3) within a bound, its answers read as its kind reads them (origin.ts `probe`).

import type { Config } from '../../shared/config/config.ts';
import { Disconnected, HttpError } from '../../shared/http/errors.ts';
import {
  HEALTH_CACHE_MS,
  HEALTH_PROBE_MS,
  type OriginFinding,
  type ShieldHealth,
} from '../../shared/http/health-report.ts';
import type { RequestTarget } from '../../shared/request/request-target.ts';
import type { Origin } from './origin.ts';
import { originOf } from './origin-of.ts';
import { unanswered } from './origin-state.ts';
import { probeFor } from './probe-target.ts';

type Finding = Omit<ShieldHealth, 'age'>;

interface Checked {
  /** When the probe finished (the shield's clock); undefined while it runs. */
  done: number | undefined;
  finding: Promise<Finding>;
}

/** Per configuration (one per isolate): the finding that answers for now. */
const checked = new WeakMap<Config, Checked>();

/**
 * The origin's health, probed at most once per HEALTH_CACHE_MS; `clock` is the shield's (the test
 * clock locally). A finding answers every health request of the isolate for that long, and requests
 * that arrive while a probe runs wait for it: a monitor polling every second costs the origin one
 * HEAD per window per isolate.
 */
export async function originHealth(config: Config, clock: () => number): Promise<ShieldHealth> {
  let entry = checked.get(config);
  if (entry === undefined || (entry.done !== undefined && clock() - entry.done >= HEALTH_CACHE_MS)) {
    entry = { done: undefined, finding: probeOrigin(config) };
    checked.set(config, entry);
    const running = entry;
    // Registered before any request awaits the finding: each sees when it was made.
    void running.finding.then(() => (running.done = clock()));
  }
  const finding = await entry.finding;
  return { ...finding, age: Math.max(0, Math.floor((clock() - (entry.done ?? clock())) / 1000)) };
}

/** One probe; never throws (every failure is a finding). */
async function probeOrigin(config: Config): Promise<Finding> {
  const probe = probeFor(config);
  const started = Date.now();
  const finding = await probeWithin(
    originOf(probe.config),
    probe.target,
    Math.min(config.originTimeoutMs, HEALTH_PROBE_MS),
  );
  return { ...finding, probe: probe.source, probeMs: Date.now() - started };
}

/**
 * What `origin` answers the probe for `target` within `bound` ms in all (a busy one asked again within it too), as
 * its kind reads the answers (origin.ts `probe`); never throws (no answer at all is a finding too).
 */
export function probeWithin(origin: Origin, target: RequestTarget, bound: number): Promise<OriginFinding> {
  const deadline = Date.now() + bound;
  return origin
    .probe((method, forwarded = {}) =>
      origin.fetch(target, method, forwarded, { timeoutMs: Math.max(1, deadline - Date.now()) }),
    )
    .catch((error: unknown) => failed(error, bound));
}

function failed(error: unknown, bound: number): OriginFinding {
  if (error instanceof Disconnected) return unanswered(error.detail === 'origin-timeout', bound);
  if (error instanceof HttpError) return { origin: 'error', detail: error.message };
  // A request that could not be built (a bucket name the addressing cannot carry): the
  // message names the value, so it goes to the log, not to the public answer.
  console.error('shield: health probe', error);
  return {
    origin: 'error',
    detail:
      'the request for the probed object could not be made: check S3_BUCKET and S3_ADDRESSING (the shield logged why)',
  };
}
