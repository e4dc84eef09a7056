// `npm run warm` (cli/warm.ts) against a scripted edge on 127.0.0.1 that parses the body with the edge's own parser and
// paces its answers as worker/warm.ts does (WARM_URLS_PER_CALL a call, `next` where the following one starts): what
// was sent, call after call, what is printed, the exit codes.

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseUrlLines, parseWarmArgs, runWarm, warmBodies, warmRequest } from '../../cli/warm.ts';
import { WARM_URLS_PER_CALL } from '../../shared/warm/warm-pacing.ts';
import type { WarmReport } from '../../shared/warm/warm-report.ts';
import { parseWarmBody } from '../../shared/warm/warm-request.ts';
import { type StackFolder, stackFolder, type TestContext, testContext } from './cli-context.ts';
import { type Answer, type FakeEdge, json, plain, startFakeEdge } from './fake-edge.ts';

const TOKEN = 'purge-secret-5d1e';
/** How many objects the scripted edge says a playlist names (itself included). */
const PLAYLIST_LIST = 301;

/** The edge's answer (worker/warm.ts): its 400 for a body its parser refuses, else a paced report. */
function edgeAnswer(body: string): Answer {
  const parsed = parseWarmBody(body);
  if (!parsed.ok) return plain(400, parsed.reason);
  const { urls, prefixes, tier, from } = parsed.request;
  const list = prefixes.length > 0 ? Array.from({ length: PLAYLIST_LIST }, (_, i) => `/v/${i}.ts`) : urls;
  const end = Math.min(list.length, from + WARM_URLS_PER_CALL);
  const part = list.slice(from, end);
  const failed = part.filter((url) => url.includes('missing'));
  const tally = {
    warmed: part.length - failed.length,
    cached: 0,
    failed: failed.length,
    bytes: 1000 * part.length,
    originBytes: 1000 * part.length,
  };
  const report: WarmReport = {
    tier,
    ...(tier === 'both' ? { location: 'FRA', edge: { ...tally, originBytes: 0 } } : {}),
    total: list.length,
    from,
    next: end >= list.length ? null : end,
    done: part.length,
    skipped: 0,
    shield: tally,
    playlists: prefixes.length,
    subrequests: part.length,
    problems: failed.map((url) => ({ url, tier: 'shield', status: 404, reason: 'answered 404' })),
  };
  return json(200, report);
}

let answer: ((body: string) => Answer) | undefined;
let edge: FakeEdge;
let stack: StackFolder;

beforeAll(async () => {
  edge = await startFakeEdge((request) => (answer ?? edgeAnswer)(request.body));
});
afterAll(() => edge.close());
beforeEach(async () => {
  answer = undefined;
  edge.received.length = 0;
  stack = await stackFolder();
});
afterEach(() => stack.remove());

async function run(argv: string[], context: TestContext, input?: (path: string) => Promise<string>): Promise<number> {
  const code = await runWarm(argv, context, input);
  expect(context.printed()).not.toContain(TOKEN);
  return code;
}

const bodies = (): Record<string, unknown>[] => edge.received.map((received) => JSON.parse(received.body));

describe('npm run warm: arguments and the requests', () => {
  it('keeps repeated flags in order, the shield by default', () => {
    expect(
      parseWarmArgs(['--url', '/a', '--playlist', '/v/i.m3u8', '--url', '/b', '--base', 'https://cdn.example']),
    ).toEqual({
      urls: ['/a', '/b'],
      playlists: ['/v/i.m3u8'],
      from: undefined,
      tier: 'shield',
      base: 'https://cdn.example',
      port: undefined,
      help: false,
    });
    expect(parseWarmArgs(['--url', '/a', '--tier', 'both']).tier).toBe('both');
  });

  it('sends URLs in batches of what one call warms, and each playlist with its folder as the prefix', () => {
    const urls = Array.from({ length: WARM_URLS_PER_CALL + 3 }, (_, i) => `/${i}`);
    const made = warmBodies(urls, ['https://cdn.example/video/ep1/index.m3u8?v=2', '/dash/a.mpd']);
    expect(made.map((body) => ('urls' in body ? body.urls.length : body.prefixes[0].prefix))).toEqual([
      WARM_URLS_PER_CALL,
      3,
      '/video/ep1/',
      '/dash/',
    ]);
  });

  it('builds POST <base>/__tiercache/warm with the purge token, the tier and where the call starts', () => {
    const deployment = { base: new URL('https://cdn.example/x'), token: TOKEN, local: false };
    const request = warmRequest(deployment, { urls: ['/a'] }, 'both', 250);
    expect(request.url.href).toBe('https://cdn.example/__tiercache/warm');
    expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request.body).toBe('{"urls":["/a"],"tier":"both","from":250}');
    expect(warmRequest(deployment, { urls: ['/a'] }, 'shield', 0).body).toBe('{"urls":["/a"]}');
  });

  it('reads --from a path or URL a line, and refuses a line that is neither', () => {
    expect(parseUrlLines('# new episode\n/v/a.ts\n\nhttps://cdn.example/v/b.ts\r\n')).toEqual([
      '/v/a.ts',
      'https://cdn.example/v/b.ts',
    ]);
    expect(parseUrlLines('/a\nv/b.ts')).toEqual({ error: 'line 2: expected a path or an http(s) URL, got "v/b.ts"' });
    expect(parseUrlLines('# nothing\n')).toEqual({ error: 'no URL in it' });
  });

  it('usage errors (exit 2): nothing to warm, an unknown tier, a bad --from, and nothing is sent', async () => {
    const cases: [string[], string][] = [
      [['--base', edge.url], 'nothing to warm: name at least one --url, --from or --playlist'],
      [['--url', '/a', '--tier', 'edge', '--base', edge.url], '--tier is shield or both, got "edge"'],
      [['--from', 'list.txt', '--base', edge.url], '--from list.txt: line 1'],
    ];
    for (const [argv, message] of cases) {
      const context = testContext(stack.stacksDir, { PURGE_TOKEN: TOKEN });
      expect(await run(argv, context, async () => 'not a url'), argv.join(' ')).toBe(2);
      expect(context.stderr.join('\n')).toContain(message);
    }
    expect(edge.received).toEqual([]);
  });
});

