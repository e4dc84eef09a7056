// `npm run stats` (cli/stats.ts) end to end against a scripted edge on 127.0.0.1 (the request, what it prints, its
// exit code for every answer, none, and each way of naming the deployment), and the sample hour's tables exactly.

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseStatsAnswer, renderStats, runStats } from '../../cli/stats.ts';
import { type StackFolder, stackFolder, type TestContext, testContext } from './cli-context.ts';
import { type Answer, type FakeEdge, json, plain, startFakeEdge, unreachableUrl } from './fake-edge.ts';
import { statsSample, withR2 } from './stats-sample.ts';

const TOKEN = 'stats-secret-7f3a';
const STACK_TOKEN = 'stack-stats-secret-91c2';

let answer: Answer = json(200, statsSample());
let edge: FakeEdge;
let stack: StackFolder;

beforeAll(async () => {
  edge = await startFakeEdge(() => answer);
});
afterAll(() => edge.close());
beforeEach(async () => {
  answer = json(200, statsSample());
  edge.received.length = 0;
  stack = await stackFolder();
});
afterEach(() => stack.remove());

/** Runs the command; whatever happens, no token is ever printed. */
async function run(argv: string[], context: TestContext): Promise<number> {
  const code = await runStats(argv, context);
  expect(context.printed()).not.toContain(TOKEN);
  expect(context.printed()).not.toContain(STACK_TOKEN);
  return code;
}

