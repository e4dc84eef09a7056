// Server-Timing (W3C Server Timing): one metric per tier that ran, `dur` in milliseconds.

export type TierMetric = 'edge' | 'shield' | 'origin';

export function serverTimingMetric(name: TierMetric, durationMs: number): string {
  return `${name};dur=${round(durationMs)}`;
}

/** Metrics already on the upstream response come first: they describe the hops behind us. */
export function appendServerTiming(existing: string | null, metric: string): string {
  const before = existing?.trim();
  return before ? `${before}, ${metric}` : metric;
}

function round(ms: number): number {
  return Math.max(0, Math.round(ms * 10) / 10);
}
