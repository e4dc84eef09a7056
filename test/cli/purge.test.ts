// `npm run purge` (cli/purge.ts) against a scripted edge on 127.0.0.1 that parses the body with the edge's own parser
// and answers as worker/purge.ts does: what was sent, what is printed, the exit codes; and its answer read and printed.

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  durationMs,
  parsePurgeAnswer,
  parsePurgeArgs,
  purgeRequest,
  renderPurgeAnswer,
  runPurge,
} from '../../cli/purge.ts';
import { parsePurgeBody } from '../../shared/purge/purge-rules.ts';
import { type StackFolder, stackFolder, type TestContext, testContext } from './cli-context.ts';
import { type Answer, type FakeEdge, json, plain, startFakeEdge, unreachableUrl } from './fake-edge.ts';

const TOKEN = 'purge-secret-5d1e';
const STACK_TOKEN = 'stack-purge-secret-44aa';
const AT = Date.parse('2026-01-30T10:15:02.000Z');
const EVERY_TARGET = [
  '--url',
  '/a.png',
  '--url',
  'https://cdn.example/b.css',
  '--prefix',
  '/img/',
  '--tag',
  'blog',
  '--everything',
];

/** The edge's answer to a purge (worker/purge.ts): the body as its parser accepted it, or its 400. */
function edgeAnswer(body: string): Answer {
  const parsed = parsePurgeBody(body);
  if (!parsed.ok) return plain(400, parsed.reason);
  return json(200, { purged: parsed.request, at: AT, reachesEveryLocationWithin: '65s' });
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
  const code = await runPurge(argv, context, input);
  expect(context.printed()).not.toContain(TOKEN);
  expect(context.printed()).not.toContain(STACK_TOKEN);
  return code;
}

describe('npm run purge: arguments and the request', () => {
  it('keeps every repeated flag, in order', () => {
    const args = parsePurgeArgs([...EVERY_TARGET, '--url', '/c.js', '--tag', 'v2', '--base', 'https://cdn.example']);
    expect(args).toEqual({
      targets: {
        urls: ['/a.png', 'https://cdn.example/b.css', '/c.js'],
        prefixes: ['/img/'],
        tags: ['blog', 'v2'],
        everything: true,
        soft: false,
      },
      base: 'https://cdn.example',
      help: false,
    });
  });

  it('builds POST <base>/__tiercache/purge with the bearer token and a JSON body of what was named', () => {
    const deployment = { base: new URL('https://cdn.example/ignored/path'), token: TOKEN, local: false };
    const request = purgeRequest(deployment, parsePurgeArgs(EVERY_TARGET).targets);
    expect(request.method).toBe('POST');
    expect(request.url.href).toBe('https://cdn.example/__tiercache/purge');
    expect(request.headers).toEqual({
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      accept: 'application/json',
    });
    expect(request.body).toBe(
      '{"urls":["/a.png","https://cdn.example/b.css"],"prefixes":["/img/"],"tags":["blog"],"everything":true}',
    );
    expect(purgeRequest(deployment, parsePurgeArgs(['--tag', 'blog']).targets).body).toBe('{"tags":["blog"]}');
  });

  it('--soft: sends "soft": true with the targets, prints that it was soft; alone it names nothing (exit 2)', async () => {
    const context = testContext(stack.stacksDir, { PURGE_TOKEN: TOKEN });
    expect(await run(['--soft', '--tag', 'blog', '--base', edge.url], context)).toBe(0);
    expect(JSON.parse(edge.received[0]?.body ?? '')).toEqual({ tags: ['blog'], soft: true });
    expect(context.stdout).toEqual([
      [
        `${edge.url}: purge accepted at 2026-01-30 10:15:02Z`,
        '  tags:       blog',
        '  soft:       yes (stale at once, revalidated with the origin)',
        'reaches every location by 2026-01-30 10:16:07Z (within 65s)',
      ].join('\n'),
    ]);
    const alone = testContext(stack.stacksDir, { PURGE_TOKEN: TOKEN });
    expect(await run(['--soft', '--base', edge.url], alone)).toBe(2);
    expect(alone.stderr[0]).toMatch(/^nothing to purge: /);
    expect(edge.received).toHaveLength(1);
  });

  it('no target at all: says what to name, prints the usage (exit 2), sends nothing', async () => {
    const context = testContext(stack.stacksDir, { PURGE_TOKEN: TOKEN });
    expect(await run(['--base', edge.url], context)).toBe(2);
    expect(context.stderr[0]).toMatch(
      /^nothing to purge: name at least one --url, --prefix, --tag, --everything or --from\n\nusage: npm run purge -- /,
    );
    expect(edge.received).toEqual([]);
  });

  it('usage errors (exit 2): an unknown flag, a value missing, --base twice, credentials in --base', async () => {
    const cases: [string[], string][] = [
      [['--tags', 'blog'], "Unknown option '--tags'"],
      [['--tag'], "Option '--tag <value>' argument missing"],
      [['--tag', 'blog', '--base', edge.url, '--base', edge.url], '--base given 2 times; give it once'],
      [['--tag', 'blog', '--base', 'https://me:pw@cdn.example'], 'expected --base without user:password in it'],
    ];
    for (const [argv, message] of cases) {
      const context = testContext(stack.stacksDir, { PURGE_TOKEN: TOKEN });
      expect(await run(argv, context), argv.join(' ')).toBe(2);
      expect(context.stderr.join('\n')).toContain(message);
    }
    expect(edge.received).toEqual([]);
  });
});

