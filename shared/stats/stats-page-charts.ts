// The stats page's charts: requests and bytes sent per minute, one line per tier shown (shown-tiers.ts), as inline SVG
// (no script, no asset: it draws under the page's CSP), named in an HTML legend and described in words (WAI-ARIA 1.2
// role "img").

import type { TierName } from '../tiers/tiers.ts';
import { formatBytes, formatCount, formatMinute } from './format.ts';
import { escapeHtml } from './html.ts';
import type { StatsJson } from './stats-json.ts';

interface ChartSeries {
  name: string;
  /** CSS class suffix: `tone-edge` colours the line and area (stats-page-style.ts). */
  tone: string;
  /** One value per label, oldest first. */
  values: readonly number[];
}

export interface LineChartSpec {
  /** Unique on the page: the ids of the title and description. */
  id: string;
  title: string;
  /** Under the x axis: the first, middle and last are shown. */
  labels: readonly string[];
  series: readonly ChartSeries[];
  /** How a value on the y axis and in the description reads. */
  format: (value: number) => string;
}

const WIDTH = 400;
const HEIGHT = 180;
const LEFT = 56;
const RIGHT = 8;
const TOP = 10;
const BOTTOM = 24;
const PLOT_W = WIDTH - LEFT - RIGHT;
const PLOT_H = HEIGHT - TOP - BOTTOM;

/** The smallest 1, 2 or 5 × 10^k at least `value` (1 for nothing to show): the top of the y axis. */
export function niceCeiling(value: number): number {
  if (!(value > 0) || !Number.isFinite(value)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 5, 10].find((factor) => factor * power >= value * (1 - 1e-12)) ?? 10;
  // Past 5e307 the next step is Infinity, below 1e-323 the power of ten is 0: the value itself is top enough.
  const top = step * power;
  return top > 0 && Number.isFinite(top) ? top : value;
}

export function lineChart(spec: LineChartSpec): string {
  const count = Math.max(spec.labels.length, ...spec.series.map((series) => series.values.length));
  const top = niceCeiling(Math.max(0, ...spec.series.flatMap((series) => series.values.filter(Number.isFinite))));
  const x = (index: number): number => LEFT + (count <= 1 ? PLOT_W : (index / (count - 1)) * PLOT_W);
  const y = (value: number): number => TOP + PLOT_H - (Math.min(Math.max(value, 0), top) / top) * PLOT_H;
  const id = escapeHtml(spec.id);
  return [
    `<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id}-title ${id}-desc" preserveAspectRatio="xMidYMid meet">`,
    `<title id="${id}-title">${escapeHtml(spec.title)}</title>`,
    `<desc id="${id}-desc">${escapeHtml(describe(spec))}</desc>`,
    ...[0, 0.5, 1].map((share) => gridLine(y(top * share), spec.format(top * share))),
    ...xLabels(spec.labels, x),
    ...spec.series.map((series) => seriesPaths(series, x, y)),
    '</svg>',
  ].join('');
}

/** The window's two charts, a line for each tier `shown`, each chart with its legend. */
export function minuteCharts(stats: StatsJson, shown: readonly TierName[]): string {
  const labels = stats.minutes.map((minute) => `${formatMinute(minute.minute)} UTC`);
  const series = (value: (tiers: StatsJson['minutes'][number]['tiers'], tier: TierName) => number): ChartSeries[] =>
    shown.map((tier) => ({
      name: tier,
      tone: tier,
      values: stats.minutes.map((minute) => value(minute.tiers, tier)),
    }));
  const requests = lineChart({
    id: 'requests-chart',
    title: 'Requests per minute',
    labels,
    series: series((tiers, tier) => tiers[tier].requests),
    format: formatCount,
  });
  const bytes = lineChart({
    id: 'bytes-chart',
    title: 'Bytes sent per minute',
    labels,
    series: series((tiers, tier) => tiers[tier].bytesSent),
    format: formatBytes,
  });
  return `<div class="grid-charts">${figure('Requests per minute', requests, shown)}${figure('Bytes sent per minute', bytes, shown)}</div>`;
}

/** A chart with its legend: readable without colour, the tiers are named. */
function figure(caption: string, svg: string, shown: readonly TierName[]): string {
  const legend = shown
    .map(
      (tier) => `<li><span class="swatch tone-${escapeHtml(tier)}" aria-hidden="true"></span>${escapeHtml(tier)}</li>`,
    )
    .join('');
  return `<figure class="card"><h3>${escapeHtml(caption)}</h3>${svg}<figcaption><ul class="legend">${legend}</ul></figcaption></figure>`;
}

/** In words: each line's total and its peak, with the minute of the peak. */
function describe(spec: LineChartSpec): string {
  const parts = spec.series.map((series) => {
    const values = series.values.map((value) => (Number.isFinite(value) ? value : 0));
    const total = values.reduce((sum, value) => sum + value, 0);
    const peak = Math.max(0, ...values);
    const at = spec.labels[values.indexOf(peak)];
    return `${series.name}: ${spec.format(total)} in all, at most ${spec.format(peak)}${peak > 0 && at !== undefined ? ` (${at})` : ''}`;
  });
  return `${spec.title}, ${spec.labels[0] ?? ''} to ${spec.labels.at(-1) ?? ''}. ${parts.join('; ')}.`;
}

function gridLine(at: number, label: string): string {
  const level = at.toFixed(1);
  return `<line class="grid" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${level}" y2="${level}"/><text class="axis" x="${LEFT - 4}" y="${level}" text-anchor="end" dominant-baseline="middle">${escapeHtml(label)}</text>`;
}

function xLabels(labels: readonly string[], x: (index: number) => number): string[] {
  const shown = [...new Set([0, Math.floor((labels.length - 1) / 2), labels.length - 1])].filter((index) => index >= 0);
  return shown.map((index, i) => {
    const anchor = shown.length === 1 ? 'end' : i === 0 ? 'start' : i === shown.length - 1 ? 'end' : 'middle';
    return `<text class="axis" x="${x(index).toFixed(1)}" y="${HEIGHT - 6}" text-anchor="${anchor}">${escapeHtml(labels[index] ?? '')}</text>`;
  });
}

function seriesPaths(series: ChartSeries, x: (index: number) => number, y: (value: number) => number): string {
  if (series.values.length === 0) return '';
  const points = series.values.map(
    (value, index) => `${x(index).toFixed(1)},${y(Number.isFinite(value) ? value : 0).toFixed(1)}`,
  );
  const base = y(0).toFixed(1);
  const first = x(0).toFixed(1);
  const last = x(series.values.length - 1).toFixed(1);
  const tone = `tone-${escapeHtml(series.tone)}`;
  return `<path class="area ${tone}" d="M${first},${base}L${points.join('L')}L${last},${base}Z"/><path class="line ${tone}" d="M${points.join('L')}"><title>${escapeHtml(series.name)}</title></path>`;
}
