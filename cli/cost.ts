// `npm run cost` (docs/costs.md): a month of traffic described on the command line, priced by shared/cost against
// the origin's egress alone and against Cloudflare's cache in front of it, printed as text, as the Markdown of
// docs/costs.md, or as JSON.

import type { Comparison } from '../shared/cost/alternatives.ts';
import type { CostEstimate } from '../shared/cost/cost-model.ts';
import { type PriceTable, PUBLISHED_PRICES } from '../shared/cost/prices.ts';
import { AFTER, AFTER_WITHOUT_CACHE_API, BEFORE } from '../shared/cost/refresh-design.ts';
import { scaleGrid } from '../shared/cost/scale-model.ts';
import {
  DEPLOYED_INTERVALS,
  EXAMPLE_MIXES,
  mixComparison,
  type R2Mix,
  type TrafficMix,
} from '../shared/cost/traffic-mix.ts';
import { formatAmount, formatBytes, formatRatio, formatUsd } from '../shared/stats/format.ts';
import { failureExit, usageError } from './cli-failure.ts';
import { type CliContext, isEntry, processContext } from './command.ts';
import { renderScale } from './cost-scale.ts';
import { renderComparison, signedUsd, type TableFormat, costTable as table } from './cost-tables.ts';
import { type Flags, parseFlags, single } from './flags.ts';

export type { TableFormat };

export const COST_USAGE = `usage: npm run cost -- [traffic flags] [--without-allowances] [--examples | --scale] [--markdown | --json]

Prints what a month of traffic costs on Cloudflare Workers Paid against the origin's egress
alone and against Cloudflare's cache in front of the origin (docs/costs.md). Defaults: 10 TB
of 1 MB objects at a 95 % hit ratio.
  --bytes SIZE              body bytes the edge sends in a month (10TB)
  --response SIZE           mean body bytes per response: an object, or a player's range (1MB)
  --hit-ratio R             share of the edge's requests answered from its caches (0.95)
  --memory-share R          of those, the share from the isolate's memory layer (0)
  --shield-hit-ratio R      share of the edge's misses the shield has stored (0)
  --slice SIZE              the slice size, for objects that move as slices (none: cached whole)
  --edge-isolates N         isolates the requests spread over at the edge (100)
  --shield-isolates N       at the shield (4)
  --purges N                purges a month (0)
  --no-analytics            the tiers write no Analytics Engine data points
  --log-sample R            LOG_SAMPLE (0.01)
  --egress-price USD        the origin's egress per TB (7, Storj)
  --over-512mb-share R      share of the bytes sent from objects over 512 MB, which Cloudflare's
                            cache never stores (0)
  --no-tiered-cache         Cloudflare's cache without Tiered Cache: each location misses alone
  --r2-hit-ratio R          the R2 tier on: the share of the shield's misses it answers (off)
  --r2-stored SIZE          with it, the bytes it keeps over the month (0)
  --r2-write-share R        with it, the share of what it fetches that it keeps, a put each (1)
  --without-allowances      price every unit: the account's allowances are used by other work
  --examples                the three example mixes of docs/costs.md instead
  --scale                   10 to 10,000 edge isolates at 1k to 100k requests a second, before and
                            after the purge head key and 16 stats shards: the month and the
                            limit that binds first (the traffic: the flags' response size and ratios)
  --locations N             with --scale: the most locations the edge isolates are in (300)
  --workers-dev             with --scale: after, on workers.dev (no Cache API: each isolate reads the head)
  --markdown                Markdown tables (as in docs/costs.md)
  --json                    the estimate as JSON
  --help                    this text
Exit: 0 printed; 2 usage.`;

const DEFAULT_MIX = EXAMPLE_MIXES[1] as TrafficMix;

export interface CostArgs {
  mix: TrafficMix;
  egressPricePerTB: number | undefined;
  allowances: boolean;
  /** Cloudflare's cache in front with Tiered Cache on (an upper tier holding what tiercache's shield holds). */
  tieredCache: boolean;
  examples: boolean;
  /** The scale grid (shared/cost/scale-model.ts), with its options. */
  scale: { locations: number | undefined; purgesPerMonth: number | undefined; workersDev: boolean } | undefined;
  format: 'text' | 'markdown' | 'json';
  help: boolean;
}

