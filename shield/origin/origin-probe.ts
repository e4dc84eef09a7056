// The health check's question to the origin (docs/operating.md): a HEAD of one object (probe-target.ts), signed as
// every request is, so the answer says whether the origin serves with the configured credentials; never the bucket.

import type { Config } from '../../shared/config/config.ts';
import { Disconnected, HttpError } from '../../shared/http/errors.ts';
import {
  HEALTH_CACHE_MS,
  HEALTH_PROBE_MS,
  type OriginFinding,
  type ShieldHealth,
} from '../../shared/http/health-report.ts';
import type { RequestTarget } from '../../shared/request/request-target.ts';
import { fetchObject } from './object-fetch.ts';
import { readErrorBody, s3ErrorCode } from './origin-errors.ts';
import { needsErrorCode, s3Finding, siteFinding, unanswered } from './origin-state.ts';
import { type Probe, probeFor } from './probe-target.ts';
import type { ForwardedHeaders } from './s3-request.ts';

/** One byte at most, should the key name an object after all: S3's error code is in a GET's body only. */
const ERROR_CODE_RANGE = 'bytes=0-0';

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
export async function probeOrigin(config: Config): Promise<Finding> {
  const probe = probeFor(config);
  const started = Date.now();
  const bound = Math.min(config.originTimeoutMs, HEALTH_PROBE_MS);
  const finding = await ask(probe, started + bound).catch((error: unknown) => failed(error, bound));
  return { ...finding, probe: probe.source, probeMs: Date.now() - started };
}

async function ask({ config, target }: Probe, deadline: number): Promise<OriginFinding> {
  const head = await once(config, target, 'HEAD', {}, deadline);
  await head.body?.cancel();
  if (config.originKind === 'http') return siteFinding(head.status);
  if (!needsErrorCode(head.status)) return s3Finding(head.status, undefined);
  // The same object, GET: its error body names the cause (NoSuchKey or NoSuchBucket, which
  // credential); no object byte is sent with an error.
  const get = await once(config, target, 'GET', { range: ERROR_CODE_RANGE }, deadline);
  if (get.status < 300) {
    await get.body?.cancel();
    return s3Finding(get.status, undefined);
  }
  return s3Finding(get.status, s3ErrorCode(await readErrorBody(get)));
}

/** One request, within what is left of the probe's time (a busy S3 asked again within it too). */
function once(
  config: Config,
  target: RequestTarget,
  method: 'GET' | 'HEAD',
  forwarded: ForwardedHeaders,
  deadline: number,
): Promise<Response> {
  const left = Math.max(1, deadline - Date.now());
  return fetchObject({ ...config, originTimeoutMs: left }, target, method, forwarded, Date.now);
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
