// `npm run stats` (docs/operating.md): asks the deployment for /__tiercache/stats.json and prints what the
// stats page shows, for a terminal, as tables (or the JSON as it came).

import { STATS_JSON_PATH } from '../shared/request/reserved-paths.ts';
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
import type { Outcome } from '../shared/stats/record.ts';
import { shownNextHop, shownTiers } from '../shared/stats/shown-tiers.ts';
import type { StatsJson, TierStats } from '../shared/stats/stats-json.ts';
import { isOptional, TIER_NAMES, type TierName } from '../shared/tiers/tiers.ts';
import { CliFailure, failureExit, usageError } from './cli-failure.ts';
import { type CliContext, isEntry, processContext } from './command.ts';
import {
  type Api,
  apiRequest,
  callApi,
  DEPLOYMENT_FLAG,
  DEPLOYMENT_USAGE,
  findDeployment,
  parseJsonAnswer,
} from './edge-api.ts';
import { parseFlags, single } from './flags.ts';
import { PORT_FLAG } from './local-stacks.ts';
import { textTable } from './print.ts';

export const STATS_USAGE = `usage: npm run stats -- [--base https://cdn.example] [--json]

Prints the edge's stats (GET <base>/__tiercache/stats.json) as tables.
${DEPLOYMENT_USAGE}
  --json          print the JSON the edge answered instead of tables
  --help          this text
Token: STATS_TOKEN, else the local stack's (for the local stack's URL only).
Exit: 0 printed; 1 the edge could not be reached or refused; 2 usage, no local stack or no token.`;

export const STATS_API: Api = {
  path: STATS_JSON_PATH,
  method: 'GET',
  tokenName: 'STATS_TOKEN',
  stackField: 'statsToken',
  refused: "the token was refused: set STATS_TOKEN to the deployment's secret",
  disabled: 'stats are disabled on this deployment: set the STATS_TOKEN secret',
};

export interface StatsArgs {
  base: string | undefined;
  /** --port: the local stack on that port. */
  port: string | undefined;
  json: boolean;
  help: boolean;
}

/** The lists of stats.json the tables read. */
const LISTS = ['minutes', 'hosts', 'topMisses', 'bypassReasons', 'errors', 'recentPurges'] as const;
/** The outcomes in the order a reader follows them (record.ts); `satisfies` makes a new outcome a type error here. */
const OUTCOME_ORDER = { hit: 0, stale: 1, revalidated: 2, collapsed: 3, miss: 4, bypass: 5, error: 6 } satisfies Record<
  Outcome,
  number
>;
/** The minutes printed: the window's newest. */
const RECENT_MINUTES = 10;

/** The command, as a function of its arguments and context, answering the exit code. */
export async function runStats(argv: readonly string[], context: CliContext): Promise<number> {
  try {
    const args = parseStatsArgs(argv);
    if (args.help) {
      context.out(STATS_USAGE);
      return 0;
    }
    const deployment = await findDeployment(STATS_API, args.base, context, args.port);
    const request = apiRequest(STATS_API, deployment);
    const stats = parseStatsAnswer(await callApi(request, context), request.url.href);
    context.out(args.json ? JSON.stringify(stats, null, 2) : renderStats(stats, deployment.base.origin));
    return 0;
  } catch (error) {
    return failureExit(error, context.err);
  }
}

export function parseStatsArgs(argv: readonly string[]): StatsArgs {
  // --url is parsed only to be refused with the flag to use: it names an object in `npm run purge`.
  const flags = parseFlags(
    argv,
    {
      [DEPLOYMENT_FLAG]: { type: 'string' },
      [PORT_FLAG]: { type: 'string' },
      url: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean' },
    },
    STATS_USAGE,
  );
  if ((flags.strings.url ?? []).length > 0) {
    throw usageError(
      `npm run stats names the deployment with --${DEPLOYMENT_FLAG} https://cdn.example, as npm run purge does (--url is purge's flag for an object)`,
      STATS_USAGE,
    );
  }
  return {
    base: single(flags, DEPLOYMENT_FLAG, STATS_USAGE),
    port: single(flags, PORT_FLAG, STATS_USAGE),
    json: flags.booleans.json === true,
    help: flags.booleans.help === true,
  };
}

/**
 * A 200's body read as StatsJson, checked only as far as the tables read it: a URL that answers something else
 * (a site's HTML page, an older deployment) is named for what it is instead of printing a table of blanks.
 */
export function parseStatsAnswer(text: string, from: string): StatsJson {
  const value = parseJsonAnswer(text, from);
  const missing = missingField(value);
  if (missing !== undefined)
    throw new CliFailure(
      `${from} answered JSON that is not tiercache's stats (no ${missing}): is the edge older than the CLI?`,
    );
  return value as StatsJson;
}

/**
 * Per tier shown (the R2 tier only where it made records: shared/stats/shown-tiers.ts) its ratios, latency and
 * outcomes; the egress saved and its worth; the last minutes; the ranked lists.
 */