describe('npm run warm: the calls and what is printed', () => {
  it('--playlist: calls again from where each call says, printing the progress of each', async () => {
    const context = testContext(stack.stacksDir, { PURGE_TOKEN: TOKEN });
    expect(await run(['--playlist', '/v/index.m3u8', '--base', edge.url], context)).toBe(0);
    expect(bodies()).toEqual([
      { prefixes: [{ prefix: '/v/', playlist: '/v/index.m3u8' }] },
      { prefixes: [{ prefix: '/v/', playlist: '/v/index.m3u8' }], from: WARM_URLS_PER_CALL },
    ]);
    expect(context.stdout).toEqual([
      `${edge.url}: 250/301 (shield: 250 warmed, 0 cached, 0 failed, 250 kB (250 kB from the origin); 0 skipped)`,
      `${edge.url}: 301/301 (shield: 301 warmed, 0 cached, 0 failed, 301 kB (301 kB from the origin); 0 skipped)`,
      'warmed: 301 objects',
    ]);
  });

  it('--from - with --tier both: the edge location named, the failures listed, exit 1', async () => {
    const lines = ['/v/a.ts', '/v/missing.ts', 'https://cdn.example/v/c.ts'];
    const context = testContext(stack.stacksDir, { PURGE_TOKEN: TOKEN });
    expect(
      await run(['--from', '-', '--tier', 'both', '--base', edge.url], context, async () => lines.join('\n')),
    ).toBe(1);
    expect(bodies()).toEqual([{ urls: lines, tier: 'both' }]);
    expect(context.stdout[0]).toContain('; edge at FRA: 2 warmed, 0 cached, 1 failed');
    expect(context.stdout[1]).toBe(
      'warmed, with failures: 3 objects\n  failed at the shield: /v/missing.ts: answered 404',
    );
  });

  it('an edge that does not move the list on is a failure, not an endless loop (exit 1)', async () => {
    answer = (body) => {
      const report = JSON.parse((edgeAnswer(body) as { body: string }).body) as WarmReport;
      return json(200, { ...report, next: 0 });
    };
    const context = testContext(stack.stacksDir, { PURGE_TOKEN: TOKEN });
    expect(await run(['--url', '/a', '--url', '/b', '--base', edge.url], context)).toBe(1);
    expect(context.stderr[0]).toMatch(/answered a warm that moved no further than 0/);
    expect(edge.received).toHaveLength(1);
  });

  it("401 and 400: the token refused, the edge's reason (exit 1)", async () => {
    answer = () => plain(401, 'warm needs Authorization: Bearer <PURGE_TOKEN>');
    const refused = testContext(stack.stacksDir, { PURGE_TOKEN: TOKEN });
    expect(await run(['--url', '/a', '--base', edge.url], refused)).toBe(1);
    expect(refused.stderr[0]).toMatch(/^the token was refused: set PURGE_TOKEN/);
    answer = undefined;
    const bad = testContext(stack.stacksDir, { PURGE_TOKEN: TOKEN });
    expect(await run(['--playlist', '/v/index.txt', '--base', edge.url], bad)).toBe(1);
    expect(bad.stderr[0]).toContain(
      'answered 400 Bad Request: expected "playlist" to name an HLS (.m3u8) or DASH (.mpd)',
    );
  });

  it("a 200 that is not a warm's report is a failure saying so (exit 1)", async () => {
    answer = () => json(200, { purged: {} });
    const context = testContext(stack.stacksDir, { PURGE_TOKEN: TOKEN });
    expect(await run(['--url', '/a', '--base', edge.url], context)).toBe(1);
    expect(context.stderr[0]).toMatch(/answered JSON that is not a warm's report/);
  });
});
