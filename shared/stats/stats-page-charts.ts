// The stats page's charts: requests and bytes sent per minute over the window, one line per
// tier, with a legend in HTML beside each (readable without colour: the tiers are named).

import { formatBytes, formatCount, formatMinute } from './format.ts';
import { escapeHtml } from './html-escape.ts';
import type { StatsTier } from './record.ts';
import type { StatsJson } from './stats-json.ts';
import { type ChartSeries, lineChart } from './svg-chart.ts';

const TIERS: readonly StatsTier[] = ['edge', 'shield'];

export function minuteCharts(stats: StatsJson): string {
  const labels = stats.minutes.map((minute) => `${formatMinute(minute.minute)} UTC`);
  const series = (value: (tiers: StatsJson['minutes'][number]['tiers'], tier: StatsTier) => number): ChartSeries[] =>
    TIERS.map((tier) => ({ name: tier, tone: tier, values: stats.minutes.map((minute) => value(minute.tiers, tier)) }));
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
  return `<div class="grid-charts">${figure('Requests per minute', requests)}${figure('Bytes sent per minute', bytes)}</div>`;
}

function figure(caption: string, svg: string): string {
  const legend = TIERS.map(
    (tier) => `<li><span class="swatch tone-${tier}" aria-hidden="true"></span>${tier}</li>`,
  ).join('');
  return `<figure class="card"><h3>${escapeHtml(caption)}</h3>${svg}<figcaption><ul class="legend">${legend}</ul></figcaption></figure>`;
}
