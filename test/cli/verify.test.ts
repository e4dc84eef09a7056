// `npm run verify` (cli/verify.ts) against the real local stack, as `npm start` runs it (the front, the sample site,
// the purge and stats tokens in its note): every line that can be shown from one place passes; run twice, the second
// run's edge hits; a disabled edge cache and a shield that is down each fail their line with what to do.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_OBJECT, LOCAL_SLICED, runVerify } from '../../cli/verify.ts';
import type { Line, LineId, Verdict } from '../../cli/verify-lines.ts';
import type { VerifyReport } from '../../cli/verify-report.ts';
import { sampleAssets } from '../../local/assets.ts';
import { type Fixture, startFixture } from '../integration/fixture.ts';
import { type StackFolder, stackFolder, testContext } from './cli-context.ts';

const STATS_TOKEN = 'verify-stats-secret-3c1d';
const PURGE_TOKEN = 'verify-purge-secret-8e2b';
/** As `npm start` sets them (local/operator.ts): the tokens, and counts flushed every second. */
const OPERATOR = { STATS_TOKEN, PURGE_TOKEN, STATS_FLUSH_MS: '1000' };
const TIMEOUT_MS = 120_000;

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'tiercache-verify-'));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

/** A stack like `npm start`'s, its note written where the command looks; `front` always. */
async function startStack(
  options: Parameters<typeof startFixture>[1] = {},
): Promise<{ f: Fixture; note: StackFolder }> {
  const f = await startFixture(OPERATOR, { front: true, ...options });
  // What verify reads by default, not the 64 MiB big.bin it never asks for.
  const read = sampleAssets().filter((asset) => [LOCAL_OBJECT, LOCAL_SLICED].includes(`/${asset.key}`));
  await Promise.all(
    read.map(({ key, contentType, size, body }) =>
      f.origin.putObject(key, body, { 'content-type': contentType, 'content-length': String(size) }),
    ),
  );
  const note = await stackFolder();
  const locations = f.stack.secondLocationUrl === undefined ? {} : { locations: [f.stack.secondLocationUrl] };
  await note.write({ url: f.stack.url, statsToken: STATS_TOKEN, purgeToken: PURGE_TOKEN, ...locations });
  return { f, note };
}

interface Ran {
  code: number;
  text: string;
  report: VerifyReport;
  verdicts: Partial<Record<LineId, Verdict>>;
  line(id: LineId): Line;
}

async function verify(note: StackFolder, argv: string[], out: string): Promise<Ran> {
  const context = testContext(note.stacksDir);
  const code = await runVerify([...argv, '--out', out], context);
  const text = context.printed();
  // No secret is ever printed.
  expect(text).not.toContain(STATS_TOKEN);
  expect(text).not.toContain(PURGE_TOKEN);
  const report = JSON.parse(await readFile(out, 'utf8')) as VerifyReport;
  const verdicts = Object.fromEntries(report.lines.map((line) => [line.id, line.verdict]));
  const line = (id: LineId): Line => report.lines.find((candidate) => candidate.id === id) as Line;
  return { code, text, report, verdicts, line };
}

