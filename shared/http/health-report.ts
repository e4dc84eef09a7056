// What the health check says of the origin, as the shield answers it and the edge passes it on
// (docs/operating.md): one of a few states a monitor can switch on, and a sentence for the operator.

import type { PurgeListState } from '../purge/purge-rules.ts';
import { isShieldCache, type ShieldCache } from '../tiers/shield-caches.ts';

/**
 * `ok`: the origin answers with the configured credentials (a NoSuchKey for the probed key
 * counts: the bucket and the signature were accepted). `credentials`: S3 refused our signature
 * or access (403, or a code naming the credentials or their region). `no-such-bucket`: the
 * bucket is not there. `unreachable`: no connection. `timeout`: no answer within the probe's
 * time. `error`: it answered, but with something no object can be served through (a 5xx, a
 * redirect to another region's endpoint, a 400).
 */
export const ORIGIN_STATES = ['ok', 'credentials', 'no-such-bucket', 'unreachable', 'timeout', 'error'] as const;
export type OriginState = (typeof ORIGIN_STATES)[number];

/** Which key the probe asked for: HEALTH_KEY, the one last served from the origin, or one that names no object. */
const PROBE_SOURCES = ['HEALTH_KEY', 'recent', 'default'] as const;
export type ProbeSource = (typeof PROBE_SOURCES)[number];

/**
 * The longest a health probe waits for the origin (its HEAD and, when S3 needs asking for its
 * error code, the GET after it, together), or ORIGIN_TIMEOUT_MS when that is shorter: a
 * monitor wants its answer within its own timeout (commonly 5–10 s), and an origin slower
 * than this to answer a HEAD is not serving well either.
 */
export const HEALTH_PROBE_MS = 3_000;

/** How long one probe's finding answers every health request of an isolate. */
export const HEALTH_CACHE_MS = 5_000;

/** The origin's state and why, as found by one probe. */
export interface OriginFinding {
  origin: OriginState;
  /** A sentence for the operator: what was asked, what came back, which setting to check. */
  detail: string;
}

/** The shield's health answer (its JSON body). */
export interface ShieldHealth extends OriginFinding {
  probe: ProbeSource;
  /** How long the probe took (ms). */
  probeMs: number;
  /** Seconds since the probe (its finding is kept HEALTH_CACHE_MS). */
  age: number;
  /** How the shield isolate's reads of the purge list went; absent from a shield older than the field. */
  purgeList?: PurgeListState;
  /** Where the shield ran (tierLocation); absent from a shield older than the field. */
  colo?: string;
  /** Which cache the shield keeps its copies in; absent from a shield older than the field. */
  cache?: ShieldCache;
  /** Each endpoint of an origin ORIGIN_URL lists several of, as the shield isolate has seen it; absent for one. */
  endpoints?: OriginEndpoint[];
  /** The shield isolate's transfers to the origin against its budget; absent from a shield older than the field. */
  transfers?: OriginTransfers;
}

/** The transfer budget as one shield isolate keeps it (shield/origin/transfer-budget.ts, docs/operating.md "Health"). */
export interface OriginTransfers {
  /** ORIGIN_CONCURRENCY. */
  capacity: number;
  /** What the origin lately accepted: `capacity` until it answered busy. */
  limit: number;
  inFlight: number;
  waiting: number;
  /** While the limit is held down after a busy answer: until when (ms epoch). */
  coolingUntil?: number;
}

/** An endpoint's circuit (shield/origin/endpoint-health.ts): asked; skipped for now; one trial under way or due. */
const CIRCUIT_STATES = ['closed', 'open', 'half-open'] as const;
export type CircuitState = (typeof CIRCUIT_STATES)[number];

/** What the health answer says of one endpoint of the origin (docs/operating.md "Health"). */
export interface OriginEndpoint {
  /** Its origin (scheme, host, port) and base path: never credentials or a query. */
  endpoint: string;
  state: CircuitState;
  /** Failures in a row (0 once it answered well). */
  failures: number;
  /** Its first bytes, a decaying average (ms); absent until it answered once. */
  firstByteMs?: number;
  /** Until when it is skipped (ms epoch), while open. */
  openUntil?: number;
}

