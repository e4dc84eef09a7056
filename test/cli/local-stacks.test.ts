// Several local stacks at once (cli/local-stacks.ts): each `npm start` notes itself in a file of its own, by port;
// the commands reach one by --port or --base, the only one without either, and say which to pick when several run.
// Two stand-in edges play the stacks here; test/local/two-stacks.test.ts does the same with two real stacks.

import { spawn } from 'node:child_process';
import { readdir, rm } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LOCAL_STACKS_DIR, portOf } from '../../cli/local-stacks.ts';
import { runPurge } from '../../cli/purge.ts';
import { runSign } from '../../cli/sign.ts';
import { runStats } from '../../cli/stats.ts';
import { STACKS_DIR } from '../../local/operator.ts';
import { type StackFolder, stackFolder, testContext } from './cli-context.ts';
import { type FakeEdge, startStatsAndPurgeEdge } from './fake-edge.ts';

let one: FakeEdge;
let two: FakeEdge;
let stacks: StackFolder;

const answer = () => startStatsAndPurgeEdge();

beforeAll(async () => {
  [one, two] = await Promise.all([answer(), answer()]);
});
afterAll(async () => {
  await Promise.all([one.close(), two.close()]);
});
beforeEach(async () => {
  one.received.length = 0;
  two.received.length = 0;
  stacks = await stackFolder();
  await stacks.write({ url: one.url, statsToken: 'stats-one', purgeToken: 'purge-one', pid: process.pid });
  await stacks.write({ url: two.url, statsToken: 'stats-two', purgeToken: 'purge-two', pid: process.pid });
});
afterEach(() => stacks.remove());

/** A process id no process has any more: a child's, once it has exited. */
function deadPid(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', '']);
    child.on('error', reject);
    child.on('exit', () => resolve(child.pid ?? 0));
  });
}

describe('several local stacks', () => {
  it('the CLI and npm start agree on where the notes are', () => {
    expect(LOCAL_STACKS_DIR.replace(/\/$/, '')).toBe(STACKS_DIR);
  });

  it('without --base or --port: names each running stack and the flag that picks it (exit 2), sends nothing', async () => {
    const context = testContext(stacks.stacksDir);
    expect(await runStats([], context)).toBe(2);
    const [first, second] = [one, two].sort((a, b) => portOf(a.url) - portOf(b.url));
    expect(context.stderr).toEqual([
      [
        '2 local stacks are running: pass --port N (or --base URL) to say which',
        `  --port ${portOf(first?.url ?? '')}  ${first?.url}`,
        `  --port ${portOf(second?.url ?? '')}  ${second?.url}`,
      ].join('\n'),
    ]);
    expect([...one.received, ...two.received]).toEqual([]);
  });

  it('--port reaches that stack with its own token, for stats, purge and sign alike', async () => {
    expect(await runStats(['--port', String(portOf(two.url))], testContext(stacks.stacksDir))).toBe(0);
    expect(await runPurge(['--everything', '--port', String(portOf(one.url))], testContext(stacks.stacksDir))).toBe(0);
    expect(two.received.map((request) => request.headers.authorization)).toEqual(['Bearer stats-two']);
    expect(one.received.map((request) => request.headers.authorization)).toEqual(['Bearer purge-one']);
    await stacks.write({ url: two.url, statsToken: 's', purgeToken: 'p', signingKeys: 'k=secret', pid: process.pid });
    const signing = testContext(stacks.stacksDir);
    expect(await runSign(['--path', '/a', '--expires', '1h', '--port', String(portOf(two.url))], signing)).toBe(0);
    expect(signing.stdout.at(-1)).toMatch(new RegExp(`^${two.url}/a\\?`));
  });

  it("--base naming one of them uses that stack's token, and no other's", async () => {
    expect(await runStats(['--base', one.url], testContext(stacks.stacksDir))).toBe(0);
    expect(await runPurge(['--everything', '--base', two.url], testContext(stacks.stacksDir))).toBe(0);
    expect(one.received.map((request) => request.headers.authorization)).toEqual(['Bearer stats-one']);
    expect(two.received.map((request) => request.headers.authorization)).toEqual(['Bearer purge-two']);
  });

  it('--port of no running stack says so and lists the running ones (exit 2)', async () => {
    const context = testContext(stacks.stacksDir);
    expect(await runStats(['--port', '1'], context)).toBe(2);
    const ports = [one, two].map((edge) => portOf(edge.url)).sort((a, b) => a - b);
    expect(context.stderr).toEqual([
      `no local stack on port 1: start one with \`PORT=1 npm start\`; running: ${ports.join(', ')}`,
    ]);
  });

  it('--port and --base together, or a --port that is no port, are usage errors (exit 2)', async () => {
    const both = testContext(stacks.stacksDir);
    expect(await runStats(['--port', String(portOf(one.url)), '--base', one.url], both)).toBe(2);
    expect(both.stderr).toEqual(['give --base or --port, not both']);
    const word = testContext(stacks.stacksDir);
    expect(await runPurge(['--everything', '--port', 'eighty'], word)).toBe(2);
    expect(word.stderr).toEqual(['expected --port to be the local edge\'s port, 1..65535; got "eighty"']);
    expect([...one.received, ...two.received]).toEqual([]);
  });

  it('one stopped (its note removed): the other is the only stack, reached without a flag', async () => {
    await rm(stacks.pathFor(one.url));
    expect(await runStats([], testContext(stacks.stacksDir))).toBe(0);
    expect(two.received.map((request) => request.headers.authorization)).toEqual(['Bearer stats-two']);
  });

  it('a note whose npm start is gone (killed, so it could not remove it) is removed and ignored', async () => {
    const stale = await stacks.write({ url: one.url, statsToken: 'stats-one', purgeToken: 'p', pid: await deadPid() });
    expect(await runStats([], testContext(stacks.stacksDir))).toBe(0);
    expect(two.received.map((request) => request.headers.authorization)).toEqual(['Bearer stats-two']);
    expect(await readdir(stacks.stacksDir)).not.toContain(stale.split('/').at(-1));
  });
});
