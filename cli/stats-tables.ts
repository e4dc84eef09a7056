// `npm run stats` as tables: what the stats page shows (docs/operating.md), for a
// terminal. Per tier its ratios, latency and outcomes; the origin egress it saved and what that
// is worth; the last minutes; then the ranked lists (stats-lists.ts). Pure: StatsJson in, text out.

import {
  formatAmount,
  formatBytes,
  formatCount,
  formatMinute,
  formatMs,
  formatRatio,
  formatTime,
  formatUsd,
} from '../shared/stats/format.ts';
import type { Outcome, StatsTier } from '../shared/stats/record.ts';
import type { StatsJson, TierStats } from '../shared/stats/stats-json.ts';
import { TIER_NAMES } from '../shared/tiers/tiers.ts';
import { statsLists } from './stats-lists.ts';
import { textTable } from './text-table.ts';

/** The outcomes in the order a reader follows them (record.ts); `satisfies` makes a new outcome a type error here. */
const OUTCOME_ORDER = { hit: 0, stale: 1, revalidated: 2, collapsed: 3, miss: 4, bypass: 5, error: 6 } satisfies Record<
  Outcome,
  number
>;
/** The minutes printed: the window's newest. */
export const RECENT_MINUTES = 10;

export function renderStats(stats: StatsJson, source: string): string {
  return [
    `tiercache stats for ${source}: the last ${stats.windowMinutes} minutes, as of ${formatTime(stats.generatedAt)}`,
    tiersTable(stats),
    ...TIER_NAMES.map((tier) => outcomesTable(tier, stats.tiers[tier])),
    egressTable(stats.egress),
    // An edge older than the cost estimate answers none: its table is left out.
    ...(isCost(stats.cost) ? [costTable(stats.cost)] : []),
    minutesTable(stats),
    ...statsLists(stats),
  ].join('\n\n');
}

function tiersTable(stats: StatsJson): string {
  const rows = TIER_NAMES.map((tier) => {
    const { totals, hitRatio, byteHitRatio, ttfbMsMean } = stats.tiers[tier];
    return [
      tier,
      formatCount(totals.requests),
      formatRatio(hitRatio),
      formatRatio(byteHitRatio),
      formatMs(ttfbMsMean),
      formatBytes(totals.bytesSent),
    ];
  });
  return textTable(
    'Tiers',
    [
      { title: 'tier' },
      { title: 'requests', align: 'right' },
      { title: 'hit ratio', align: 'right' },
      { title: 'byte hit ratio', align: 'right' },
      { title: 'mean TTFB', align: 'right' },
      { title: 'bytes sent', align: 'right' },
    ],
    rows,
  );
}

function outcomesTable(tier: StatsTier, stats: TierStats): string {
  const order = (name: string): number =>
    name in OUTCOME_ORDER ? OUTCOME_ORDER[name as Outcome] : Number.MAX_SAFE_INTEGER;
  const names = Object.keys(stats.outcomes).sort((a, b) => order(a) - order(b));
  const rows = names.flatMap((name) => {
    const totals = stats.outcomes[name as Outcome];
    return [
      [
        name,
        formatCount(totals.requests),
        formatBytes(totals.bytesSent),
        formatBytes(totals.bytesFromNextHop),
        formatBytes(totals.bytesFromOrigin),
      ],
    ];
  });
  return textTable(
    `Outcomes at the ${tier}`,
    [
      { title: 'outcome' },
      { title: 'requests', align: 'right' },
      { title: 'bytes sent', align: 'right' },
      { title: 'from next hop', align: 'right' },
      { title: 'from origin', align: 'right' },
    ],
    rows,
  );
}

function egressTable(egress: StatsJson['egress']): string {
  const rows = [
    ['origin bytes', formatBytes(egress.originBytes), formatUsd(egress.spentUSD)],
    ['served', formatBytes(egress.servedBytes), ''],
    ['saved', formatBytes(egress.savedBytes), formatUsd(egress.savedUSD)],
  ];
  return textTable(
    `Egress (origin priced at ${formatUsd(egress.pricePerTB)} per TB)`,
    [{ title: '' }, { title: 'bytes', align: 'right' }, { title: 'USD', align: 'right' }],
    rows,
  );
}

/** The window as a month at its rate (docs/costs.md): each line of the bill, then what it comes to against the origin's egress alone. */
function costTable(cost: StatsJson['cost']): string {
  const { month } = cost;
  const rows = [
    ...month.lines.map((line) => [line.item, `${formatAmount(line.quantity)} ${line.unit}`, formatUsd(line.usd)]),
    ['Workers Paid subscription', '', formatUsd(month.subscriptionUSD)],
    ['origin egress behind tiercache', '', formatUsd(month.originEgressUSD)],
    ['with tiercache', '', formatUsd(month.totalUSD)],
    ['origin egress alone', '', formatUsd(month.egressAloneUSD)],
  ];
  return textTable(
    `Cost, a month at this rate (prices read ${cost.pricesReadAt}; docs/costs.md)`,
    [{ title: '' }, { title: 'use', align: 'right' }, { title: 'USD', align: 'right' }],
    rows,
  );
}

function isCost(value: unknown): value is StatsJson['cost'] {
  const month = typeof value === 'object' && value !== null ? (value as { month?: unknown }).month : undefined;
  return typeof month === 'object' && month !== null && Array.isArray((month as { lines?: unknown }).lines);
}

function minutesTable(stats: StatsJson): string {
  const minutes = stats.minutes.slice(-RECENT_MINUTES);
  const rows = minutes.map(({ minute, tiers }) => [
    formatMinute(minute),
    formatCount(tiers.edge.requests),
    formatCount(tiers.edge.hits),
    formatBytes(tiers.edge.bytesSent),
    formatCount(tiers.shield.requests),
    formatCount(tiers.shield.hits),
    formatBytes(tiers.shield.bytesFromNextHop),
  ]);
  return textTable(
    `Requests per minute, the last ${minutes.length} (UTC)`,
    [
      { title: 'minute' },
      { title: 'edge', align: 'right' },
      { title: 'edge hits', align: 'right' },
      { title: 'edge sent', align: 'right' },
      { title: 'shield', align: 'right' },
      { title: 'shield hits', align: 'right' },
      { title: 'from origin', align: 'right' },
    ],
    rows,
  );
}