describe('npm run verify against a stack like npm start', () => {
  let f: Fixture;
  let note: StackFolder;
  let first: Ran;
  beforeAll(async () => {
    // With a second location of its own (its own process and cache, the same shield), as `npm start` runs.
    ({ f, note } = await startStack({ secondLocation: true }));
    first = await verify(note, [], join(folder, 'first.json'));
  }, TIMEOUT_MS);
  afterAll(async () => {
    await note?.remove();
    await f?.close();
  });

  it('passes every line one place can show, exit 0, with the local stack and its sample objects by default', () => {
    expect(first.code, first.text).toBe(0);
    expect(first.verdicts).toEqual({
      health: 'pass',
      'edge-cache': 'pass',
      'second-location': 'info',
      previous: 'skipped',
      'sliced-read': 'pass',
      'slices-at-shield': 'info',
      range: 'pass',
      seek: 'pass',
      purge: 'pass',
      'origin-bytes': 'pass',
    });
    expect(first.report.base).toBe(f.stack.url);
    expect(first.report.colo).toEqual({ edge: 'local', shield: 'local' });
    expect(first.text).toMatch(/^tiercache verify: http:\/\/127\.0\.0\.1:\d+ at /);
    expect(first.text).toMatch(
      /\nPASSED: 7 passed, 0 failed, 2 to show from elsewhere, 1 skipped\nWhat each line shows and how to read it: docs\/deploying.md#verify-the-deploy$/,
    );
  });

  it('says what each tier said: the first read filled through the shield, the second an edge hit; how to show the shield from elsewhere', () => {
    expect(first.line('edge-cache').says).toBe(
      `${LOCAL_OBJECT} read twice: the edge said fwd=uri-miss; stored, then hit`,
    );
    expect(first.line('second-location').says).toContain('the shield fwd=uri-miss; stored');
    // The stack has a second location: the advice names it (a deployment's names another machine: verify-lines.test.ts).
    expect(first.line('second-location').advice).toContain(
      `npm run verify -- --base ${f.stack.secondLocationUrl} --previous <this report>.json`,
    );
    expect(first.report.object).toEqual({
      path: LOCAL_OBJECT,
      edge: 'fwd=uri-miss; stored',
      shield: 'fwd=uri-miss; stored',
    });
  });

  it('checks a sliced object whole, then a range and a seek in it against the whole read', () => {
    const video = sampleAssets().find((asset) => `/${asset.key}` === LOCAL_SLICED);
    expect(first.line('sliced-read').says).toMatch(
      new RegExp(`^${LOCAL_SLICED}: ${video?.size} bytes whole, in 2 slices, sha256 [0-9a-f]{64}$`),
    );
    expect(first.line('range').says).toContain(`206, bytes 0-99/${video?.size}`);
    const mid = Math.floor((video?.size ?? 0) / 2);
    expect(first.line('seek').says).toContain(`206, bytes ${mid}-${mid + 65535}/${video?.size}`);
  });

  it("times the purge, and reads the origin's bytes for the run from the stats: at least each object once", () => {
    expect(first.line('purge').says).toMatch(/stopped serving the old copy \d+\.\d\d s after the purge was accepted/);
    const bytes = Number(/the origin sent (\d+) bytes/.exec(first.line('origin-bytes').says)?.[1]);
    const sizes = sampleAssets()
      .filter((asset) => [LOCAL_OBJECT, LOCAL_SLICED].includes(`/${asset.key}`))
      .reduce((sum, asset) => sum + asset.size, 0);
    expect(bytes).toBeGreaterThanOrEqual(sizes);
  });

  it(
    'run again at the same base, shows the edge hits and says to run from a second location for the shield',
    async () => {
      const second = await verify(note, ['--previous', join(folder, 'first.json')], join(folder, 'second.json'));
      expect(second.code, second.text).toBe(0);
      expect(second.verdicts).toMatchObject({
        'edge-cache': 'pass',
        'second-location': 'info',
        previous: 'info',
        'slices-at-shield': 'info',
        purge: 'pass',
        'origin-bytes': 'pass',
      });
      expect(second.report.object).toMatchObject({ edge: expect.stringMatching(/^hit/) });
      expect(second.line('second-location').says).toMatch(/the edge held it already, so the shield was not asked$/);
      expect(second.line('slices-at-shield').says).toMatch(/the edge held every slice/);
      expect(second.line('previous').says).toMatch(/: the same location$/);
      expect(second.line('previous').advice).toMatch(/the local stack's second location/);
      // Nothing but the purged object came from the origin again.
      const bytes = Number(/the origin sent (\d+) bytes/.exec(second.line('origin-bytes').says)?.[1]);
      expect(bytes).toBeLessThan(1024 * 1024);
    },
    TIMEOUT_MS,
  );

  it(
    "and again: the edge's whole copy of the sliced object, made from its slices, still passes as the sliced read",
    async () => {
      const third = await verify(note, [], join(folder, 'third.json'));
      expect(third.code, third.text).toBe(0);
      expect(third.line('sliced-read').says).toMatch(/from the edge's whole copy of its slices/);
      expect(third.verdicts).toMatchObject({ range: 'pass', seek: 'pass', 'slices-at-shield': 'info' });
    },
    TIMEOUT_MS,
  );
  it(
    "run at a second location with the first run's report, shows that location's misses answered from the shield's cache",
    async () => {
      const elsewhere = f.stack.secondLocationUrl ?? '';
      expect(elsewhere).not.toBe('');
      const ran = await verify(
        note,
        [
          '--base',
          elsewhere,
          '--object',
          LOCAL_OBJECT,
          '--sliced',
          LOCAL_SLICED,
          '--previous',
          join(folder, 'first.json'),
        ],
        join(folder, 'elsewhere.json'),
      );
      expect(ran.code, ran.text).toBe(0);
      expect(ran.verdicts).toMatchObject({
        health: 'pass',
        'edge-cache': 'pass',
        'second-location': 'pass',
        previous: 'pass',
        'slices-at-shield': 'pass',
        range: 'pass',
        seek: 'pass',
      });
      // This location's edge missed; the shield answered from what the first location's run left in it.
      expect(ran.report.object).toMatchObject({
        edge: expect.stringMatching(/^fwd=uri-miss/),
        shield: expect.stringMatching(/^hit/),
      });
    },
    TIMEOUT_MS,
  );
});

describe('npm run verify when the edge cache is disabled', () => {
  let f: Fixture;
  let note: StackFolder;
  beforeAll(async () => {
    ({ f, note } = await startStack({ edgeCache: false }));
  }, TIMEOUT_MS);
  afterAll(async () => {
    await note?.remove();
    await f?.close();
  });

  it(
    'fails the edge cache line, saying the Cache API does nothing on workers.dev and what to do (exit 1)',
    async () => {
      const ran = await verify(note, [], join(folder, 'no-edge-cache.json'));
      expect(ran.code, ran.text).toBe(1);
      expect(ran.verdicts['edge-cache']).toBe('fail');
      expect(ran.line('edge-cache').says).toBe(
        `${LOCAL_OBJECT} read twice: the edge said fwd=uri-miss; stored, then fwd=uri-miss; stored`,
      );
      expect(ran.line('edge-cache').advice).toMatch(/custom domains only, never on \*\.workers\.dev/);
      expect(ran.text).toMatch(/FAIL {2}edge stores, hits/);
      expect(ran.text).toMatch(/FAILED: \d+ passed, 1 failed/);
    },
    TIMEOUT_MS,
  );
});

describe('npm run verify when the shield is down', () => {
  let f: Fixture;
  let note: StackFolder;
  beforeAll(async () => {
    ({ f, note } = await startStack({ entries: { shield: 'test/integration/unreachable-shield.js' } }));
    const cut = await fetch(new URL('/__test/cut-shield', f.stack.shieldUrl));
    expect(cut.status).toBe(200);
  }, TIMEOUT_MS);
  afterAll(async () => {
    await note?.remove();
    await f?.close();
  });

  it(
    "fails the health line, naming the shield and how to find why, and each read's line (exit 1)",
    async () => {
      const ran = await verify(note, [], join(folder, 'no-shield.json'));
      expect(ran.code, ran.text).toBe(1);
      expect(ran.line('health')).toMatchObject({
        verdict: 'fail',
        says: 'edge at local, shield at unknown: the edge answers 503 but the shield is unreachable',
      });
      expect(ran.line('health').advice).toMatch(/deploy the shield before the edge .* SHIELD_TOKEN.* wrangler tail/);
      expect(ran.verdicts['edge-cache']).toBe('fail');
      expect(ran.line('edge-cache').says).toBe(`${LOCAL_OBJECT}: answered 502, not 200`);
      // The tiers' failure, not a wrong path: the advice sends the reader to the health line, and nothing is said of
      // the shield's cache, which no read reached.
      expect(ran.line('edge-cache').advice).toBe(
        "the tiers failed the read (the edge's detail: shield-unreachable): fix what the tiers line says first, then run again",
      );
      expect(ran.line('sliced-read').advice).toMatch(/^the tiers failed the read/);
      expect(ran.line('range').advice).toMatch(/^the tiers failed the read/);
      expect(ran.line('second-location')).toMatchObject({
        verdict: 'skipped',
        says: `${LOCAL_OBJECT} was not read (see the edge stores, hits line)`,
      });
      expect(ran.line('slices-at-shield').verdict).toBe('skipped');
    },
    TIMEOUT_MS,
  );
});

describe('npm run verify: how it is asked', () => {
  let note: StackFolder;
  beforeAll(async () => {
    note = await stackFolder();
  });
  afterAll(() => note.remove());

  it('refuses a token on the command line, naming the variable to set (exit 2)', async () => {
    const context = testContext(note.stacksDir);
    expect(await runVerify(['--base', 'https://cdn.example', '--purge-token', 'x'], context)).toBe(2);
    expect(context.printed()).toMatch(/--purge-token is not taken: .* set PURGE_TOKEN in the environment/);
  });

  it('without --base, needs a local stack (exit 2)', async () => {
    const context = testContext(note.stacksDir);
    expect(await runVerify([], context)).toBe(2);
    expect(context.printed()).toMatch(/no local stack: start it with `npm start`, or pass --base/);
  });

  it('refuses a --previous that is not a verify report, and an object path without its slash (exit 2)', async () => {
    const bad = join(folder, 'not-a-report.json');
    await writeFile(bad, '{"hello": 1}');
    const context = testContext(note.stacksDir);
    expect(await runVerify(['--base', 'https://cdn.example', '--previous', bad], context)).toBe(2);
    expect(context.printed()).toMatch(/is not a tiercache verify report/);
    expect(await runVerify(['--base', 'https://cdn.example', '--object', 'index.html'], context)).toBe(2);
    expect(context.printed()).toMatch(/--object takes an object's path, starting with \//);
  });

  it('defaults to objects the local stack serves (local/sample-site.ts)', () => {
    const keys = sampleAssets().map((asset) => `/${asset.key}`);
    expect(keys).toEqual(expect.arrayContaining([LOCAL_OBJECT, LOCAL_SLICED]));
  });
});
