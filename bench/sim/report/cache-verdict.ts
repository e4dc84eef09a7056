// Which tier answered a response, read off its headers. tiercache says it per tier in RFC 9211 Cache-Status
// (members `tiercache-edge`, `tiercache-shield`: shared/tiers/tiers.ts; `hit`, or `fwd=<reason>` when it went
// forward); the sim's baselines name their tiers the same way (`varnish-edge`, `nginx-shield`, …: any member named
// `<cache>-edge` or `<cache>-shield`). Older configurations (bench/setup/peers/) add `X-Cache-Status: HIT|MISS|…`
// instead, one per cache that set it, the cache nearest the origin first when two did (joined with ", " as a
// repeated field is, RFC 9110 §5.3). What no header says is `undefined`: the report prints `n/a`, never a guess.

import { memberParams } from '../../../shared/http/cache-status.ts';
import { splitList } from '../../../shared/http/header-list.ts';
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
  if (value === undefined) return {};
  const names = splitList(value).map((member) => member.split(';', 1)[0]?.trim() ?? '');
  const edgeName = memberOf(names, EDGE?.statusMember, '-edge');
  const edge = edgeName === undefined ? undefined : answer(memberParams(value, edgeName));
  if (edge !== 'miss') return edge === undefined ? {} : { edge };
  const shieldName = memberOf(names, SHIELD?.statusMember, '-shield');
  const shield = shieldName === undefined ? undefined : answer(memberParams(value, shieldName));
  return shield === undefined ? { edge } : { edge, shield };
}

/** tiercache's own member when present, else the last member named `<cache><suffix>` (the nearest the client). */
function memberOf(names: readonly string[], ours: string | undefined, suffix: string): string | undefined {
  if (ours !== undefined && names.includes(ours)) return ours;
  return names.findLast((name) => name.endsWith(suffix));
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
