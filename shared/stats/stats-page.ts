// GET /__tiercache/stats (docs/operating.md): the stats as one small HTML page, made
// whole here from StatsJson. Self-contained (inline CSS, inline SVG, no script, no asset), so it
// renders under a CSP of default-src 'none' plus inline styles; readable on a phone. Every
// string of the data is escaped (html-escape.ts): hosts and keys are what clients sent.

import { formatBytes, formatCount, formatMs, formatRatio, formatTime, formatUsd } from './format.ts';
import { escapeHtml } from './html-escape.ts';
import { bigNumber, factList } from './html-facts.ts';
import { htmlTable } from './html-table.ts';
import { OUTCOMES, type StatsTier } from './record.ts';
import type { StatsJson, TierStats } from './stats-json.ts';
import { minuteCharts } from './stats-page-charts.ts';
import { costSection } from './stats-page-cost.ts';
import { statsLists } from './stats-page-lists.ts';
import { STATS_PAGE_CSS } from './stats-page-style.ts';

const TIERS: readonly StatsTier[] = ['edge', 'shield'];
const TIER_NAMES: Record<StatsTier, string> = { edge: 'Edge', shield: 'Shield' };

export function statsPage(stats: StatsJson): string {
  const generated = formatTime(stats.generatedAt);
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    '<meta name="robots" content="noindex">',
    `<title>tiercache stats · ${escapeHtml(generated)}</title>`,
    `<style>${STATS_PAGE_CSS}</style></head><body><main>`,
    '<header><div><h1>tiercache stats</h1>',
    `<p class="meta">The last ${formatCount(stats.windowMinutes)} minutes, as of <time datetime="${escapeHtml(stats.generatedAt)}">${escapeHtml(generated)}</time></p></div>`,
    '<nav class="actions" aria-label="This page"><a class="button" href="stats">Refresh</a><a class="button" href="stats.json">JSON</a></nav></header>',
    '<section aria-labelledby="tiers-heading"><h2 id="tiers-heading">Tiers and egress</h2><div class="grid-cards">',
    ...TIERS.map((tier) => tierCard(tier, stats.tiers[tier])),
    egressCard(stats.egress),
    '</div></section>',
    costSection(stats),
    `<section aria-labelledby="minutes-heading"><h2 id="minutes-heading">The last ${formatCount(stats.windowMinutes)} minutes</h2>${minuteCharts(stats)}</section>`,
    `<section aria-labelledby="lists-heading"><h2 id="lists-heading">What happened</h2><div class="grid-lists">${outcomesTable(stats)}${statsLists(stats)}</div></section>`,
    `<footer class="note">Generated ${escapeHtml(generated)}. Bytes in SI units (1 kB = 1,000 B; 1 TB = 10<sup>12</sup> B, as egress is priced). `,
    'Hit ratio: requests answered without fetching the object from the next tier; byte hit ratio: bytes sent that were not fetched.</footer>',
    '</main></body></html>',
  ].join('\n');
}

function tierCard(tier: StatsTier, stats: TierStats): string {
  return [
    `<article class="card ${tier}"><h3>${TIER_NAMES[tier]}</h3>`,
    `<div class="bigs">${bigNumber(formatRatio(stats.hitRatio), 'hit ratio')}${bigNumber(formatRatio(stats.byteHitRatio), 'byte hit ratio')}</div>`,
    factList([
      ['requests', formatCount(stats.totals.requests)],
      ['mean time to first byte', formatMs(stats.ttfbMsMean)],
      ['bytes sent', formatBytes(stats.totals.bytesSent)],
      [tier === 'edge' ? 'bytes from the shield' : 'bytes from the origin', formatBytes(stats.totals.bytesFromNextHop)],
    ]),
    '</article>',
  ].join('');
}

function egressCard(egress: StatsJson['egress']): string {
  return [
    '<article class="card egress"><h3>Origin egress</h3>',
    `<div class="bigs">${bigNumber(formatUsd(egress.savedUSD), 'saved')}${bigNumber(formatBytes(egress.savedBytes), 'not fetched from the origin')}</div>`,
    factList([
      ['served by the edge', formatBytes(egress.servedBytes)],
      ['fetched from the origin', formatBytes(egress.originBytes)],
      ['origin egress cost', formatUsd(egress.spentUSD)],
      ['price', `${formatUsd(egress.pricePerTB)} per TB`],
    ]),
    '</article>',
  ].join('');
}

/** Requests per outcome at each tier (every outcome, in record.ts's order). */
function outcomesTable(stats: StatsJson): string {
  return htmlTable({
    caption: 'Requests by outcome',
    columns: [{ title: 'outcome' }, ...TIERS.map((tier) => ({ title: tier, kind: 'number' as const }))],
    rows: OUTCOMES.map((outcome) => [
      outcome,
      ...TIERS.map((tier) => formatCount(stats.tiers[tier].outcomes[outcome].requests)),
    ]),
    empty: 'No requests.',
  });
}