describe('npm run stats: the answer', () => {
  it('GETs /__tiercache/stats.json with the bearer token and prints the tables (exit 0)', async () => {
    const context = testContext(stack.stacksDir, { STATS_TOKEN: TOKEN });
    expect(await run(['--base', edge.url], context)).toBe(0);
    expect(edge.received).toHaveLength(1);
    expect(edge.received[0]).toMatchObject({ method: 'GET', path: '/__tiercache/stats.json', body: '' });
    expect(edge.received[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const out = context.stdout.join('\n');
    expect(out).toContain(`tiercache stats for ${edge.url}: the last 60 minutes, as of 2026-01-30 10:15:42Z`);
    expect(out).toContain('  edge       1,200      87.5%           88.0%     3.2 ms     3.50 GB');
    expect(out).toContain('  saved         3.10 GB  $0.0217');
    expect(context.stderr).toEqual([]);
  });

  it('--json prints the JSON the edge answered', async () => {
    const context = testContext(stack.stacksDir, { STATS_TOKEN: TOKEN });
    expect(await run(['--base', edge.url, '--json'], context)).toBe(0);
    expect(JSON.parse(context.stdout.join('\n'))).toEqual(statsSample());
  });

  it('401: says the token was refused and which variable to set (exit 1)', async () => {
    answer = plain(401, 'stats need Authorization: Bearer <STATS_TOKEN> (or the token as a Basic password)', {
      'www-authenticate': 'Basic realm="tiercache stats", Bearer realm="tiercache stats"',
    });
    const context = testContext(stack.stacksDir, { STATS_TOKEN: TOKEN });
    expect(await run(['--base', edge.url], context)).toBe(1);
    expect(context.stderr).toEqual(["the token was refused: set STATS_TOKEN to the deployment's secret"]);
    expect(context.stdout).toEqual([]);
  });

  it("403: says stats are off on this deployment, with the edge's own words (exit 1)", async () => {
    answer = plain(403, 'stats are disabled: set the STATS_TOKEN secret to enable them');
    const context = testContext(stack.stacksDir, { STATS_TOKEN: TOKEN });
    expect(await run(['--base', edge.url], context)).toBe(1);
    expect(context.stderr).toEqual([
      `stats are disabled on this deployment: set the STATS_TOKEN secret\n  ${edge.url} says: stats are disabled: set the STATS_TOKEN secret to enable them`,
    ]);
  });

  it('500: prints the status and the first line of the body (exit 1)', async () => {
    answer = plain(500, 'stats need the STATS Durable Object binding\nsecond line');
    const context = testContext(stack.stacksDir, { STATS_TOKEN: TOKEN });
    expect(await run(['--base', edge.url], context)).toBe(1);
    expect(context.stderr).toEqual([
      `${edge.url}/__tiercache/stats.json answered 500 Internal Server Error: stats need the STATS Durable Object binding`,
    ]);
  });

  it('a redirect is reported with where it points, not followed with the token (exit 1)', async () => {
    answer = { status: 301, headers: { location: 'https://cdn.example/__tiercache/stats.json' }, body: '' };
    const context = testContext(stack.stacksDir, { STATS_TOKEN: TOKEN });
    expect(await run(['--base', edge.url], context)).toBe(1);
    expect(context.stderr).toEqual([
      `${edge.url}/__tiercache/stats.json answered 301 Moved Permanently (to https://cdn.example/__tiercache/stats.json: pass that base URL instead)`,
    ]);
    expect(edge.received).toHaveLength(1);
  });

  it('an answer that echoes the token has it blanked out', async () => {
    answer = plain(502, `upstream said: bad token ${TOKEN}`);
    const context = testContext(stack.stacksDir, { STATS_TOKEN: TOKEN });
    expect(await run(['--base', edge.url], context)).toBe(1);
    expect(context.stderr).toEqual([
      `${edge.url}/__tiercache/stats.json answered 502 Bad Gateway: upstream said: bad token [token]`,
    ]);
  });

  it('a 200 that is not stats JSON (a site page) is named as such (exit 1)', async () => {
    answer = { status: 200, headers: { 'content-type': 'text/html' }, body: '<!doctype html><h1>Welcome</h1>' };
    const context = testContext(stack.stacksDir, { STATS_TOKEN: TOKEN });
    expect(await run(['--base', edge.url], context)).toBe(1);
    expect(context.stderr[0]).toMatch(/answered 200 with something that is not JSON \(is it a tiercache edge\?\)/);
    answer = json(200, { generatedAt: 'now' });
    expect(await run(['--base', edge.url], context)).toBe(1);
    expect(context.stderr[1]).toContain("answered JSON that is not tiercache's stats (no tiers)");
  });

  it('nothing listening: "cannot reach <url>: <reason>" (exit 1)', async () => {
    const url = await unreachableUrl();
    const context = testContext(stack.stacksDir, { STATS_TOKEN: TOKEN });
    expect(await run(['--base', url], context)).toBe(1);
    expect(context.stderr).toEqual([
      `cannot reach ${url}/__tiercache/stats.json: connect ECONNREFUSED ${new URL(url).host}`,
    ]);
  });

  it('an edge that never answers: gives up after the timeout (exit 1)', async () => {
    answer = 'silent';
    const context = testContext(stack.stacksDir, { STATS_TOKEN: TOKEN }, 200);
    expect(await run(['--base', edge.url], context)).toBe(1);
    expect(context.stderr).toEqual([`cannot reach ${edge.url}/__tiercache/stats.json: no answer within 200 ms`]);
  });
});

describe('npm run stats: which deployment', () => {
  it('without --base, asks the local stack with its token', async () => {
    await stack.write({ url: edge.url, statsToken: STACK_TOKEN, purgeToken: 'p' });
    const context = testContext(stack.stacksDir);
    expect(await run([], context)).toBe(0);
    expect(edge.received[0]?.headers.authorization).toBe(`Bearer ${STACK_TOKEN}`);
  });

  it('STATS_TOKEN wins over the stack file', async () => {
    await stack.write({ url: edge.url, statsToken: STACK_TOKEN, purgeToken: 'p' });
    expect(await run([], testContext(stack.stacksDir, { STATS_TOKEN: TOKEN }))).toBe(0);
    expect(edge.received[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('STATS_TOKEN is trimmed; one a header cannot carry is refused without quoting it (exit 2)', async () => {
    expect(await run(['--base', edge.url], testContext(stack.stacksDir, { STATS_TOKEN: `${TOKEN}\n` }))).toBe(0);
    expect(edge.received[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const context = testContext(stack.stacksDir, { STATS_TOKEN: `${TOKEN} ${TOKEN}` });
    expect(await run(['--base', edge.url], context)).toBe(2);
    expect(context.stderr).toEqual([
      'STATS_TOKEN holds characters an Authorization header cannot carry (spaces, control or non-ASCII characters): set it to the secret alone',
    ]);
    expect(edge.received).toHaveLength(1);
  });

  it('no stack file and no --base: says to start it (exit 2), sends nothing', async () => {
    const context = testContext(stack.stacksDir, { STATS_TOKEN: TOKEN });
    expect(await run([], context)).toBe(2);
    expect(context.stderr).toEqual(['no local stack: start it with `npm start`, or pass --base']);
    expect(edge.received).toEqual([]);
  });

  it("--base of another host and no STATS_TOKEN: the stack's token is not sent there (exit 2)", async () => {
    await stack.write({ url: 'http://127.0.0.1:1', statsToken: STACK_TOKEN });
    const context = testContext(stack.stacksDir);
    expect(await run(['--base', edge.url], context)).toBe(2);
    expect(context.stderr).toEqual([`no token for ${edge.url}: set STATS_TOKEN to the deployment's secret`]);
    expect(edge.received).toEqual([]);
  });

  it("--base naming the local stack itself uses the stack's token", async () => {
    await stack.write({ url: `${edge.url}/`, statsToken: STACK_TOKEN });
    expect(await run(['--base', edge.url], testContext(stack.stacksDir))).toBe(0);
    expect(edge.received[0]?.headers.authorization).toBe(`Bearer ${STACK_TOKEN}`);
  });

  it('a stack note left by a stack that is gone: says where the URL came from', async () => {
    const url = await unreachableUrl();
    await stack.write({ url, statsToken: STACK_TOKEN, purgeToken: 'p' });
    const context = testContext(stack.stacksDir);
    expect(await run([], context)).toBe(1);
    expect(context.stderr).toEqual([
      `cannot reach ${url}/__tiercache/stats.json: connect ECONNREFUSED ${new URL(url).host} (from ${stack.pathFor(url)}: is \`npm start\` still running?)`,
    ]);
  });

  it('a stack file that is not what npm start writes (exit 2)', async () => {
    await stack.write('{"url": 42}');
    const context = testContext(stack.stacksDir);
    expect(await run([], context)).toBe(2);
    expect(context.stderr[0]).toBe(
      `${stack.pathFor()} is not what \`npm start\` writes (expected {"url": "http://…", "statsToken": "…", "purgeToken": "…"}): restart it with \`npm start\``,
    );
  });
});

describe('npm run stats: usage', () => {
  it('usage errors (exit 2): an unknown flag, --base twice, a URL that is not http(s), a stray word; nothing sent', async () => {
    const cases: [string[], string][] = [
      [['--basee', edge.url], "Unknown option '--basee'"],
      [['--base', edge.url, '--base', edge.url], '--base given 2 times; give it once'],
      [
        ['--base', 'ftp://cdn.example'],
        'expected --base to be the edge\'s base URL, like https://cdn.example; got "ftp://cdn.example"',
      ],
      [['stats'], "Unexpected argument 'stats'"],
    ];
    for (const [argv, message] of cases) {
      const context = testContext(stack.stacksDir, { STATS_TOKEN: TOKEN });
      expect(await run(argv, context), argv.join(' ')).toBe(2);
      expect(context.stderr.join('\n')).toContain(message);
    }
    expect(edge.received).toEqual([]);
  });

  it('--help prints the usage (exit 0)', async () => {
    const context = testContext(stack.stacksDir);
    expect(await run(['--help'], context)).toBe(0);
    expect(context.stdout[0]).toMatch(/^usage: npm run stats -- \[--base https:\/\/cdn.example\] \[--json\]\n/);
  });
});

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
      // The R2 tier is off in the sample: no table of it, and the shield's bytes come from the origin.
      'Outcomes at the edge (its next hop: the shield)',
      'Outcomes at the shield (its next hop: the origin)',
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
    expect(table(text, 'Outcomes at the edge (its next hop: the shield)')).toBe(
      [
        'Outcomes at the edge (its next hop: the shield)',
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
    expect(table(text, 'Outcomes at the shield (its next hop: the origin)')).toContain(
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

  it('shows the R2 tier where it made records: its line, its outcomes, its minutes, the shield fetching from it', () => {
    const stats = withR2(statsSample());
    const shown = renderStats(stats, 'https://cdn.example');
    expect(table(shown, 'Tiers').split('\n').at(-1)).toBe(
      // 66.67 % rounded down, as every ratio is (format.ts).
      '  r2           100      60.0%           66.6%    12.0 ms      300 MB',
    );
    const titles = shown.split('\n\n').map((block) => block.split('\n')[0]);
    expect(titles.filter((title) => title?.startsWith('Outcomes'))).toEqual([
      'Outcomes at the edge (its next hop: the shield)',
      'Outcomes at the shield (its next hop: the r2)',
      'Outcomes at the r2 (its next hop: the origin)',
    ]);
    const minutes = table(shown, 'Requests per minute, the last 10 (UTC)').split('\n');
    expect(minutes[1]).toBe('  minute  edge  edge hits  edge sent  shield  shield hits  r2  r2 hits  from origin');
    // What came from the origin is what the last tier shown fetched.
    expect(minutes.at(-1)).toBe('  10:15    600        550    1.70 GB      50           10  40       24      76.0 MB');
  });

  it('reads stats.json from an edge older than the R2 tier (no r2 in it) as a deployment without it', () => {
    const stats = statsSample() as unknown as {
      tiers: Record<string, unknown>;
      minutes: { tiers: Record<string, unknown> }[];
    };
    delete stats.tiers.r2;
    for (const minute of stats.minutes) delete minute.tiers.r2;
    const text = JSON.stringify(stats);
    const older = renderStats(parseStatsAnswer(text, 'https://cdn.example'), 'https://cdn.example');
    expect(table(older, 'Tiers').split('\n')).toHaveLength(5);
    expect(older).not.toContain('Outcomes at the r2');
    // A tier every deployment has, missing, is no stats.json of ours.
    delete stats.tiers.shield;
    expect(() => parseStatsAnswer(JSON.stringify(stats), 'https://cdn.example')).toThrow(/no tiers\.shield/);
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