/** What a tier says of where it ran when the platform names no location (the local stack, a test). */
export const LOCAL_COLO = 'local';

/**
 * Where the tier that got `request` runs: Cloudflare's `request.cf.colo`, the IATA code of the data center that
 * received it (https://developers.cloudflare.com/workers/runtime-apis/request/#incomingrequestcfproperties), or
 * LOCAL_COLO when there is none. `npm run verify` tells two runs' locations apart by it.
 */
export function tierLocation(request: Request): string {
  const colo = (request as Request & { cf?: { colo?: unknown } }).cf?.colo;
  return isColo(colo) ? colo : LOCAL_COLO;
}

/** Whether `value` has a data center code's shape (an IATA code, or LOCAL_COLO): nothing else is echoed. */
function isColo(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9-]{1,16}$/.test(value);
}

/** Whether an origin in this state can serve objects: the health answer is 200 iff so, else 503. */
export function canServe(state: OriginState): boolean {
  return state === 'ok';
}

/**
 * The shield's health JSON as the edge got it, or undefined when it is not one (a refusal, a proxy's
 * page). The shield finds the state (shield/origin/origin-probe.ts); the edge reads it back here,
 * never trusting more than these fields.
 */
export function readShieldHealth(value: unknown): ShieldHealth | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const fields = value as Record<string, unknown>;
  const origin = ORIGIN_STATES.find((state) => state === fields.origin);
  const probe = PROBE_SOURCES.find((source) => source === fields.probe);
  const { detail, probeMs, age } = fields;
  if (origin === undefined || probe === undefined || typeof detail !== 'string') return undefined;
  if (!isCount(probeMs) || !isCount(age)) return undefined;
  const purgeList = readPurgeListState(fields.purgeList);
  const colo = isColo(fields.colo) ? fields.colo : undefined;
  return {
    origin,
    detail,
    probe,
    probeMs,
    age,
    ...(purgeList === undefined ? {} : { purgeList }),
    ...(colo === undefined ? {} : { colo }),
    ...(isShieldCache(fields.cache) ? { cache: fields.cache } : {}),
    ...(Array.isArray(fields.endpoints) ? { endpoints: readEndpoints(fields.endpoints) } : {}),
    ...readTransfers(fields.transfers),
  };
}

/** The transfers as the shield wrote them, when every count is one. */
function readTransfers(value: unknown): { transfers?: OriginTransfers } {
  if (typeof value !== 'object' || value === null) return {};
  const { capacity, limit, inFlight, waiting, coolingUntil } = value as Record<string, unknown>;
  if (!isCount(capacity) || !isCount(limit) || !isCount(inFlight) || !isCount(waiting)) return {};
  return {
    transfers: { capacity, limit, inFlight, waiting, ...(isCount(coolingUntil) ? { coolingUntil } : {}) },
  };
}

/** The endpoints as the shield wrote them: only well-formed entries, at most a few (MAX_ORIGIN_ENDPOINTS). */
function readEndpoints(values: unknown[]): OriginEndpoint[] {
  return values.slice(0, 8).flatMap((value): OriginEndpoint[] => {
    if (typeof value !== 'object' || value === null) return [];
    const { endpoint, state, failures, firstByteMs, openUntil } = value as Record<string, unknown>;
    const circuit = CIRCUIT_STATES.find((known) => known === state);
    if (typeof endpoint !== 'string' || endpoint.length > 300 || circuit === undefined || !isCount(failures)) return [];
    return [
      {
        endpoint,
        state: circuit,
        failures,
        ...(isCount(firstByteMs) ? { firstByteMs } : {}),
        ...(isCount(openUntil) ? { openUntil } : {}),
      },
    ];
  });
}

/** A purge list state as the shield wrote it, or undefined when it is not one. */
function readPurgeListState(value: unknown): PurgeListState | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { state, age, failing } = value as Record<string, unknown>;
  if (state === 'read') return isCount(age) ? { state, age } : undefined;
  if (state === 'unread') return isCount(failing) ? { state, failing } : undefined;
  if (state === 'failing') return isCount(failing) && isCount(age) ? { state, failing, age } : undefined;
  return state === 'not read yet' || state === 'unbound' ? { state } : undefined;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
