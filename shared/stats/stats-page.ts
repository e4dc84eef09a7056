// GET /__tiercache/stats (docs/operating.md): StatsJson as one self-contained HTML page (inline CSS and SVG, no
// script, no asset: it renders under default-src 'none'), readable on a phone, every string of the data escaped.

import { MONTH_MS } from '../cost/usage.ts';
import type { TierName } from '../tiers/tiers.ts';
import { formatBytes, formatCompact, formatCount, formatMs, formatRatio, formatTime, formatUsd } from './format.ts';
import { bigNumber, escapeHtml, factList, htmlTable } from './html.ts';
import { OUTCOMES } from './record.ts';
import { shownNextHop, shownTiers } from './shown-tiers.ts';
import type { StatsJson, TierStats } from './stats-json.ts';
import { minuteCharts } from './stats-page-charts.ts';
import { STATS_PAGE_CSS } from './stats-page-style.ts';
import { anyR2 } from './store-operations.ts';

export function statsPage(stats: StatsJson): string {
  const generated = formatTime(stats.generatedAt);
  // The R2 tier only where it made records (shown-tiers.ts): no empty card of a deployment without it.
  const shown = shownTiers(stats.tiers);
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
    ...shown.map((tier) => tierCard(tier, stats.tiers[tier], shownNextHop(shown, tier))),
    egressCard(stats.egress),
    '</div></section>',
    costSection(stats),
    `<section aria-labelledby="minutes-heading"><h2 id="minutes-heading">The last ${formatCount(stats.windowMinutes)} minutes</h2>${minuteCharts(stats, shown)}</section>`,
    `<section aria-labelledby="lists-heading"><h2 id="lists-heading">What happened</h2><div class="grid-lists">${outcomesTable(stats, shown)}${statsLists(stats)}</div></section>`,
    `<footer class="note">Generated ${escapeHtml(generated)}. Bytes in SI units (1 kB = 1,000 B; 1 TB = 10<sup>12</sup> B, as egress is priced). `,
    'Hit ratio: requests answered without fetching the object from the next tier; byte hit ratio: bytes sent that were not fetched.</footer>',
    '</main></body></html>',
  ].join('\n');
}

