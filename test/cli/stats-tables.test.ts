// `npm run stats` as tables (cli/stats-tables.ts, cli/stats-lists.ts, cli/text-table.ts): the
// sample hour of stats-sample.ts printed, table by table, exactly.

import { describe, expect, it } from 'vitest';
import { renderStats } from '../../cli/stats-tables.ts';
import { textTable } from '../../cli/text-table.ts';
import { statsSample } from './stats-sample.ts';

/** The table titled `title` in the rendered text (tables are separated by a blank line). */
function table(text: string, title: string): string {
  const found = text.split('\n\n').find((block) => block.startsWith(`${title}\n`) || block === title);
  if (found === undefined) throw new Error(`no table ${title} in:\n${text}`);
  return found;
}

describe('renderStats', () => {
  const text = renderStats(statsSample(), 'https://cdn.example');

  it('opens with the deployment, the window and the time, then the tables in order', () => {
    const titles = text.split('\n\n').map((block) => block.split('\n')[0]);
    expect(titles).toEqual([
      'tiercache stats for https://cdn.example: the last 60 minutes, as of 2026-01-30 10:15:42Z',
      'Tiers',
      'Outcomes at the edge',
      'Outcomes at the shield',
      'Egress (origin priced at $7.00 per TB)',
      'Cost, a month at this rate (prices read 2026-12-01; docs/costs.md)',
      'Requests per minute, the last 10 (UTC)',
      'Hosts (at the edge)',
      'Top misses (at the edge)',
      'Bypass reasons',
      'Errors',
      'Recent purges',
    ]);
  });

  it("prints the hour as a month at its rate: each line of the Workers Paid bill, then tiercache against the origin's egress alone", () => {
    const cost = table(text, 'Cost, a month at this rate (prices read 2026-12-01; docs/costs.md)').split('\n');
    const sample = statsSample().cost.month;
    expect(cost).toHaveLength(3 + sample.lines.length + 4);
    expect(cost[3]).toMatch(/^ {2}Workers requests +864,000 requests +\$0\.0000$/);
    expect(cost.find((line) => line.startsWith('  KV list requests'))).toMatch(/2,073,600 requests +\$5\.37$/);
    expect(cost.at(-2)).toMatch(new RegExp(`^ {2}with tiercache +\\$${sample.totalUSD.toFixed(2)}$`));
    expect(cost.at(-1)).toMatch(/^ {2}origin egress alone +\$17\.64$/);
  });

  it('leaves the cost out for an edge older than it (its stats.json has none)', () => {
    const { cost: _cost, ...older } = statsSample();
    const titles = renderStats(older as ReturnType<typeof statsSample>, 'https://cdn.example')
      .split('\n\n')
      .map((block) => block.split('\n')[0]);
    expect(titles.some((title) => title?.startsWith('Cost'))).toBe(false);
    expect(titles).toContain('Egress (origin priced at $7.00 per TB)');
  });

  it('prints per tier its requests, hit ratio, byte hit ratio, mean time to first byte and bytes sent', () => {
    expect(table(text, 'Tiers')).toBe(
      [
        'Tiers',
        '  tier    requests  hit ratio  byte hit ratio  mean TTFB  bytes sent',
        '  ------  --------  ---------  --------------  ---------  ----------',
        '  edge       1,200      87.5%           88.0%     3.2 ms     3.50 GB',
        '  shield       150      13.3%            4.7%    41.0 ms      420 MB',
      ].join('\n'),
    );
  });

  it("prints each tier's outcomes with their requests and bytes, hits first", () => {
    expect(table(text, 'Outcomes at the edge')).toBe(
      [
        'Outcomes at the edge',
        '  outcome      requests  bytes sent  from next hop  from origin',
        '  -----------  --------  ----------  -------------  -----------',
        '  hit             1,020     3.00 GB            0 B          0 B',
        '  stale              10     10.0 MB            0 B          0 B',
        '  revalidated        10     5.00 MB            0 B          0 B',
        '  collapsed          10     5.00 MB            0 B          0 B',
        '  miss              130      480 MB         420 MB       400 MB',
        '  bypass             15         0 B            0 B          0 B',
        '  error               5         0 B            0 B          0 B',
      ].join('\n'),
    );
    expect(table(text, 'Outcomes at the shield')).toContain(
      '  miss              120      400 MB         400 MB       400 MB',
    );
  });

  it('prints the egress: origin bytes and their cost, bytes served, bytes and dollars saved', () => {
    expect(table(text, 'Egress (origin priced at $7.00 per TB)')).toBe(
      [
        'Egress (origin priced at $7.00 per TB)',
        '                  bytes      USD',
        '  ------------  -------  -------',
        '  origin bytes   400 MB  $0.0028',
        '  served        3.50 GB',
        '  saved         3.10 GB  $0.0217',
      ].join('\n'),
    );
  });

  it("prints the window's last 10 minutes per tier, oldest first", () => {
    const minutes = table(text, 'Requests per minute, the last 10 (UTC)').split('\n');
    expect(minutes).toHaveLength(13);
    expect(minutes[1]).toBe('  minute  edge  edge hits  edge sent  shield  shield hits  from origin');
    expect(minutes[3]).toBe('  10:06      0          0        0 B       0            0          0 B');
    expect(minutes.slice(-3)).toEqual([
      '  10:13    200        150     600 MB      50            5      95.0 MB',
      '  10:14    400        350    1.20 GB      50            5       115 MB',
      '  10:15    600        550    1.70 GB      50           10       190 MB',
    ]);
  });

  it('prints hosts, top misses, bypass reasons, errors and recent purges in the order the edge ranked them', () => {
    expect(table(text, 'Hosts (at the edge)').split('\n').slice(3)).toEqual([
      '  cdn.example     1,100     3.40 GB',
      '  img.example       100      100 MB',
    ]);
    expect(table(text, 'Top misses (at the edge)').split('\n').slice(3)).toEqual([
      '  /video/big.bin      40',
      '  /index.html         12',
    ]);
    expect(table(text, 'Bypass reasons').split('\n').slice(3)).toEqual([
      '  edge    method          10',
      '  edge    no-store         5',
      '  shield  no-store         5',
    ]);
    expect(table(text, 'Errors').split('\n').slice(3)).toEqual([
      '  edge    shield-unreachable         5',
      '  shield  origin-timeout             5',
    ]);
    expect(table(text, 'Recent purges').split('\n').slice(1)).toEqual([
      '  at (UTC)              kind        value',
      '  --------------------  ----------  -----',
      '  2026-01-30 10:10:00Z  tag         blog',
      '  2026-01-30 09:30:00Z  everything  —',
    ]);
  });

  it('says (none) for an empty list, and a dash for a ratio with nothing to divide', () => {
    const stats = statsSample();
    stats.topMisses = [];
    stats.recentPurges = [];
    stats.tiers.shield = { ...stats.tiers.shield, hitRatio: null, byteHitRatio: null, ttfbMsMean: null };
    const quiet = renderStats(stats, 'https://cdn.example');
    expect(table(quiet, 'Top misses (at the edge)')).toBe('Top misses (at the edge)\n  (none)');
    expect(table(quiet, 'Recent purges')).toBe('Recent purges\n  (none)');
    expect(table(quiet, 'Tiers').split('\n')[4]).toBe(
      '  shield       150          —               —          —      420 MB',
    );
  });

  it('prints a window shorter than 10 minutes whole', () => {
    const stats = statsSample();
    stats.minutes = stats.minutes.slice(-3);
    expect(table(renderStats(stats, 'x'), 'Requests per minute, the last 3 (UTC)').split('\n')).toHaveLength(6);
  });

  it('shows control characters a client put in a key as \\xNN, never raw', () => {
    const stats = statsSample();
    stats.topMisses = [{ key: '/a\u001b[2Jb', misses: 1 }];
    const misses = table(renderStats(stats, 'x'), 'Top misses (at the edge)');
    expect(misses).toContain('/a\\x1b[2Jb');
    expect(misses).not.toContain('\u001b');
  });
});

describe('textTable', () => {
  it('aligns text left and numbers right under a rule as wide as the widest cell', () => {
    const text = textTable(
      'T',
      [{ title: 'name' }, { title: 'n', align: 'right' }],
      [
        ['a', '1'],
        ['longer', '1,000'],
      ],
    );
    expect(text).toBe(['T', '  name        n', '  ------  -----', '  a           1', '  longer  1,000'].join('\n'));
  });
});
