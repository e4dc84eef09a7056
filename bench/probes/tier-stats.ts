// The per-tier view of a few responses: how tiercache's tiers answered them, from RFC 9211
// Cache-Status (hits and forwards at the edge, and at the shield for what the edge forwarded) and
// the Server-Timing durations each tier reports.

import { EDGE_CACHE_NAME, SHIELD_CACHE_NAME } from '../../shared/http/cache-status.ts';
import { splitList } from '../../shared/http/header-list.ts';
import type { HeaderSample } from '../load/load-result.ts';
import { mean } from '../report/statistics.ts';

export interface TierCount {
  hits: number;
  forwards: number;
  /** hits / (hits + forwards); NaN when no response said either. */
  hitRatio: number;
}

export type TimedTier = 'edge' | 'shield' | 'origin';

export interface TierStats {
  samples: number;
  /** From the `tiercache-edge` member: `hit`, or `fwd=…` (any reason). */
  edge: TierCount;
  /** From the `tiercache-shield` member, on the responses the edge forwarded only. */
  shield: TierCount;
  /** Mean Server-Timing `dur` per tier, over the `count` responses that carry its metric. */
  timing: Record<TimedTier, { meanMs: number; count: number }>;
}

export function tierStats(samples: readonly HeaderSample[]): TierStats {
  const edge = { hits: 0, forwards: 0 };
  const shield = { hits: 0, forwards: 0 };
  const timing = { edge: [] as number[], shield: [] as number[], origin: [] as number[] };
  for (const sample of samples) {
    const members = cacheStatusMembers(sample.headers['cache-status']);
    const atEdge = verdict(members.get(EDGE_CACHE_NAME));
    if (atEdge) edge[atEdge]++;
    // The shield's member describes this response only when the edge went forward for it.
    const atShield = atEdge === 'forwards' ? verdict(members.get(SHIELD_CACHE_NAME)) : undefined;
    if (atShield) shield[atShield]++;
    for (const [name, dur] of serverTimingDurations(sample.headers['server-timing'])) {
      if (name === 'edge' || name === 'shield' || name === 'origin') timing[name].push(dur);
    }
  }
  const summary = (durations: number[]) => ({ meanMs: mean(durations), count: durations.length });
  return {
    samples: samples.length,
    edge: { ...edge, hitRatio: edge.hits / (edge.hits + edge.forwards) },
    shield: { ...shield, hitRatio: shield.hits / (shield.hits + shield.forwards) },
    timing: { edge: summary(timing.edge), shield: summary(timing.shield), origin: summary(timing.origin) },
  };
}

// RFC 9211 Cache-Status and Server-Timing, read as far as tierStats needs.

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
