// Server-Timing (W3C Server Timing): one metric per tier that ran, `dur` in milliseconds.

import type { TierName } from '../tiers/tiers.ts';

export type TierMetric = TierName | 'origin';
/** Per tier, the time until the first slice a request needed was in hand. */
export type SliceMetric = `${TierName}-slice`;

export function serverTimingMetric(name: TierMetric | SliceMetric, durationMs: number): string {
  return `${name};dur=${round(durationMs)}`;
}

/** Metrics already on the upstream response come first: they describe the hops behind us. */
export function appendServerTiming(existing: string | null | undefined, metric: string | null | undefined): string {
  return [existing?.trim(), metric?.trim()].filter(Boolean).join(', ');
}

function round(ms: number): number {
  return Math.max(0, Math.round(ms * 10) / 10);
}
