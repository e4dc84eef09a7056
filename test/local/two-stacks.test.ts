// Two local stacks at once, as two `npm start`s run them: each notes itself in a file of its own (by its edge's
// port, local/operator.ts), the CLI reaches each by --port and by --base with that stack's own tokens, and the
// lines `npm start` prints for purging work as printed; one stopping leaves the other reachable without a flag.

import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPurge } from '../../cli/purge.ts';
import { runStats } from '../../cli/stats.ts';
import { noteStack, operatorLines, type StackNote } from '../../local/operator.ts';
import { testContext } from '../cli/cli-context.ts';
import { type Fixture, startFixture } from '../integration/fixture.ts';

interface Running {
  fixture: Fixture;
  note: StackNote;
  port: string;
  forget: () => Promise<void>;
}

let dir: string;
let first: Running;
let second: Running;
let firstStopped = false;

async function startStack(name: string): Promise<Running> {
  const tokens = { statsToken: `stats-${name}`, purgeToken: `purge-${name}` };
  const fixture = await startFixture({ STATS_TOKEN: tokens.statsToken, PURGE_TOKEN: tokens.purgeToken });
  const note = { url: fixture.stack.url, ...tokens };
  return { fixture, note, port: new URL(note.url).port, forget: await noteStack(note, dir) };
}

beforeAll(async () => {
  dir = join(await mkdtemp(join(tmpdir(), 'tiercache-stacks-')), 'stacks');
  first = await startStack('first');
  second = await startStack('second');
}, 60_000);

afterAll(async () => {
  if (!firstStopped) await first?.fixture.close();
  await second?.fixture.close();
  await rm(join(dir, '..'), { recursive: true, force: true });
});

describe('two local stacks at once', () => {
  it('each is noted in a file of its own, named after its port', async () => {
    expect((await readdir(dir)).sort()).toEqual([`${first.port}.json`, `${second.port}.json`].sort());
  });

  it('the CLI reaches each by --port and by --base, with that stack’s own token', async () => {
    for (const { note, port } of [first, second]) {
      const byPort = testContext(dir);
      expect(await runStats(['--port', port, '--json'], byPort), byPort.printed()).toBe(0);
      const byBase = testContext(dir);
      expect(await runPurge(['--url', '/index.html', '--base', note.url], byBase), byBase.printed()).toBe(0);
      expect(byBase.stdout[0]).toMatch(new RegExp(`^${note.url}: purge accepted at `));
    }
  });

  it('the purge npm start prints for a stack works as printed', async () => {
    const line = operatorLines(second.note, { statsToken: true, purgeToken: true }, false).find((text) =>
      text.includes('npm run purge -- '),
    );
    const argv = (line ?? '')
      .trim()
      .replace(/^npm run purge -- /, '')
      .split(/\s+/);
    expect(argv).toEqual(['--url', '/index.html', '--port', second.port]);
    const context = testContext(dir);
    expect(await runPurge(argv, context), context.printed()).toBe(0);
    expect(context.stdout[0]).toMatch(new RegExp(`^${second.note.url}: purge accepted at `));
  });

  it('without a flag, the CLI names both and asks which', async () => {
    const context = testContext(dir);
    expect(await runStats([], context)).toBe(2);
    expect(context.stderr[0]).toContain('2 local stacks are running: pass --port N (or --base URL) to say which');
    expect(context.stderr[0]).toContain(`--port ${first.port}  ${first.note.url}`);
    expect(context.stderr[0]).toContain(`--port ${second.port}  ${second.note.url}`);
  });

  it('one stopping leaves the other reachable, without a flag and by its port', async () => {
    await first.forget();
    await first.fixture.close();
    firstStopped = true;
    const bare = testContext(dir);
    expect(await runStats(['--json'], bare), bare.printed()).toBe(0);
    const byPort = testContext(dir);
    expect(await runPurge(['--everything', '--port', second.port], byPort), byPort.printed()).toBe(0);
    const gone = testContext(dir);
    expect(await runStats(['--port', first.port], gone)).toBe(2);
    expect(gone.stderr).toEqual([
      `no local stack on port ${first.port}: start one with \`PORT=${first.port} npm start\`; running: ${second.port}`,
    ]);
  });
});
