// `npm run cost -- …`: a month of traffic described on the command line (docs/costs.md), each
// flag a field of shared/cost/traffic-mix.ts's TrafficMix, every one defaulting to the 10 TB
// of 1 MB objects at 95 % example. Sizes in SI or IEC units (`10TB`, `1MB`, `16MiB`); ratios
// from 0 to 1. A value that is not one is a usage error naming the flag.

import { EXAMPLE_MIXES, type TrafficMix } from '../shared/cost/traffic-mix.ts';
import { CliFailure, EXIT_USAGE, type Flags, parseFlags, single } from './command.ts';

export const COST_USAGE = `usage: npm run cost -- [traffic flags] [--without-allowances] [--examples] [--markdown | --json]

Prints what a month of traffic costs on Cloudflare Workers Paid against the origin's egress
alone (docs/costs.md). Defaults: 10 TB of 1 MB objects at a 95 % hit ratio.
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
  --without-allowances      price every unit: the account's allowances are used by other work
  --examples                the three example mixes of docs/costs.md instead
  --markdown                Markdown tables (as in docs/costs.md)
  --json                    the estimate as JSON
  --help                    this text
Exit: 0 printed; 2 usage.`;

const DEFAULT_MIX = EXAMPLE_MIXES[1] as TrafficMix;

export interface CostArgs {
  mix: TrafficMix;
  egressPricePerTB: number | undefined;
  allowances: boolean;
  examples: boolean;
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
] as const;
const BOOLEANS = ['no-analytics', 'without-allowances', 'examples', 'markdown', 'json', 'help'] as const;
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

export function parseCostArgs(argv: readonly string[]): CostArgs {
  const spec = Object.fromEntries([
    ...STRINGS.map((name) => [name, { type: 'string' as const }]),
    ...BOOLEANS.map((name) => [name, { type: 'boolean' as const }]),
  ]);
  const flags: Flags = parseFlags(argv, spec, COST_USAGE);
  const value = <T>(
    name: (typeof STRINGS)[number],
    parse: (text: string) => T | undefined,
    what: string,
    fallback: T,
  ): T => {
    const given = single(flags, name, COST_USAGE);
    if (given === undefined) return fallback;
    const parsed = parse(given);
    if (parsed === undefined)
      throw new CliFailure(`--${name} must be ${what}, got ${JSON.stringify(given)}\n\n${COST_USAGE}`, EXIT_USAGE);
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
    ...(sliceBytes === undefined ? {} : { sliceBytes }),
  };
  if (flags.booleans.markdown === true && flags.booleans.json === true)
    throw new CliFailure(`--markdown and --json: give one\n\n${COST_USAGE}`, EXIT_USAGE);
  return {
    mix,
    egressPricePerTB: value<number | undefined>('egress-price', parseDecimal, 'a number of USD, at least 0', undefined),
    allowances: flags.booleans['without-allowances'] !== true,
    examples: flags.booleans.examples === true,
    format: flags.booleans.json === true ? 'json' : flags.booleans.markdown === true ? 'markdown' : 'text',
    help: flags.booleans.help === true,
  };
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
