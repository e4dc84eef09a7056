// `npm run cost` (cli/cost.ts): its flags' sizes and ratios, what it prints for the default month, the examples and
// the flags given, its usage errors, and docs/costs.md kept equal to what it prints.

import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCostArgs, parseRatio, parseSize, runCost } from '../../cli/cost.ts';
import { usdWhole } from '../../cli/cost-scale.ts';
import { PUBLISHED_PRICES } from '../../shared/cost/prices.ts';
import { AFTER, BEFORE } from '../../shared/cost/refresh-design.ts';
import {
  SCALE_ISOLATES,
  SCALE_REQUESTS_PER_SECOND,
  type ScalePoint,
  scaleGrid,
} from '../../shared/cost/scale-model.ts';
import { DEPLOYED_INTERVALS, EXAMPLE_MIXES, mixComparison, mixCost } from '../../shared/cost/traffic-mix.ts';
import { MONTH_MS } from '../../shared/cost/usage.ts';
import { formatUsd } from '../../shared/stats/format.ts';

const UNITS: [string, number][] = [
  ['', 1],
  ['B', 1],
  ['kB', 1e3],
  ['MB', 1e6],
  ['GB', 1e9],
  ['TB', 1e12],
  ['PB', 1e15],
  ['KiB', 1024],
  ['MiB', 1024 ** 2],
  ['GiB', 1024 ** 3],
  ['TiB', 1024 ** 4],
];

describe('parseSize', () => {
  it('reads a whole or decimal number with an SI or IEC unit, in any case, a space allowed between', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 999_999 }),
        fc.constantFrom(...UNITS),
        fc.boolean(),
        fc.boolean(),
        (number, [unit, factor], space, upper) => {
          const text = `${number}${space && unit !== '' ? ' ' : ''}${upper ? unit.toUpperCase() : unit.toLowerCase()}`;
          expect(parseSize(text)).toBe(number * factor);
        },
      ),
    );
    expect(parseSize('1.5GB')).toBe(1.5e9);
    expect(parseSize('16MiB')).toBe(16 * 1024 * 1024);
  });

  it('is undefined for anything else', () => {
    for (const text of ['', 'TB', '-1TB', '1 TiBs', '1e12', '1,000', '10 furlongs', '0x10', '1..5MB', 'NaN'])
      expect(parseSize(text), text).toBeUndefined();
    fc.assert(
      fc.property(fc.string(), (text) => {
        const size = parseSize(text);
        expect(size === undefined || (Number.isFinite(size) && size >= 0)).toBe(true);
      }),
    );
  });
});

describe('parseRatio', () => {
  it('is a number from 0 to 1, else undefined', () => {
    expect([parseRatio('0'), parseRatio('0.95'), parseRatio('1')]).toEqual([0, 0.95, 1]);
    for (const text of ['1.01', '-0.1', '95%', '', 'half']) expect(parseRatio(text), text).toBeUndefined();
  });
});

describe('parseCostArgs', () => {
  it('without flags is the 10 TB example, with the allowances, as text', () => {
    const args = parseCostArgs([]);
    expect({ ...args.mix, name: '' }).toEqual({ ...EXAMPLE_MIXES[1], name: '' });
    expect([args.allowances, args.examples, args.format, args.egressPricePerTB]).toEqual([
      true,
      false,
      'text',
      undefined,
    ]);
  });
});

const DOC = readFileSync(new URL('../../docs/costs.md', import.meta.url), 'utf8');

