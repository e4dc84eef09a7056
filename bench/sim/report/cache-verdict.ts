// Which tier answered a response, read off its headers. tiercache says it per tier in RFC 9211 Cache-Status
// (members `tiercache-edge`, `tiercache-shield`: shared/tiers/tiers.ts; `hit`, or `fwd=<reason>` when it went
// forward); the baselines say less: the Varnish and nginx configurations (bench/setup/peers/) add
// `X-Cache-Status: HIT|MISS|…`, one per cache that set it, the cache nearest the origin first when two did (each
// tier's value joined with ", " as a repeated field is, RFC 9110 §5.3). What no header says is `undefined`: the
// report prints `n/a`, never a guess.

import { memberParams } from '../../../shared/http/cache-status.ts';
import { TIERS } from '../../../shared/tiers/tiers.ts';

export type TierAnswer = 'hit' | 'miss';

/** What the response says each tier did; a tier is absent when it said nothing or was not reached. */
export interface TierVerdict {
  edge?: TierAnswer;
  shield?: TierAnswer;
}

/** The path a response took, as far as its headers tell: `forwarded` is an edge miss whose next tier said nothing. */
export type PathTaken = 'hit' | 'shield-hit' | 'miss' | 'forwarded' | 'unknown';

export interface VerdictHeaders {
  cacheStatus?: string;
  xCacheStatus?: string;
}

const [EDGE, SHIELD] = TIERS;

export function tierVerdict(headers: VerdictHeaders): TierVerdict {
  const fromCacheStatus = cacheStatusVerdict(headers.cacheStatus);
  if (fromCacheStatus.edge !== undefined) return fromCacheStatus;
  return xCacheStatusVerdict(headers.xCacheStatus);
}

export function pathTaken(verdict: TierVerdict): PathTaken {
  if (verdict.edge === 'hit') return 'hit';
  if (verdict.edge === undefined) return 'unknown';
  if (verdict.shield === 'hit') return 'shield-hit';
  return verdict.shield === 'miss' ? 'miss' : 'forwarded';
}

/** RFC 9211 §2.1 `hit`, §2.2 `fwd`: a tier behind the edge is read only where the edge went forward. */
function cacheStatusVerdict(value: string | undefined): TierVerdict {
  if (value === undefined || EDGE === undefined || SHIELD === undefined) return {};
  const edge = answer(memberParams(value, EDGE.statusMember));
  if (edge !== 'miss') return edge === undefined ? {} : { edge };
  const shield = answer(memberParams(value, SHIELD.statusMember));
  return shield === undefined ? { edge } : { edge, shield };
}

function answer(params: { hit?: boolean; fwd?: string } | undefined): TierAnswer | undefined {
  if (params?.fwd !== undefined) return 'miss';
  return params?.hit ? 'hit' : undefined;
}

/** nginx's `$upstream_cache_status` (HIT, MISS, EXPIRED, STALE, UPDATING, REVALIDATED, BYPASS) and the VCL's HIT/MISS. */
function xCacheStatusVerdict(value: string | undefined): TierVerdict {
  const values = (value ?? '')
    .split(',')
    .map((part) => part.trim().toUpperCase())
    .filter(Boolean);
  const edge = xAnswer(values.at(-1));
  if (edge === undefined) return {};
  if (edge === 'hit' || values.length < 2) return { edge };
  const shield = xAnswer(values.at(-2));
  return shield === undefined ? { edge } : { edge, shield };
}

function xAnswer(value: string | undefined): TierAnswer | undefined {
  if (value === 'HIT' || value === 'STALE' || value === 'UPDATING' || value === 'REVALIDATED') return 'hit';
  if (value === 'MISS' || value === 'EXPIRED' || value === 'BYPASS') return 'miss';
  return undefined;
}