const STRINGS = [
  'bytes',
  'response',
  'hit-ratio',
  'memory-share',
  'shield-hit-ratio',
  'slice',
  'edge-isolates',
  'shield-isolates',
  'purges',
  'log-sample',
  'egress-price',
  'over-512mb-share',
  'locations',
  'r2-hit-ratio',
  'r2-stored',
  'r2-write-share',
] as const;
const BOOLEANS = [
  'no-analytics',
  'no-tiered-cache',
  'without-allowances',
  'examples',
  'scale',
  'workers-dev',
  'markdown',
  'json',
  'help',
] as const;
const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  pb: 1e15,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

/** The command, as a function of its arguments and context, answering the exit code. */
export function runCost(argv: readonly string[], context: Pick<CliContext, 'out' | 'err'>): number {
  try {
    const args = parseCostArgs(argv);
    if (args.help) {
      context.out(COST_USAGE);
      return 0;
    }
    const prices: PriceTable =
      args.egressPricePerTB === undefined
        ? PUBLISHED_PRICES
        : {
            ...PUBLISHED_PRICES,
            originEgressPerTB: { ...PUBLISHED_PRICES.originEgressPerTB, usd: args.egressPricePerTB },
          };
    const price = (mix: TrafficMix) => ({
      mix,
      ...mixComparison(mix, prices, DEPLOYED_INTERVALS, { allowances: args.allowances, tieredCache: args.tieredCache }),
    });
    const { format } = args;
    if (args.scale !== undefined) {
      const designs = [BEFORE, args.scale.workersDev ? AFTER_WITHOUT_CACHE_API : AFTER];
      const grid = scaleGrid(designs, prices, DEPLOYED_INTERVALS, { ...args.scale, mix: args.mix });
      context.out(format === 'json' ? JSON.stringify(grid, null, 2) : renderScale(grid, designs, format));
      return 0;
    }
    if (args.examples) {
      const examples = EXAMPLE_MIXES.map(price);
      if (format === 'json') context.out(JSON.stringify(examples, null, 2));
      else {
        const comparisons = examples.map((one) =>
          renderComparison(one.mix.name, one.comparison, args.tieredCache, format),
        );
        context.out([renderExamples(examples, format), ...comparisons].join('\n\n'));
      }
      return 0;
    }
    const month = price(args.mix);
    if (format === 'json') context.out(JSON.stringify(month, null, 2));
    else {
      const comparison = renderComparison('The month', month.comparison, args.tieredCache, format);
      context.out(renderEstimate(args.mix, month.estimate, format, comparison));
    }
    return 0;
  } catch (error) {
    return failureExit(error, context.err);
  }
}

/**
 * Each flag a field of shared/cost/traffic-mix.ts's TrafficMix, defaulting to the 10 TB of 1 MB objects at 95 %
 * example; sizes in SI or IEC units (`10TB`, `16MiB`), ratios from 0 to 1. A value that is none is a usage error.
 */