/** A tier's card, titled by its name; what it fetched is from `next`: the tier shown behind it, or the origin. */
function tierCard(tier: TierName, stats: TierStats, next: string): string {
  return [
    `<article class="card ${escapeHtml(tier)}"><h3>${escapeHtml(tier.charAt(0).toUpperCase() + tier.slice(1))}</h3>`,
    `<div class="bigs">${bigNumber(formatRatio(stats.hitRatio), 'hit ratio')}${bigNumber(formatRatio(stats.byteHitRatio), 'byte hit ratio')}</div>`,
    factList([
      ['requests', formatCount(stats.totals.requests)],
      ['mean time to first byte', formatMs(stats.ttfbMsMean)],
      ['bytes sent', formatBytes(stats.totals.bytesSent)],
      [`bytes from the ${next}`, formatBytes(stats.totals.bytesFromNextHop)],
      // Normal (a player that seeks, a download cut): counted, never an error.
      ['left before the body ended', formatCount(stats.totals.departed)],
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

/** Requests per outcome at each tier shown (every outcome, in record.ts's order). */
function outcomesTable(stats: StatsJson, shown: readonly TierName[]): string {
  return htmlTable({
    caption: 'Requests by outcome',
    columns: [{ title: 'outcome' }, ...shown.map((tier) => ({ title: tier, kind: 'number' as const }))],
    rows: OUTCOMES.map((outcome) => [
      outcome,
      ...shown.map((tier) => formatCount(stats.tiers[tier].outcomes[outcome].requests)),
    ]),
    empty: 'No requests.',
  });
}

/**
 * "What it costs" (stats-cost.ts, docs/costs.md): the window as a month at its rate, tiercache and the origin's
 * egress behind it against that egress alone, and each line of the Workers Paid bill; the prices' sources are in
 * docs/costs.md, which the note names (no link leaves the page).
 */
function costSection(stats: StatsJson): string {
  const { cost } = stats;
  const { month } = cost;
  const counted = cost.windowOperations;
  const cdn = month.cloudflareCache;
  const saved =
    month.savedUSD >= 0
      ? ['saved', formatUsd(month.savedUSD)]
      : ['costs more than egress alone', formatUsd(-month.savedUSD)];
  const card = [
    '<article class="card cost"><h3>A month at this rate</h3>',
    `<div class="bigs">${bigNumber(formatUsd(month.totalUSD), 'with tiercache')}${bigNumber(formatUsd(month.egressAloneUSD), 'origin egress alone')}</div>`,
    factList([
      ['Workers Paid, all lines', formatUsd(month.platformUSD)],
      ['of it the subscription', formatUsd(month.subscriptionUSD)],
      ['origin egress behind tiercache', formatUsd(month.originEgressUSD)],
      [saved[0] ?? '', saved[1] ?? ''],
      ["Cloudflare's cache in front (estimate)", `${formatUsd(cdn.lowUSD)} to ${formatUsd(cdn.highUSD)}`],
      ['tiercache against it', `${signed(cdn.lowUSD - month.totalUSD)} to ${signed(cdn.highUSD - month.totalUSD)}`],
      ['Durable Object requests counted', formatCount(counted.durableObjectRequests)],
      ['KV list requests counted', formatCount(counted.kvListRequests)],
      [
        'origin requests hedged (won, lost)',
        `${formatCount(counted.hedgesStarted)} (${formatCount(counted.hedgesWon)}, ${formatCount(counted.hedgesLost)})`,
      ],
      [
        'segments prefetched (used, wasted)',
        `${formatCount(counted.prefetched)} (${formatCount(counted.prefetchesUsed)}, ${formatCount(counted.prefetchesWasted)})`,
      ],
      [
        'prefetched bytes (wasted)',
        `${formatBytes(counted.prefetchBytes)} (${formatBytes(counted.prefetchWastedBytes)})`,
      ],
      ...r2Facts(stats),
    ]),
    '</article>',
  ].join('');
  const lines = htmlTable({
    caption: 'The month, line by line',
    // What each line's allowance is stays in stats.json: a phone has room for three columns.
    columns: [{ title: 'item' }, { title: "a month's use", kind: 'number' }, { title: 'USD', kind: 'number' }],
    rows: month.lines.map((line) => [line.item, `${formatCompact(line.quantity)} ${line.unit}`, formatUsd(line.usd)]),
    empty: 'Nothing counted.',
  });
  return [
    '<section aria-labelledby="cost-heading"><h2 id="cost-heading">What it costs</h2>',
    `<div class="grid-cost">${card}${lines}</div>`,
    `<p class="note">The last ${formatCount(stats.windowMinutes)} minutes as 30 days at the same rate, each line past its monthly allowance, at the Workers Paid prices read ${escapeHtml(cost.pricesReadAt)} and the origin's ${formatUsd(stats.egress.pricePerTB)} per TB (docs/costs.md). `,
    "CPU time is an upper bound measured on the local runtime, every edge hit priced as a Cache API hit; Durable Object, KV and R2 operations are the ones the stats store counted, R2 storage what the window's puts commit to for their retention (not the bucket's size). ",
    "Cloudflare's cache in front: nothing over 512 MB cached, no bandwidth charge, its tiers hitting as tiercache's do; from every object under 512 MB to every sliced object over it (the counts know no object's size), against which tiercache saves what is shown, a minus sign where it costs more.</p></section>",
  ].join('');
}

/**
 * The R2 tier's operations counted in the window, where the tier is (its records or its operations): its gets, puts
 * and lists, the bytes it put and the storage those puts commit to (each put's bytes for its retention, as
 * byte-months: R2 bills GB-months).
 */
function r2Facts(stats: StatsJson): [string, string][] {
  const counted = stats.cost.windowOperations;
  if (stats.tiers.r2.totals.requests === 0 && !anyR2(counted)) return [];
  return [
    [
      'R2 gets, puts, lists',
      `${formatCount(counted.r2Gets)}, ${formatCount(counted.r2Puts)}, ${formatCount(counted.r2Lists)}`,
    ],
    [
      'R2 bytes put (storage committed)',
      `${formatBytes(counted.r2PutBytes)} (${formatBytes(counted.r2StoredByteSeconds / (MONTH_MS / 1000))}-months)`,
    ],
  ];
}

/** USD, a saving that is a cost marked with a minus sign. */
function signed(usd: number): string {
  return usd >= 0 ? formatUsd(usd) : `−${formatUsd(-usd)}`;
}

/**
 * The ranked lists: the keys the edge misses most, the busiest hosts, why requests went around the cache and why
 * they failed, the recent purges; hosts, keys, reasons and purge values are what clients sent (htmlTable escapes them).
 */
function statsLists(stats: StatsJson): string {
  const window = `in the last ${stats.windowMinutes} minutes`;
  return [
    htmlTable({
      caption: 'Keys the edge misses most',
      columns: [
        { title: 'key', kind: 'key' },
        { title: 'misses', kind: 'number' },
      ],
      rows: stats.topMisses.map((miss) => [miss.key, formatCount(miss.misses)]),
      empty: `No misses ${window}.`,
    }),
    htmlTable({
      caption: 'Hosts at the edge',
      columns: [
        { title: 'host', kind: 'key' },
        { title: 'requests', kind: 'number' },
        { title: 'bytes sent', kind: 'number' },
      ],
      rows: stats.hosts.map((host) => [host.host, formatCount(host.requests), formatBytes(host.bytesSent)]),
      empty: `No requests ${window}.`,
    }),
    htmlTable({
      caption: 'Why requests bypassed the cache',
      columns: [{ title: 'tier' }, { title: 'reason', kind: 'key' }, { title: 'requests', kind: 'number' }],
      rows: stats.bypassReasons.map((row) => [row.tier, row.reason, formatCount(row.requests)]),
      empty: `No bypasses ${window}.`,
    }),
    htmlTable({
      caption: 'Errors',
      columns: [{ title: 'tier' }, { title: 'cause', kind: 'key' }, { title: 'requests', kind: 'number' }],
      rows: stats.errors.map((row) => [row.tier, row.reason, formatCount(row.requests)]),
      empty: `No errors ${window}.`,
    }),
    htmlTable({
      caption: 'Recent purges',
      columns: [{ title: 'when (UTC)', kind: 'time' }, { title: 'kind' }, { title: 'value', kind: 'key' }],
      rows: stats.recentPurges.map((purge) => [
        formatTime(purge.at),
        purge.kind,
        purge.kind === 'everything' ? '(everything)' : purge.value,
      ]),
      empty: 'No purges recorded.',
    }),
  ].join('');
}