describe('npm run purge: the answer', () => {
  it('200: prints what was accepted, when, and when it reaches every location (at + the bound)', async () => {
    const context = testContext(stack.stacksDir, { PURGE_TOKEN: TOKEN });
    expect(await run([...EVERY_TARGET, '--base', edge.url], context)).toBe(0);
    expect(edge.received).toHaveLength(1);
    const received = edge.received[0];
    expect(received).toMatchObject({ method: 'POST', path: '/__tiercache/purge' });
    expect(received?.headers).toMatchObject({ authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' });
    expect(JSON.parse(received?.body ?? '')).toEqual({
      urls: ['/a.png', 'https://cdn.example/b.css'],
      prefixes: ['/img/'],
      tags: ['blog'],
      everything: true,
    });
    expect(context.stdout).toEqual([
      [
        `${edge.url}: purge accepted at 2026-01-30 10:15:02Z`,
        '  urls:       /a.png, https://cdn.example/b.css',
        '  prefixes:   /img/',
        '  tags:       blog',
        '  everything: yes',
        'reaches every location by 2026-01-30 10:16:07Z (within 65s)',
      ].join('\n'),
    ]);
    expect(context.stderr).toEqual([]);
  });

  it('--from: reads targets one per line and sends them in requests the edge takes', async () => {
    const lines = [
      '# a deploy’s changed files',
      ...Array.from({ length: 2050 }, (_, i) => `/page-${i}.html`),
      'tag:blog',
    ];
    const context = testContext(stack.stacksDir, { PURGE_TOKEN: TOKEN });
    const stdin = async (path: string): Promise<string> => {
      expect(path).toBe('-');
      return lines.join('\n');
    };
    expect(await run(['--from', '-', '--base', edge.url], context, stdin)).toBe(0);
    const bodies = edge.received.map((received) => JSON.parse(received.body) as { urls?: string[]; tags?: string[] });
    expect(bodies.map((body) => (body.urls?.length ?? 0) + (body.tags?.length ?? 0))).toEqual([1000, 1000, 51]);
    expect(bodies.flatMap((body) => body.urls ?? [])).toEqual(lines.slice(1, 2051));
    expect(bodies.at(-1)?.tags).toEqual(['blog']);
    expect(context.stdout).toHaveLength(3);
  });

  it('--from: a line that is no target is a usage error (exit 2), and nothing is sent', async () => {
    const context = testContext(stack.stacksDir, { PURGE_TOKEN: TOKEN });
    const file = async (): Promise<string> => '/a.png\nimg/b.png';
    expect(await run(['--from', 'changed.txt', '--base', edge.url], context, file)).toBe(2);
    expect(context.printed()).toContain('--from changed.txt: line 2');
    expect(edge.received).toHaveLength(0);
  });

  it('prints the path the purge took and its bound', () => {
    const base = { purged: { urls: ['/a.png'], prefixes: [], tags: [], everything: false }, at: AT };
    const platform = renderPurgeAnswer({
      ...base,
      reachesEveryLocationWithin: '150ms',
      paths: {
        platform: { sent: true, reachesEveryLocationWithin: '150ms' },
        records: { reachesEveryLocationWithin: '65s' },
      },
    });
    expect(platform).toContain(
      "  through Cloudflare's purge: within 150ms; the purge records (KV): within 65s, the backstop",
    );
    const memory = renderPurgeAnswer({
      ...base,
      reachesEveryLocationWithin: '65s',
      paths: {
        platform: { sent: true, reachesEveryLocationWithin: '150ms', reaches: ['edge Cache API'] },
        records: { reachesEveryLocationWithin: '65s', reaches: ['edge memory', 'edge Cache API', 'shield Cache API'] },
      },
    });
    expect(memory).toContain('(within 65s)');
    expect(memory.split('\n').at(-1)).toBe(
      "  through Cloudflare's purge: within 150ms (edge Cache API); the purge records (KV): within 65s (edge memory, edge Cache API, shield Cache API)",
    );
    const records = renderPurgeAnswer({
      ...base,
      reachesEveryLocationWithin: '65s',
      paths: {
        platform: { sent: false, reason: 'not configured (CF_API_TOKEN and CF_ZONE_ID)' },
        records: { reachesEveryLocationWithin: '65s' },
      },
    });
    expect(records).toContain(
      "  through the purge records (KV): within 65s; Cloudflare's purge: not configured (CF_API_TOKEN and CF_ZONE_ID)",
    );
  });

  it('an edge that states its bounds as typical (as KV and Instant Purge state theirs): printed so, with what they rest on', () => {
    const basis = 'Workers KV: changes "may take up to 60 seconds or more to be visible in other locations" (…)';
    const typical = { bound: 'typical' as const };
    const text = renderPurgeAnswer({
      purged: { urls: ['/a.png'], prefixes: [], tags: [], everything: false },
      at: AT,
      reachesEveryLocationWithin: '65s',
      ...typical,
      boundBasis: basis,
      paths: {
        platform: { sent: true, reachesEveryLocationWithin: '150ms', reaches: ['edge Cache API'], ...typical },
        records: { reachesEveryLocationWithin: '65s', reaches: ['edge memory'], ...typical },
      },
    });
    expect(text.split('\n').slice(2)).toEqual([
      'reaches every location by about 2026-01-30 10:16:07Z (typically within 65s; no bound the platform guarantees)',
      "  through Cloudflare's purge: typically within 150ms (edge Cache API); the purge records (KV): typically within 65s (edge memory)",
      `  as the platform states it: ${basis}`,
    ]);
  });

  it('401: says the token was refused and which variable to set (exit 1)', async () => {
    answer = () =>
      plain(401, 'purge needs Authorization: Bearer <PURGE_TOKEN>', {
        'www-authenticate': 'Bearer realm="tiercache purge"',
      });
    const context = testContext(stack.stacksDir, { PURGE_TOKEN: TOKEN });
    expect(await run(['--tag', 'blog', '--base', edge.url], context)).toBe(1);
    expect(context.stderr).toEqual(["the token was refused: set PURGE_TOKEN to the deployment's secret"]);
  });

  it("403: says purge is off on this deployment, with the edge's own words (exit 1)", async () => {
    answer = () => plain(403, 'purge is disabled: set the PURGE_TOKEN secret to enable it');
    const context = testContext(stack.stacksDir, { PURGE_TOKEN: TOKEN });
    expect(await run(['--tag', 'blog', '--base', edge.url], context)).toBe(1);
    expect(context.stderr).toEqual([
      `purge is disabled: set the PURGE_TOKEN secret\n  ${edge.url} says: purge is disabled: set the PURGE_TOKEN secret to enable it`,
    ]);
  });

  it("400: the edge's reason, so its rules are not copied here (exit 1)", async () => {
    const context = testContext(stack.stacksDir, { PURGE_TOKEN: TOKEN });
    expect(await run(['--prefix', 'img/', '--base', edge.url], context)).toBe(1);
    expect(context.stderr).toEqual([
      `${edge.url}/__tiercache/purge answered 400 Bad Request: expected each prefix to be a path starting with "/", got "img/"`,
    ]);
  });

  it('500: the status and the first line of the body (exit 1)', async () => {
    answer = () => plain(500, 'purge needs the PURGES KV namespace binding');
    const context = testContext(stack.stacksDir, { PURGE_TOKEN: TOKEN });
    expect(await run(['--everything', '--base', edge.url], context)).toBe(1);
    expect(context.stderr).toEqual([
      `${edge.url}/__tiercache/purge answered 500 Internal Server Error: purge needs the PURGES KV namespace binding`,
    ]);
  });

  it('nothing listening: "cannot reach <url>: <reason>" (exit 1)', async () => {
    const url = await unreachableUrl();
    const context = testContext(stack.stacksDir, { PURGE_TOKEN: TOKEN });
    expect(await run(['--everything', '--base', url], context)).toBe(1);
    expect(context.stderr).toEqual([
      `cannot reach ${url}/__tiercache/purge: connect ECONNREFUSED ${new URL(url).host}`,
    ]);
  });
});

describe('npm run purge: which deployment', () => {
  it('without --base, purges on the local stack with its purge token', async () => {
    await stack.write({ url: edge.url, statsToken: 's', purgeToken: STACK_TOKEN });
    const context = testContext(stack.stacksDir);
    expect(await run(['--url', '/index.html'], context)).toBe(0);
    expect(edge.received[0]?.headers.authorization).toBe(`Bearer ${STACK_TOKEN}`);
    expect(context.stdout[0]).toContain('  urls:       /index.html');
  });

  it('PURGE_TOKEN wins over the stack file', async () => {
    await stack.write({ url: edge.url, statsToken: 's', purgeToken: STACK_TOKEN });
    expect(await run(['--url', '/index.html'], testContext(stack.stacksDir, { PURGE_TOKEN: TOKEN }))).toBe(0);
    expect(edge.received[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('no stack file and no --base: says to start it (exit 2), sends nothing', async () => {
    const context = testContext(stack.stacksDir, { PURGE_TOKEN: TOKEN });
    expect(await run(['--everything'], context)).toBe(2);
    expect(context.stderr).toEqual(['no local stack: start it with `npm start`, or pass --base']);
    expect(edge.received).toEqual([]);
  });

  it('a stack file without a purge token and no PURGE_TOKEN (exit 2)', async () => {
    await stack.write({ url: edge.url, statsToken: 's' });
    const context = testContext(stack.stacksDir);
    expect(await run(['--everything'], context)).toBe(2);
    expect(context.stderr).toEqual([
      `the local stack (${stack.pathFor(edge.url)}) has no purgeToken: restart it with \`npm start\`, or set PURGE_TOKEN`,
    ]);
  });
});

describe('the purge answer', () => {
  it('reads the bound as the edge writes it', () => {
    expect([durationMs('65s'), durationMs('500ms'), durationMs('2m'), durationMs('1.5h'), durationMs('soon')]).toEqual([
      65_000,
      500,
      120_000,
      5_400_000,
      undefined,
    ]);
  });

  it('prints only the lists that name something, and a bound it cannot read as it came', () => {
    const text = renderPurgeAnswer({
      purged: { urls: [], prefixes: [], tags: ['blog'], everything: false },
      at: AT,
      reachesEveryLocationWithin: 'a minute',
    });
    expect(text).toBe(
      ['purge accepted at 2026-01-30 10:15:02Z', '  tags:       blog', 'reaches every location within a minute'].join(
        '\n',
      ),
    );
  });

  it('refuses an answer that is not a purge answer, saying what it expected', () => {
    expect(() => parsePurgeAnswer('{"ok":true}', 'https://cdn.example/__tiercache/purge')).toThrow(
      'https://cdn.example/__tiercache/purge answered JSON that is not a purge\'s answer ({purged, at, reachesEveryLocationWithin}): "{\\"ok\\":true}"',
    );
    expect(() => parsePurgeAnswer('<html>', 'x')).toThrow(
      'x answered 200 with something that is not JSON (is it a tiercache edge?): "<html>"',
    );
    const answer = {
      purged: { urls: ['/a'], prefixes: [], tags: [], everything: false },
      at: AT,
      reachesEveryLocationWithin: '65s',
    };
    expect(parsePurgeAnswer(JSON.stringify(answer), 'x')).toEqual(answer);
  });
});