export function parseCostArgs(argv: readonly string[]): CostArgs {
  const spec = Object.fromEntries([
    ...STRINGS.map((name) => [name, { type: 'string' as const }]),
    ...BOOLEANS.map((name) => [name, { type: 'boolean' as const }]),
  ]);
  const flags: Flags = parseFlags(argv, spec, COST_USAGE);
  const value: FlagValue = (name, parse, what, fallback) => {
    const given = single(flags, name, COST_USAGE);
    if (given === undefined) return fallback;
    const parsed = parse(given);
    if (parsed === undefined) throw usageError(`--${name} must be ${what}, got ${JSON.stringify(given)}`, COST_USAGE);
    return parsed;
  };
  const sliceBytes = value('slice', parseSize, 'a size like 8MiB', DEFAULT_MIX.sliceBytes);
  const mix: TrafficMix = {
    name: 'the traffic given',
    bytesPerMonth: value('bytes', parseSize, 'a size like 10TB', DEFAULT_MIX.bytesPerMonth),
    responseBytes: value(
      'response',
      (text) => positive(parseSize(text)),
      'a size above 0 like 1MB',
      DEFAULT_MIX.responseBytes,
    ),
    edgeHitRatio: value('hit-ratio', parseRatio, 'a ratio from 0 to 1', DEFAULT_MIX.edgeHitRatio),
    memoryShare: value('memory-share', parseRatio, 'a ratio from 0 to 1', DEFAULT_MIX.memoryShare),
    shieldHitRatio: value('shield-hit-ratio', parseRatio, 'a ratio from 0 to 1', DEFAULT_MIX.shieldHitRatio),
    isolates: {
      edge: value(
        'edge-isolates',
        (text) => positive(parseCount(text)),
        'a whole number above 0',
        DEFAULT_MIX.isolates.edge,
      ),
      shield: value(
        'shield-isolates',
        (text) => positive(parseCount(text)),
        'a whole number above 0',
        DEFAULT_MIX.isolates.shield,
      ),
    },
    purgesPerMonth: value('purges', parseCount, 'a whole number', DEFAULT_MIX.purgesPerMonth),
    analytics: flags.booleans['no-analytics'] !== true,
    logSample: value('log-sample', parseRatio, 'a ratio from 0 to 1', DEFAULT_MIX.logSample),
    overCacheLimitShare: value('over-512mb-share', parseRatio, 'a ratio from 0 to 1', DEFAULT_MIX.overCacheLimitShare),
    ...(sliceBytes === undefined ? {} : { sliceBytes }),
  };
  const r2 = r2Mix(value);
  if (r2 !== undefined) mix.r2 = r2;
  if (flags.booleans.markdown === true && flags.booleans.json === true)
    throw usageError('--markdown and --json: give one', COST_USAGE);
  return {
    mix,
    egressPricePerTB: value<number | undefined>('egress-price', parseDecimal, 'a number of USD, at least 0', undefined),
    allowances: flags.booleans['without-allowances'] !== true,
    tieredCache: flags.booleans['no-tiered-cache'] !== true,
    examples: flags.booleans.examples === true,
    scale:
      flags.booleans.scale === true
        ? {
            locations: value<number | undefined>(
              'locations',
              (text) => positive(parseCount(text)),
              'a whole number above 0',
              undefined,
            ),
            purgesPerMonth: value<number | undefined>('purges', parseCount, 'a whole number', undefined),
            workersDev: flags.booleans['workers-dev'] === true,
          }
        : undefined,
    format: flags.booleans.json === true ? 'json' : flags.booleans.markdown === true ? 'markdown' : 'text',
    help: flags.booleans.help === true,
  };
}

/** A flag's value as parseCostArgs reads one: parsed, else a usage error naming what it must be; `fallback` unset. */
type FlagValue = <T>(
  name: (typeof STRINGS)[number],
  parse: (text: string) => T | undefined,
  what: string,
  fallback: T,
) => T;

/** The R2 tier's flags: on with --r2-hit-ratio, what it keeps and puts with it; the other two alone are an error. */
function r2Mix(value: FlagValue): R2Mix | undefined {
  const hitRatio = value<number | undefined>('r2-hit-ratio', parseRatio, 'a ratio from 0 to 1', undefined);
  const storedBytes = value<number | undefined>('r2-stored', parseSize, 'a size like 2TB', undefined);
  const writeShare = value<number | undefined>('r2-write-share', parseRatio, 'a ratio from 0 to 1', undefined);
  if (hitRatio !== undefined) return { hitRatio, storedBytes: storedBytes ?? 0, writeShare: writeShare ?? 1 };
  if (storedBytes !== undefined || writeShare !== undefined)
    throw usageError('--r2-stored and --r2-write-share describe the R2 tier: give --r2-hit-ratio too', COST_USAGE);
  return undefined;
}

/** `10TB`, `1MB`, `16MiB`, `1.5GB`, `500000`: bytes (SI or IEC units, case as you like); undefined when it is none. */
export function parseSize(text: string): number | undefined {
  const match = /^(\d{1,15}(?:\.\d{1,6})?)\s*([kmgtp]i?b|b)?$/i.exec(text.trim());
  if (match === null) return undefined;
  const factor = UNITS[(match[2] ?? '').toLowerCase()];
  return factor === undefined ? undefined : Number(match[1]) * factor;
}

/** A ratio from 0 to 1 (`0.95`, `1`, `0`); undefined otherwise. */
export function parseRatio(text: string): number | undefined {
  const number = parseDecimal(text);
  return number !== undefined && number <= 1 ? number : undefined;
}

function parseDecimal(text: string): number | undefined {
  return /^\d{1,15}(?:\.\d{1,9})?$/.test(text.trim()) ? Number(text) : undefined;
}

function parseCount(text: string): number | undefined {
  return /^\d{1,15}$/.test(text.trim()) ? Number(text) : undefined;
}

function positive(number: number | undefined): number | undefined {
  return number !== undefined && number > 0 ? number : undefined;
}