function run(argv: string[]): { code: number; out: string; err: string } {
  const out: string[] = [];
  const err: string[] = [];
  const code = runCost(argv, { out: (text) => out.push(text), err: (text) => err.push(text) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('npm run cost', () => {
  // Model input changed (the purge head key): the purge list priced as the code on main reads it (a head get per re-read, a list
  // once a minute per isolate and while a purge settles), no longer a list per re-read ($48.95 and $21.05 before).
  it('with no flags prices 10 TB of 1 MB objects at 95 %: $20.75 with tiercache against $70.00 of egress alone', () => {
    const { code, out } = run([]);
    expect(code).toBe(0);
    expect(out).toMatch(/^10\.0 TB a month in 1\.00 MB responses, edge hit ratio 95\.0%/);
    expect(out).toMatch(/\n {2}with tiercache +\$20\.75\n/);
    expect(out).toMatch(/\n {2}origin egress alone +\$70\.00\n/);
    expect(out).toMatch(/\n {2}saved +\$49\.25$/);
  });

  it('takes the traffic from its flags: sizes in SI or IEC units, ratios, slices, isolates, the egress price', () => {
    const { code, out } = run([
      '--bytes',
      '40TB',
      '--response',
      '16MiB',
      '--slice',
      '8MiB',
      '--hit-ratio',
      '0.9',
      '--shield-hit-ratio',
      '0.8',
      '--egress-price',
      '10',
      '--json',
    ]);
    expect(code).toBe(0);
    const { mix, estimate } = JSON.parse(out) as {
      mix: { sliceBytes: number; bytesPerMonth: number };
      estimate: { egressAloneUSD: number; originEgressUSD: number };
    };
    expect([mix.bytesPerMonth, mix.sliceBytes]).toEqual([40e12, 8 * 1024 * 1024]);
    expect(estimate.egressAloneUSD).toBeCloseTo(400, 9);
    expect(estimate.originEgressUSD).toBeCloseTo(400 * 0.1 * 0.2, 6);
  });

  it("takes the R2 tier: its share of the shield's misses, what it keeps, what it puts; its lines in the bill", () => {
    const argv = ['--bytes', '100TB', '--response', '16MiB', '--slice', '8MiB', '--hit-ratio', '0.9'];
    const { code, out } = run([...argv, '--shield-hit-ratio', '0.3', '--r2-hit-ratio', '0.7', '--r2-stored', '1TB']);
    expect(code).toBe(0);
    expect(out).toContain("R2 70.0% of the shield's misses, keeping 1.00 TB, 100.0% of its fetches put");
    expect(out).toMatch(/\n {2}R2 storage +1,000 GB-months +10 +\$14\.85\n/);
    expect(out).toMatch(/\n {2}R2 Class A operations +[\d,]+ requests +1,000,000 +\$/);
    expect(out).toMatch(/\n {2}R2 Class B operations +[\d,]+ requests +10,000,000 +\$/);
    expect(run(argv).out).not.toMatch(/\n {2}R2 /);
    const alone = run([...argv, '--r2-stored', '1TB']);
    expect(alone.code).toBe(2);
    expect(alone.err).toMatch(/^--r2-stored and --r2-write-share describe the R2 tier: give --r2-hit-ratio too/);
  });

  it("compares the month with what a Storj user has: the origin alone and Cloudflare's cache in front, and says what each caches", () => {
    const { code, out } = run([]);
    expect(code).toBe(0);
    expect(out).toContain("The month: against what a Storj user has (Cloudflare's cache: Tiered Cache on)");
    expect(out).toMatch(/\n {2} +Storj alone +Cloudflare's cache in front +tiercache\n/);
    expect(out).toMatch(/\n {2}a month +\$70\.00 +\$3\.50 +\$20\.75\n/);
    expect(out).toMatch(/\n {2}Cloudflare charges +\$0\.0000 +\$0\.0000 +\$17\.25\n/);
    expect(out).toMatch(/\n {2}origin egress +10\.0 TB +500 GB +500 GB\n/);
    expect(out).toMatch(
      /\n {2}served from a cache +nothing +objects up to 512 MB, at each location and its upper tier +objects of any size, large ones as slices\n/,
    );
    expect(out).toMatch(/\n {2}tiercache saves +\$49\.25 +−\$17\.25\n/);
  });

  it("takes the share of bytes over 512 MB, which Cloudflare's cache sends from the origin, and Tiered Cache off", () => {
    const json = (argv: string[]) =>
      JSON.parse(run([...argv, '--json']).out) as { comparison: { cloudflareCache: { usd: number } } };
    // 10 TB × (0.5 + 0.5 × 0.05) = 5.25 TB at $7.
    expect(json(['--over-512mb-share', '0.5']).comparison.cloudflareCache.usd).toBeCloseTo(36.75, 9);
    // 10 TB × 0.1 × 0.5 with the upper tier; 10 TB × 0.1 without it.
    const shielded = ['--hit-ratio', '0.9', '--shield-hit-ratio', '0.5'];
    expect(json(shielded).comparison.cloudflareCache.usd).toBeCloseTo(3.5, 9);
    expect(json([...shielded, '--no-tiered-cache']).comparison.cloudflareCache.usd).toBeCloseTo(7, 9);
    expect(run([...shielded, '--no-tiered-cache']).out).toContain("(Cloudflare's cache: Tiered Cache off)");
  });

  it('prints each example month against both alternatives', () => {
    const { code, out } = run(['--examples']);
    expect(code).toBe(0);
    for (const mix of EXAMPLE_MIXES) expect(out).toContain(`${mix.name}: against what a Storj user has`);
    expect(out.match(/tiercache saves/g)).toHaveLength(3);
  });

  it('without the allowances prices every unit and counts no subscription', () => {
    const { out } = run(['--without-allowances']);
    expect(out).toContain("prices read 2026-12-01, without the plan's allowances");
    expect(out).toMatch(/\n {2}Workers Paid subscription +\$0\.0000\n/);
    // Model input changed (the purge head key): the 10 TB month now saves without the allowances too ($84.45 against $70 before);
    // a month of small objects still costs more than its egress, and says so.
    expect(out).toMatch(/\n {2}saved +\$9\.36$/);
    const small = run(['--without-allowances', '--bytes', '50GB', '--response', '25kB']).out;
    expect(small).toMatch(/\n {2}costs more than egress alone +\$\d/);
  });

  it('refuses a flag it does not know, a value that is not one, or a flag given twice: exit 2 with the usage', () => {
    for (const argv of [
      ['--bytes', '10 furlongs'],
      ['--hit-ratio', '1.5'],
      ['--response', '0'],
      ['--edge-isolates', '2.5'],
      ['--bytes', '1TB', '--bytes', '2TB'],
      ['--tb', '10'],
      ['--markdown', '--json'],
      ['--over-512mb-share', '1.5'],
    ]) {
      const { code, out, err } = run(argv);
      expect(code, argv.join(' ')).toBe(2);
      expect(out).toBe('');
      expect(err, argv.join(' ')).toMatch(/usage: npm run cost/);
    }
    expect(run(['--hit-ratio', '1.5']).err).toMatch(/^--hit-ratio must be a ratio from 0 to 1, got "1\.5"/);
  });

  it('--scale prints a line per isolates × requests a second, before and after, with the limit that binds first', () => {
    const { code, out } = run(['--scale']);
    expect(code).toBe(0);
    expect(out).toMatch(/^At scale, USD a month on Workers Paid/);
    const lines = out.split('\n').slice(3);
    expect(lines).toHaveLength(SCALE_ISOLATES.length * SCALE_REQUESTS_PER_SECOND.length);
    expect(lines[0]).toMatch(/^ +10 +1,000 /);
    expect(lines[lines.length - 1]).toMatch(/^ +10,000 +100,000 /);
    // 10,000 busy isolates flush past the one stats object's 1,000 requests a second; 16 shards take it.
    expect(lines[lines.length - 2]).toMatch(/stats object: 2\.1× over .* stats object at 13 %/);
  });

  it('--scale takes the locations, the purges and workers.dev, and gives the grid as JSON', () => {
    type Grid = { scenario: { locations: number; purgesPerMonth: number }; points: { design: { name: string } }[] }[];
    const grid = JSON.parse(
      run(['--scale', '--locations', '50', '--purges', '30000', '--workers-dev', '--json']).out,
    ) as Grid;
    expect(grid).toHaveLength(12);
    expect(grid[11]?.scenario).toMatchObject({ locations: 50, purgesPerMonth: 30_000 });
    expect(grid[0]?.scenario.locations).toBe(10);
    expect(grid[0]?.points.map((point) => point.design.name)).toEqual(['before', 'after, workers.dev']);
    for (const argv of [
      ['--scale', '--locations', '0'],
      ['--scale', '--purges', 'many'],
    ]) {
      expect(run(argv).code, argv.join(' ')).toBe(2);
    }
  });

  it('--help prints the usage (exit 0)', () => {
    const { code, out } = run(['--help']);
    expect(code).toBe(0);
    expect(out).toMatch(/^usage: npm run cost/);
  });
});

describe('docs/costs.md', () => {
  it('holds the default month exactly as `npm run cost -- --markdown` prints it', () => {
    expect(DOC).toContain(run(['--markdown']).out);
  });

  it("holds the R2 tier's two months, where it pays and where it does not, exactly as `npm run cost` prints them", () => {
    const slices = ['--response', '16MiB', '--slice', '8MiB', '--hit-ratio', '0.9', '--r2-write-share', '0.3'];
    const pays = ['--bytes', '100TB', '--shield-hit-ratio', '0.3', '--r2-hit-ratio', '0.7', '--r2-stored', '1TB'];
    const video = ['--bytes', '50TB', '--shield-hit-ratio', '0.8', '--over-512mb-share', '0.8'];
    const notPays = [...video, '--r2-hit-ratio', '0.6', '--r2-stored', '2TB'];
    for (const month of [pays, notPays]) expect(DOC).toContain(run([...month, ...slices, '--markdown']).out);
    const total = (argv: string[]) => /\| with tiercache \| (\$[\d.,]+) \|/.exec(run([...argv, '--markdown']).out)?.[1];
    const without = (argv: string[]) =>
      argv.filter((flag, at) => !flag.startsWith('--r2') && !argv[at - 1]?.startsWith('--r2'));
    // The prose's totals without the tier are what the model prints.
    expect(DOC).toContain(`Without the tier the same month is ${total(without([...pays, ...slices]))} with tiercache`);
    expect(DOC).toContain(`against ${total(without([...notPays, ...slices]))} without it`);
  });

  it('holds the three example months exactly as `npm run cost -- --examples --markdown` prints them', () => {
    expect(DOC).toContain(run(['--examples', '--markdown']).out);
  });

  it('holds the scale grid exactly as `npm run cost -- --scale --markdown` prints it, and its prose says what the model computes', () => {
    expect(DOC).toContain(run(['--scale', '--markdown']).out);
    const grid = scaleGrid([BEFORE, AFTER], PUBLISHED_PRICES, DEPLOYED_INTERVALS);
    const at = (isolates: number, rate: number) =>
      grid.find(({ scenario }) => scenario.isolates === isolates && scenario.requestsPerSecond === rate)?.points ?? [];
    const kv = (point: ScalePoint | undefined) =>
      usdWhole(
        (point?.estimate.lines ?? [])
          .filter((line) => line.item.startsWith('KV '))
          .reduce((sum, line) => sum + line.usd, 0),
      );
    const [before1k, after1k] = at(1_000, 10_000);
    const [before10k, after10k] = at(10_000, 10_000);
    // The prose is wrapped: read it as one line.
    const prose = DOC.replace(/\s+/g, ' ');
    expect(prose).toContain(`${kv(before1k)} a month at 1,000 isolates and ${kv(before10k)} at 10,000`);
    expect(prose).toContain(`about 14 times per purge: ${kv(after1k)} and ${kv(after10k)}.`);
    const flushes = (before10k?.operations.flushes ?? 0) / (MONTH_MS / 1000);
    expect(prose).toContain(`flush about ${(Math.round(flushes / 100) * 100).toLocaleString('en-US')} times a second`);
  });

  it('says in its prose what the model computes: the 10 TB month over 10 and 1,000 edge isolates, without allowances, its KV lists, the video month', () => {
    const [site, tenTb, video] = EXAMPLE_MIXES;
    if (site === undefined || tenTb === undefined || video === undefined) throw new Error('three examples');
    const month = (mix: typeof tenTb, options: { allowances?: boolean } = {}) =>
      mixCost(mix, PUBLISHED_PRICES, DEPLOYED_INTERVALS, options);
    const spread = (edge: number) => month({ ...tenTb, isolates: { ...tenTb.isolates, edge } });
    expect(DOC).toContain(`over 10 isolates the month is ${formatUsd(spread(10).totalUSD)}`);
    expect(DOC).toContain(`over 1,000 it is ${formatUsd(spread(1000).totalUSD)}`);
    // Model input changed (the purge head key): at most a list and a head get per request ($57 with a list per request before).
    expect(Math.round(spread(1_000_000).totalUSD)).toBe(56);
    const bare = month(tenTb, { allowances: false });
    expect(DOC).toContain(`adds ${formatUsd(bare.platformUSD)} of`);
    expect(DOC).toContain(`and ${formatUsd(bare.totalUSD)} in all`);
    const lists = month(tenTb).lines.find((line) => line.item === 'KV list requests');
    expect(DOC).toContain(
      `(${((lists?.quantity ?? 0) / 1e6).toFixed(1)} million for the 10 TB month, ${formatUsd(lists?.usd ?? 0)} of its ${formatUsd(month(tenTb).platformUSD)})`,
    );
    expect(DOC).toContain(`$7 plus ${formatUsd(month(video).platformUSD)} of`);
    // The same month as the purge list was read before the purge head key, beside it.
    const before = mixCost(tenTb, PUBLISHED_PRICES, DEPLOYED_INTERVALS, { design: BEFORE });
    expect(DOC.replace(/\s+/g, ' ')).toContain(`every 5 s before cost ${formatUsd(before.totalUSD)} for this month`);
    expect(DOC).toContain(`the whole egress is worth ${formatUsd(month(site).egressAloneUSD).replace(/0+$/, '')}`);
  });

  it("says in its prose what Cloudflare's cache in front costs for the 10 TB and video months, and what tiercache saves against it", () => {
    const [, tenTb, video] = EXAMPLE_MIXES;
    if (tenTb === undefined || video === undefined) throw new Error('three examples');
    const compared = (mix: typeof tenTb) => mixComparison(mix, PUBLISHED_PRICES, DEPLOYED_INTERVALS).comparison;
    expect(DOC).toContain(`the same 5 % for ${formatUsd(compared(tenTb).cloudflareCache.usd)} and nothing else`);
    expect(DOC).toContain(`more (${formatUsd(-compared(tenTb).savedUSD.cloudflareCache)})`);
    expect(DOC).toContain(`time: ${formatUsd(compared(video).cloudflareCache.usd)} a month`);
    expect(DOC).toContain(`tiercache saves ${formatUsd(compared(video).savedUSD.cloudflareCache)} against it`);
    expect(DOC).toContain(`the ${Math.round(video.overCacheLimitShare * 100)} % of the bytes in files over`);
  });

  it("the front page's sentence and table of the three months give tiercache and Cloudflare's cache in front as the model prices them", () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    // Its sentence on the 10 TB month, rounded to the dollar, over 100, 10 and 1,000 edge isolates.
    const [, tenTb] = EXAMPLE_MIXES;
    if (tenTb === undefined) throw new Error('three examples');
    const spread = (edge: number) =>
      Math.round(
        mixCost({ ...tenTb, isolates: { ...tenTb.isolates, edge } }, PUBLISHED_PRICES, DEPLOYED_INTERVALS).totalUSD,
      );
    const prose = readme.replace(/\s+/g, ' ');
    expect(prose).toContain(`comes to about **$${spread(100)}**`);
    expect(prose).toContain(`($${spread(10)} over 10, $${spread(1_000)} over 1,000:`);
    for (const mix of EXAMPLE_MIXES) {
      const { estimate, comparison } = mixComparison(mix, PUBLISHED_PRICES, DEPLOYED_INTERVALS);
      const row = readme.split('\n').find((line) => line.includes(mix.name));
      expect(row, mix.name).toContain(`| ${formatUsd(estimate.totalUSD)} |`);
      expect(row, mix.name).toMatch(
        new RegExp(`\\| ${formatUsd(comparison.cloudflareCache.usd).replace('$', '\\$')} \\|$`),
      );
    }
  });
});