export function renderStats(stats: StatsJson, source: string): string {
  const shown = shownTiers(stats.tiers);
  return [
    `tiercache stats for ${source}: the last ${stats.windowMinutes} minutes, as of ${formatTime(stats.generatedAt)}`,
    tiersTable(stats, shown),
    ...shown.map((tier) => outcomesTable(tier, stats.tiers[tier], shownNextHop(shown, tier))),
    egressTable(stats.egress),
    // An edge older than the cost estimate answers none: its table is left out.
    ...(isCost(stats.cost) ? [costTable(stats.cost)] : []),
    minutesTable(stats, shown),
    ...rankedLists(stats),
  ].join('\n\n');
}

/** The first field the tables need that `value` lacks, or undefined. */
function missingField(value: unknown): string | undefined {
  if (!isObject(value)) return 'object';
  if (typeof value.generatedAt !== 'string') return 'generatedAt';
  if (!isObject(value.tiers)) return 'tiers';
  for (const tier of TIER_NAMES) {
    const stats = value.tiers[tier];
    // An edge older than an optional tier (the R2 tier) answers none of it: that tier is not shown.
    if (stats === undefined && isOptional(tier)) continue;
    if (!isObject(stats) || !isObject(stats.totals) || !isObject(stats.outcomes)) return `tiers.${tier}`;
  }
  if (!isObject(value.egress)) return 'egress';
  return LISTS.find((name) => !Array.isArray(value[name]));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function tiersTable(stats: StatsJson, shown: readonly TierName[]): string {
  const rows = shown.map((tier) => {
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

/** A tier's outcomes; what it fetched came from `next` (the tier shown behind it, or the origin). */
function outcomesTable(tier: TierName, stats: TierStats, next: string): string {
  const order = (name: string): number =>
    name in OUTCOME_ORDER ? OUTCOME_ORDER[name as Outcome] : Number.MAX_SAFE_INTEGER;
  const names = Object.keys(stats.outcomes).sort((a, b) => order(a) - order(b));
  const rows = names.map((name) => {
    const totals = stats.outcomes[name as Outcome];
    return [
      name,
      formatCount(totals.requests),
      formatBytes(totals.bytesSent),
      formatBytes(totals.bytesFromNextHop),
      formatBytes(totals.bytesFromOrigin),
    ];
  });
  return textTable(
    `Outcomes at the ${tier} (its next hop: the ${next})`,
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

/**
 * The window as a month at its rate (docs/costs.md): each line of the bill, then what it comes to against the origin's
 * egress alone.
 */
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

/**
 * The last minutes: the edge's requests, hits and bytes sent, each other tier shown's requests and hits, and what the
 * last tier shown fetched from the origin.
 */
function minutesTable(stats: StatsJson, shown: readonly TierName[]): string {
  const minutes = stats.minutes.slice(-RECENT_MINUTES);
  const behind = shown.filter((tier) => tier !== 'edge');
  const last = shown.at(-1) ?? 'edge';
  const rows = minutes.map(({ minute, tiers }) => [
    formatMinute(minute),
    formatCount(tiers.edge.requests),
    formatCount(tiers.edge.hits),
    formatBytes(tiers.edge.bytesSent),
    ...behind.flatMap((tier) => [formatCount(tiers[tier]?.requests ?? 0), formatCount(tiers[tier]?.hits ?? 0)]),
    formatBytes(tiers[last]?.bytesFromNextHop ?? 0),
  ]);
  return textTable(
    `Requests per minute, the last ${minutes.length} (UTC)`,
    [
      { title: 'minute' },
      { title: 'edge', align: 'right' },
      { title: 'edge hits', align: 'right' },
      { title: 'edge sent', align: 'right' },
      ...behind.flatMap((tier) => [
        { title: tier, align: 'right' as const },
        { title: `${tier} hits`, align: 'right' as const },
      ]),
      { title: 'from origin', align: 'right' },
    ],
    rows,
  );
}

/**
 * Hosts, the keys that miss most, why requests bypassed or failed, the latest purges: in the server's order
 * (shared/stats/ranking.ts).
 */
function rankedLists(stats: StatsJson): string[] {
  return [
    textTable(
      'Hosts (at the edge)',
      [{ title: 'host' }, { title: 'requests', align: 'right' }, { title: 'bytes sent', align: 'right' }],
      stats.hosts.map(({ host, requests, bytesSent }) => [host, formatCount(requests), formatBytes(bytesSent)]),
    ),
    textTable(
      'Top misses (at the edge)',
      [{ title: 'key' }, { title: 'misses', align: 'right' }],
      stats.topMisses.map(({ key, misses }) => [key, formatCount(misses)]),
    ),
    reasonsTable('Bypass reasons', stats.bypassReasons),
    reasonsTable('Errors', stats.errors),
    textTable(
      'Recent purges',
      [{ title: 'at (UTC)' }, { title: 'kind' }, { title: 'value' }],
      stats.recentPurges.map(({ at, kind, value }) => [formatTime(at), kind, value === '' ? '—' : value]),
    ),
  ];
}

function reasonsTable(title: string, reasons: StatsJson['errors']): string {
  return textTable(
    title,
    [{ title: 'tier' }, { title: 'reason' }, { title: 'requests', align: 'right' }],
    reasons.map(({ tier, reason, requests }) => [tier, reason, formatCount(requests)]),
  );
}

if (isEntry(import.meta.url)) process.exitCode = await runStats(process.argv.slice(2), processContext());
