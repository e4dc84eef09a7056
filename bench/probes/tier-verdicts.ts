// How tiercache's tiers answered a few responses, read off them: each tier's RFC 9211 Cache-Status verdict
// (a tier behind counted only where the one before it went forward) and the Server-Timing each tier reports.

import { splitList } from '../../shared/http/header-list.ts';
import type { TierMetric } from '../../shared/http/server-timing.ts';
import { TIER_NAMES, TIERS, type TierName } from '../../shared/tiers/tiers.ts';
import type { HeaderSample } from '../load/load-result.ts';
import { mean } from '../report/statistics.ts';

interface TierCount {
  hits: number;
  forwards: number;
  /** hits / (hits + forwards); NaN when no response said either. */
  hitRatio: number;
}

/**
 * Per tier (`edge` from the `tiercache-edge` member …): `hit`, or `fwd=…` (any reason), on the responses the tiers
 * before it forwarded only.
 */
export type TierVerdicts = { samples: number } & Record<TierName, TierCount> & {
    /** Mean Server-Timing `dur` per tier, over the `count` responses that carry its metric. */
    timing: Record<TierMetric, { meanMs: number; count: number }>;
  };

const TIMED: readonly TierMetric[] = [...TIER_NAMES, 'origin'];

export function tierVerdicts(samples: readonly HeaderSample[]): TierVerdicts {
  const counts = TIERS.map(() => ({ hits: 0, forwards: 0 }));
  const timing = new Map<string, number[]>(TIMED.map((name) => [name, []]));
  for (const sample of samples) {
    const members = cacheStatusMembers(sample.headers['cache-status']);
    // A tier's member describes this response only when the tiers before it went forward for it.
    for (const [index, entry] of TIERS.entries()) {
      const said = verdict(members.get(entry.statusMember));
      const count = counts[index];
      if (said !== undefined && count !== undefined) count[said]++;
      if (said !== 'forwards') break;
    }
    for (const [name, dur] of serverTimingDurations(sample.headers['server-timing'])) timing.get(name)?.push(dur);
  }
  const summary = (name: TierMetric) => {
    const durations = timing.get(name) ?? [];
    return { meanMs: mean(durations), count: durations.length };
  };
  const tiers = Object.fromEntries(
    TIERS.map((entry, index) => {
      const { hits, forwards } = counts[index] ?? { hits: 0, forwards: 0 };
      return [entry.name, { hits, forwards, hitRatio: hits / (hits + forwards) }];
    }),
  ) as Record<TierName, TierCount>;
  return {
    samples: samples.length,
    ...tiers,
    timing: Object.fromEntries(TIMED.map((name) => [name, summary(name)])) as TierVerdicts['timing'],
  };
}

// RFC 9211 Cache-Status and Server-Timing, read as far as tierVerdicts needs.

/** Each member's parameters by cache name; a quoted detail may hold ';' (RFC 8941 sf-string). */
function cacheStatusMembers(value: string | undefined): Map<string, Map<string, string>> {
  const members = new Map<string, Map<string, string>>();
  for (const member of splitList(value ?? '')) {
    const [name = '', ...params] = parameters(member);
    // A parameter without a value is the boolean true, ?1 (RFC 8941 §3.1.2).
    members.set(
      name,
      new Map(
        params.map((param) =>
          param.includes('=')
            ? [param.slice(0, param.indexOf('=')), param.slice(param.indexOf('=') + 1)]
            : [param, '?1'],
        ),
      ),
    );
  }
  return members;
}

/** RFC 9211 §2.1 `hit`: served without going forward; §2.2 `fwd`: went forward, whatever the reason. */
function verdict(params: Map<string, string> | undefined): keyof Omit<TierCount, 'hitRatio'> | undefined {
  if (params?.has('fwd')) return 'forwards';
  return params?.get('hit') === '?1' ? 'hits' : undefined;
}

function serverTimingDurations(value: string | undefined): [string, number][] {
  return splitList(value ?? '').flatMap((metric) => {
    const [name = '', ...params] = parameters(metric);
    const dur = params.find((param) => param.startsWith('dur='));
    const ms = Number(dur?.slice('dur='.length) || Number.NaN);
    return Number.isFinite(ms) ? [[name, ms] as [string, number]] : [];
  });
}

/** `item;a=1;b` split on the ';' outside quoted strings, quoted values blanked, trimmed. */
function parameters(item: string): string[] {
  return item
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .split(';')
    .map((part) => part.trim());
}
