// Server-Timing (W3C Server Timing): one metric per tier that ran, `dur` in milliseconds; read back as metrics
// (name, dur, desc) when a tier folds the metrics of several answers of the hop behind it into one per name.

import type { TierName } from '../tiers/tiers.ts';
import { splitList, splitOutsideQuotes } from './header-list.ts';

export type TierMetric = TierName | 'origin';
/** Per tier, the time until the first slice a request needed was in hand. */
export type SliceMetric = `${TierName}-slice`;

/** One metric of the field: `name`, then its `dur` (ms) and `desc`, each optional (W3C Server Timing §3). */
export interface TimingMetric {
  name: string;
  dur?: number | undefined;
  desc?: string | undefined;
}

export function serverTimingMetric(name: TierMetric | SliceMetric, durationMs: number): string {
  return `${name};dur=${round(durationMs)}`;
}

/** Metrics already on the upstream response come first: they describe the hops behind us. */
export function appendServerTiming(existing: string | null | undefined, metric: string | null | undefined): string {
  return [existing?.trim(), metric?.trim()].filter(Boolean).join(', ');
}

/**
 * The metrics of a Server-Timing value, in order. Lenient as the W3C processing model is: a member whose name is not
 * a token is skipped, a `dur` that is not a number is left out, and of a parameter given twice the first counts.
 */
export function parseServerTiming(value: string | null | undefined): TimingMetric[] {
  const metrics: TimingMetric[] = [];
  for (const member of splitList(value ?? '')) {
    const [head = '', ...params] = splitOutsideQuotes(member, ';');
    const name = head.trim();
    if (!TOKEN.test(name)) continue;
    const metric: TimingMetric = { name };
    for (const param of params) {
      const eq = param.indexOf('=');
      const key = (eq < 0 ? param : param.slice(0, eq)).trim().toLowerCase();
      const raw = eq < 0 ? '' : unquote(param.slice(eq + 1).trim());
      if (key === 'dur' && metric.dur === undefined && /^-?\d+(\.\d+)?$/.test(raw)) metric.dur = Number(raw);
      else if (key === 'desc' && metric.desc === undefined) metric.desc = raw;
    }
    metrics.push(metric);
  }
  return metrics;
}

/** A metric as the field writes it: `name;dur=<ms>;desc="<text>"`, each parameter only when given. */
export function formatTimingMetric(metric: TimingMetric): string {
  const dur = metric.dur === undefined ? '' : `;dur=${round(metric.dur)}`;
  return `${metric.name}${dur}${metric.desc === undefined ? '' : `;desc=${quoted(metric.desc)}`}`;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function unquote(value: string): string {
  if (value.length < 2 || !value.startsWith('"') || !value.endsWith('"')) return value;
  return value.slice(1, -1).replace(/\\(.)/g, '$1');
}

/** RFC 9110 §5.6.4 quoted-string: the two specials escaped; what is not printable ASCII (or a tab) dropped. */
function quoted(text: string): string {
  return `"${text.replace(/[^\t\x20-\x7e]/g, '').replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

function round(ms: number): number {
  return Math.max(0, Math.round(ms * 10) / 10);
}