/** A mix's month: its bill, the comparison with what a Storj user has when given, then tiercache's totals. */
export function renderEstimate(
  mix: TrafficMix,
  estimate: CostEstimate,
  format: TableFormat,
  comparison?: string,
): string {
  const title = `${describeMix(mix)}; prices read ${estimate.pricesReadAt}${estimate.allowances ? '' : ", without the plan's allowances"}`;
  const bill = table(
    format,
    title,
    [
      { title: 'item' },
      { title: "a month's use", align: 'right' },
      { title: 'included', align: 'right' },
      { title: 'USD', align: 'right' },
    ],
    estimate.lines.map((line) => [
      line.item,
      `${formatAmount(line.quantity)} ${line.unit}`,
      formatAmount(line.included),
      formatUsd(line.usd),
    ]),
  );
  const totals = table(
    format,
    "Against the origin's egress alone",
    [{ title: '' }, { title: 'USD a month', align: 'right' }],
    [
      ['Workers Paid subscription', formatUsd(estimate.subscriptionUSD)],
      ['Workers Paid, all lines', formatUsd(estimate.platformUSD)],
      ['origin egress behind tiercache', formatUsd(estimate.originEgressUSD)],
      ['with tiercache', formatUsd(estimate.totalUSD)],
      ['origin egress alone', formatUsd(estimate.egressAloneUSD)],
      [estimate.savedUSD >= 0 ? 'saved' : 'costs more than egress alone', formatUsd(Math.abs(estimate.savedUSD))],
    ],
  );
  // The three ways before tiercache's own totals, which end with what it saves against the origin alone.
  return [bill, ...(comparison === undefined ? [] : [comparison]), totals].join('\n\n');
}

/** The examples side by side: what each uses of the lines that vary, and what it comes to. */
export function renderExamples(
  examples: readonly { mix: TrafficMix; estimate: CostEstimate; comparison?: Comparison }[],
  format: TableFormat,
): string {
  const line = (estimate: CostEstimate, item: string): number =>
    estimate.lines.find((one) => one.item === item)?.quantity ?? 0;
  return table(
    format,
    `Three example months; prices read ${examples[0]?.estimate.pricesReadAt ?? ''}`,
    [
      { title: 'mix' },
      { title: 'edge requests', align: 'right' },
      { title: 'Workers CPU ms', align: 'right' },
      { title: 'DO requests', align: 'right' },
      { title: 'KV list requests', align: 'right' },
      { title: 'Workers Paid', align: 'right' },
      { title: 'origin egress', align: 'right' },
      { title: 'with tiercache', align: 'right' },
      { title: 'egress alone', align: 'right' },
      { title: 'saved', align: 'right' },
    ],
    examples.map(({ mix, estimate }) => [
      mix.name,
      formatAmount(estimate.usage.workersRequests),
      formatAmount(estimate.usage.cpuMs.edge + estimate.usage.cpuMs.shield),
      formatAmount(line(estimate, 'Durable Object requests')),
      formatAmount(line(estimate, 'KV list requests')),
      formatUsd(estimate.platformUSD),
      formatUsd(estimate.originEgressUSD),
      formatUsd(estimate.totalUSD),
      formatUsd(estimate.egressAloneUSD),
      signedUsd(estimate.savedUSD),
    ]),
  );
}

/** What a mix says, in a line. */
export function describeMix(mix: TrafficMix): string {
  const parts = [
    `${formatBytes(mix.bytesPerMonth)} a month in ${formatBytes(mix.responseBytes)} responses`,
    `edge hit ratio ${formatRatio(mix.edgeHitRatio)} (${formatRatio(mix.memoryShare)} of hits from memory)`,
    `shield ${formatRatio(mix.shieldHitRatio)} of the edge's misses`,
    mix.sliceBytes === undefined ? 'cached whole' : `${formatBytes(mix.sliceBytes)} slices`,
    `${mix.isolates.edge} edge and ${mix.isolates.shield} shield isolates`,
    ...(mix.r2 === undefined
      ? []
      : [
          `R2 ${formatRatio(mix.r2.hitRatio)} of the shield's misses, keeping ${formatBytes(mix.r2.storedBytes)}, ${formatRatio(mix.r2.writeShare)} of its fetches put`,
        ]),
  ];
  return parts.join(', ');
}

if (isEntry(import.meta.url)) process.exitCode = runCost(process.argv.slice(2), processContext());
