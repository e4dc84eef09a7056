// What a `npm run verify` run saw (pure types and readings): its reads, the health answer, a purge timed, the stats
// before and after, where it ran; and how a read's Cache-Status is read. cli/verify.ts gathers them, verify-lines.ts
// judges them.

import { type CacheStatusParams, memberParams } from '../shared/http/cache-status.ts';
import { tier } from '../shared/tiers/tiers.ts';

/** One GET as the run saw it. */
export interface Read {
  path: string;
  /** The Range asked for, `bytes=…`; absent for a whole read. */
  range?: string;
  /** 0 when no answer came (then `error`). */
  status: number;
  cacheStatus: string | null;
  contentRange?: string | null;
  /** Bytes received. */
  bytes: number;
  /** SHA-256 of the body received, hex. */
  sha256: string;
  ms: number;
  error?: string;
}

/** A range read and the hash of the same bytes cut out of the whole read. */
export interface RangeRead extends Read {
  start: number;
  end: number;
  /** SHA-256 of bytes start..end of the whole read (undefined when the whole read did not reach them). */
  expectedSha256: string | undefined;
}

/** GET /__tiercache/health (worker/health.ts), the fields the judge reads. */
export interface HealthSeen {
  status: number;
  error?: string;
  shield?: string;
  origin?: string;
  originDetail?: string;
  colo?: string;
  shieldColo?: string;
  version?: string;
}

type Skip = { skipped: string };

export type PurgeSeen =
  | Skip
  | { refused: string }
  | {
      path: string;
      /** Whether the edge held a copy when the purge was sent (else there was nothing to see go). */
      heldBefore: boolean;
      /** ms from the purge's acceptance to the first answer not from the old copy; undefined = not within the bound. */
      tookMs: number | undefined;
      polls: number;
      limitMs: number;
      /** What the edge's member said last. */
      last: string | null;
    };

export type StatsSeen =
  | Skip
  | { refused: string }
  | {
      /** Bytes the shield fetched from the origin during the run (stats.json's window, after − before). */
      originBytes: number;
      /** Bytes the edge sent meanwhile (after − before). */
      edgeBytes: number;
      /** Requests the edge counted meanwhile (after − before), and how many this run made. */
      edgeRequests: number;
      requestsMade: number;
      waitedMs: number;
      /** Whether the window moved past minutes with shield traffic between the two reads (the sums lost them). */
      windowMoved: boolean;
    };

/** Where a run was: the edge's base and each tier's location (colo). */
export interface Place {
  base: string;
  edge: string;
  shield: string;
  /** The local stack's other edge locations (its note's `locations`), when the run is at a local stack's edge. */
  otherLocations?: string[];
}

/** What a previous run's report says (verify-report.ts reads it back). */
export interface PreviousRun extends Place {
  at: string;
  object?: { path: string; edge: string; shield: string };
  sliced?: { path: string; edge: string; shield: string };
}

export interface Observations {
  place: Place;
  health: HealthSeen;
  object: Skip | { path: string; first: Read; second: Read };
  sliced: Skip | { path: string; whole: Read; range: RangeRead; seek: RangeRead };
  purge: PurgeSeen;
  stats: StatsSeen;
  previous: PreviousRun | undefined;
}

const EDGE = tier('edge').statusMember;
const SHIELD = tier('shield').statusMember;
/** What a colo is when the platform names none (shared/http/health-report.ts LOCAL_COLO; cli/ does not import it). */
const LOCAL = 'local';

/** Whether two runs were at different locations: their edges' colos, or (where one names none) their bases. */
export function differentLocations(a: Place, b: Place): boolean {
  if (a.edge === LOCAL || b.edge === LOCAL) return new URL(a.base).origin !== new URL(b.base).origin;
  return a.edge !== b.edge;
}

/** A tier's member of a read's Cache-Status, as the tier wrote it (cache-status.ts), or undefined. */
export function member(read: Pick<Read, 'cacheStatus'>, which: 'edge' | 'shield'): CacheStatusParams | undefined {
  return memberParams(read.cacheStatus, which === 'edge' ? EDGE : SHIELD);
}

/** A member in a few words: `hit`, `fwd=uri-miss; stored`, `(none)`. */
export function memberWords(params: CacheStatusParams | undefined): string {
  if (params === undefined) return '(none)';
  const words = [
    ...(params.hit ? ['hit'] : []),
    ...(params.fwd === undefined ? [] : [`fwd=${params.fwd}`]),
    ...(params.fwdStatus === undefined ? [] : [`fwd-status=${params.fwdStatus}`]),
    ...(params.stored ? ['stored'] : []),
    ...(params.collapsed ? ['collapsed'] : []),
    ...(params.detail === undefined ? [] : [`detail="${params.detail}"`]),
  ];
  return words.length === 0 ? '(no outcome)' : words.join('; ');
}

/** `slices H/C of T` (docs/caching.md "Cache-Status on a sliced object"): stored H of C looked up, of T asked. */
export function sliceCounts(
  params: CacheStatusParams | undefined,
): { held: number; looked: number; of: number } | undefined {
  const match = /slices (\d+)\/(\d+)(?: of (\d+))?/.exec(params?.detail ?? '');
  if (match === null) return undefined;
  const looked = Number(match[2]);
  return { held: Number(match[1]), looked, of: match[3] === undefined ? looked : Number(match[3]) };
}
