// What the commands share (cli/command.ts, print.ts, edge-api.ts): what they print of what came over the wire, their tables, and
// stats and purge naming the deployment the same way, so an operator who learnt one command knows the other.

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { printable, textTable } from '../../cli/print.ts';
import { PURGE_USAGE, runPurge } from '../../cli/purge.ts';
import { runStats, STATS_USAGE } from '../../cli/stats.ts';
import { type StackFolder, stackFolder, testContext } from './cli-context.ts';
import { type FakeEdge, startStatsAndPurgeEdge } from './fake-edge.ts';

let edge: FakeEdge;
let stack: StackFolder;

beforeAll(async () => {
  edge = await startStatsAndPurgeEdge();
});
afterAll(() => edge.close());
beforeEach(async () => {
  edge.received.length = 0;
  stack = await stackFolder();
});
afterEach(() => stack.remove());

/** The usage line that documents the deployment flag. */
const deploymentLine = (usage: string): string | undefined =>
  usage.split('\n').find((line) => /^ {2}--base /.test(line));

// `--url` is purge's object flag, so stats refuses it with the flag to use instead.
describe('stats and purge: one flag names the deployment', () => {
  it('both reach the deployment given with --base', async () => {
    const env = { STATS_TOKEN: 's', PURGE_TOKEN: 'p' };
    expect(await runStats(['--base', edge.url], testContext(stack.stacksDir, env))).toBe(0);
    expect(await runPurge(['--everything', '--base', edge.url], testContext(stack.stacksDir, env))).toBe(0);
    expect(edge.received.map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /__tiercache/stats.json',
      'POST /__tiercache/purge',
    ]);
  });

  it('both usages document it with the same line', () => {
    expect(deploymentLine(STATS_USAGE)).toBeDefined();
    expect(deploymentLine(STATS_USAGE)).toBe(deploymentLine(PURGE_USAGE));
  });

  it('both say the same when there is no local stack and no --base', async () => {
    const stats = testContext(stack.stacksDir, { STATS_TOKEN: 's' });
    const purge = testContext(stack.stacksDir, { PURGE_TOKEN: 'p' });
    expect(await runStats([], stats)).toBe(2);
    expect(await runPurge(['--everything'], purge)).toBe(2);
    expect(stats.stderr).toEqual(['no local stack: start it with `npm start`, or pass --base']);
    expect(purge.stderr).toEqual(stats.stderr);
  });

  it('stats refuses --url (exit 2), naming --base, and sends nothing', async () => {
    const context = testContext(stack.stacksDir, { STATS_TOKEN: 's' });
    expect(await runStats(['--url', edge.url], context)).toBe(2);
    expect(context.stderr.join('\n')).toMatch(
      /^npm run stats names the deployment with --base https:\/\/cdn\.example, as npm run purge does \(--url is purge's flag for an object\)\n\nusage: npm run stats -- /,
    );
    expect(edge.received).toEqual([]);
  });
});

describe('printable', () => {
  it('shows control characters as \\xNN and leaves other text alone', () => {
    expect(printable('a\u001b[31mb\r\n\u009bc\u007f')).toBe('a\\x1b[31mb\\x0d\\x0a\\x9bc\\x7f');
    expect(printable('/café/ü.png — ok')).toBe('/café/ü.png — ok');
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
