// `npm run verify` (docs/deploying.md "Verify the deploy"): after a deploy, from any machine, asks the edge what a
// team needs to see (where each tier runs, the edge storing and hitting, the shield answering a miss, slices, a range
// and a seek, a purge's time, the origin's bytes) and prints a line per claim. The I/O only: verify-lines.ts judges,
// verify-report.ts writes the report.

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HEALTH_PATH } from '../shared/request/reserved-paths.ts';
import type { StatsJson } from '../shared/stats/stats-json.ts';
import { EXIT_FAILED, failureExit, usageError } from './cli-failure.ts';
import { type CliContext, isEntry, processContext } from './command.ts';
import { apiRequest, callApi, DEPLOYMENT_FLAG, type Deployment } from './edge-api.ts';
import { parseFlags, single } from './flags.ts';
import { type LocalStack, PORT_FLAG, parsePort } from './local-stacks.ts';
import { PURGE_API } from './purge.ts';
import { parseStatsAnswer, STATS_API } from './stats.ts';
import { findBase, tokenFor } from './verify-base.ts';
import { judge } from './verify-lines.ts';
import {
  type HealthSeen,
  member,
  type Observations,
  type PreviousRun,
  type PurgeSeen,
  type RangeRead,
  type Read,
  type StatsSeen,
} from './verify-observations.ts';
import { type HashedRead, type ReadOptions, readObject, reason } from './verify-read.ts';
import { buildReport, passed, readPrevious, renderReport } from './verify-report.ts';

export const VERIFY_USAGE = `usage: npm run verify -- [--base https://cdn.example] [--object /path] [--sliced /path] [--previous REPORT.json] [--out FILE]

Proves a deployment from here: each tier's location, the edge storing and hitting, the shield answering a miss from
its cache, a sliced object's slices, a range and a seek, a purge's time, the origin's bytes; a line each, PASS, FAIL
(with what to do), INFO (shown from another location) or SKIP (with what to pass).
  --base URL        the edge's base URL (default: the local stack, noted in .build/local/stacks/ by \`npm start\`;
                    its second location, printed as "edge 2", is a base too)
  --port N          the local stack on this port, when several run
  --object PATH     an object to read twice, then purge (under 1 MiB is best; default on the local stack: /index.html)
  --sliced PATH     an object over SLICE_SIZE, read whole once, then a range and a seek in it
                    (default on the local stack: /video/sample.mp4)
  --previous FILE   the JSON report of a run from another location: the two runs compared
  --out FILE        where to write this run's JSON report (default: .build/verify/<time>-<host>.json)
  --help            this text
Tokens: PURGE_TOKEN (times a purge), STATS_TOKEN (the origin's bytes), else the local stack's for its own URL;
never on the command line (every user of the machine can read a process's arguments).
Exit: 0 no line failed; 1 a line failed; 2 usage.`;

/** Where reports go by default. */
export const VERIFY_DIR = fileURLToPath(new URL('../.build/verify/', import.meta.url));
/** The local stack's sample objects (local/sample-site.ts; cli/ does not import local/: a test checks they match). */
export const LOCAL_OBJECT = '/index.html';
export const LOCAL_SLICED = '/video/sample.mp4';
/** The range read: the object's first bytes, as a player's first request. */
const RANGE_BYTES = 100;
/** The seek: this many bytes from the middle of the object, as a player's jump. */
const SEEK_BYTES = 64 * 1024;
/**
 * How long the run waits for a purge to show at the edge: Cloudflare says KV's writes take "up to 60 seconds or more"
 * to be seen everywhere (https://developers.cloudflare.com/kv/concepts/how-kv-works/), and docs/purge.md's bound is
 * that plus the isolates' refresh.
 */
export const PURGE_LIMIT_MS = 120_000;
const PURGE_POLL_MS = 500;
/** How long the run waits for its requests to show in the stats. */
export const STATS_LIMIT_MS = 30_000;
/**
 * How long the sums must stay the same before they are read as the run's: each isolate of each tier flushes its counts
 * on its own timer, at most STATS_FLUSH_MS (5 s by default) after its last request, so the edge's can be in before the
 * shield's (seen: the edge's requests counted, the shield's fills not yet).
 */
export const STATS_SETTLE_MS = 6_000;
const STATS_POLL_MS = 1_000;
/** A whole sliced object may be large: its read has this long, whatever the command's timeout for one answer. */
const WHOLE_READ_MS = 600_000;

export interface VerifyArgs {
  base: string | undefined;
  /** --port: the local stack on that port, when several run. */
  port: number | undefined;
  object: string | undefined;
  sliced: string | undefined;
  previous: string | undefined;
  out: string | undefined;
  help: boolean;
}

/** The command, as a function of its arguments and context, answering the exit code. */
export async function runVerify(argv: readonly string[], context: CliContext, outDir = VERIFY_DIR): Promise<number> {
  try {
    const args = parseVerifyArgs(argv);
    if (args.help) {
      context.out(VERIFY_USAGE);
      return 0;
    }
    const previous = args.previous === undefined ? undefined : await previousRun(args.previous);
    const { base, note } = await findBase(args.base, args.port, context);
    const at = new Date().toISOString();
    const run = new Run(base, context);
    const seen = await run.observe(args, note, previous);
    const report = buildReport(at, seen, run.reads, judge(seen));
    const out =
      args.out ?? join(outDir, `${at.replace(/[:.]/g, '-')}-${base.host.replace(/[^A-Za-z0-9.-]/g, '_')}.json`);
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, `${JSON.stringify(report, null, 2)}\n`);
    const shown = relative(process.cwd(), out);
    context.out(renderReport(report, shown === '' || shown.startsWith('..') ? out : shown));
    return passed(report) ? 0 : EXIT_FAILED;
  } catch (error) {
    return failureExit(error, context.err);
  }
}

export function parseVerifyArgs(argv: readonly string[]): VerifyArgs {
  const flags = parseFlags(
    argv,
    {
      [DEPLOYMENT_FLAG]: { type: 'string' },
      [PORT_FLAG]: { type: 'string' },
      object: { type: 'string' },
      sliced: { type: 'string' },
      previous: { type: 'string' },
      out: { type: 'string' },
      'purge-token': { type: 'string' },
      'stats-token': { type: 'string' },
      help: { type: 'boolean' },
    },
    VERIFY_USAGE,
  );
  for (const [flag, variable] of [
    ['purge-token', 'PURGE_TOKEN'],
    ['stats-token', 'STATS_TOKEN'],
  ] as const) {
    if ((flags.strings[flag] ?? []).length > 0)
      throw usageError(
        `--${flag} is not taken: a secret on the command line is readable by every user of the machine; set ${variable} in the environment`,
        VERIFY_USAGE,
      );
  }
  const path = (name: string): string | undefined => {
    const value = single(flags, name, VERIFY_USAGE);
    if (value !== undefined && !value.startsWith('/'))
      throw usageError(
        `--${name} takes an object's path, starting with / (got ${JSON.stringify(value)})`,
        VERIFY_USAGE,
      );
    return value;
  };
  return {
    base: single(flags, DEPLOYMENT_FLAG, VERIFY_USAGE),
    port: parsePort(single(flags, PORT_FLAG, VERIFY_USAGE)),
    object: path('object'),
    sliced: path('sliced'),
    previous: single(flags, 'previous', VERIFY_USAGE),
    out: single(flags, 'out', VERIFY_USAGE),
    help: flags.booleans.help === true,
  };
}

async function previousRun(path: string): Promise<PreviousRun> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw usageError(`--previous ${path}: ${error instanceof Error ? error.message : String(error)}`, VERIFY_USAGE);
  }
  const previous = readPrevious(text);
  if ('error' in previous) throw usageError(`--previous ${path} ${previous.error}`, VERIFY_USAGE);
  return previous;
}

/** One run against one base: its reads, kept for the report. */
class Run {
  readonly reads: Read[] = [];
  /** Requests for objects made, which the edge's stats should count. */
  private made = 0;

  private readonly base: URL;
  private readonly context: CliContext;

  constructor(base: URL, context: CliContext) {
    this.base = base;
    this.context = context;
  }

  async observe(
    args: VerifyArgs,
    note: LocalStack | undefined,
    previous: PreviousRun | undefined,
  ): Promise<Observations> {
    const health = await this.health();
    const others = note?.locations?.filter((location) => new URL(location).origin !== this.base.origin) ?? [];
    const place = {
      base: this.base.origin,
      edge: health.colo ?? 'unknown',
      shield: health.shieldColo ?? 'unknown',
      ...(others.length > 0 ? { otherLocations: others } : {}),
    };
    const statsToken = tokenFor(STATS_API, note, this.context);
    const before = statsToken === undefined ? undefined : await this.stats(statsToken);
    const objectPath = args.object ?? (note === undefined ? undefined : LOCAL_OBJECT);
    const slicedPath = args.sliced ?? (note === undefined ? undefined : LOCAL_SLICED);
    const object =
      objectPath === undefined
        ? { skipped: 'pass --object /path, an object of the site (under 1 MiB is best)' }
        : { path: objectPath, first: await this.read(objectPath), second: await this.read(objectPath) };
    const sliced =
      slicedPath === undefined
        ? { skipped: 'pass --sliced /path, an object over SLICE_SIZE (8 MiB by default)' }
        : await this.sliced(slicedPath);
    const purgeToken = tokenFor(PURGE_API, note, this.context);
    const purge: PurgeSeen =
      objectPath === undefined
        ? { skipped: 'pass --object /path: the purge is timed on it' }
        : purgeToken === undefined
          ? { skipped: "set PURGE_TOKEN to the deployment's purge secret to time a purge" }
          : await this.purge(objectPath, purgeToken, 'skipped' in object ? undefined : object.second);
    const stats: StatsSeen =
      statsToken === undefined
        ? { skipped: "set STATS_TOKEN to the deployment's stats secret to read the origin's bytes" }
        : 'refused' in (before ?? {})
          ? (before as { refused: string })
          : await this.statsAfter(statsToken, before as StatsSnapshot);
    return { place, health, object, sliced, purge, stats, previous };
  }

  private async health(): Promise<HealthSeen> {
    try {
      const response = await fetch(new URL(HEALTH_PATH, this.base), {
        redirect: 'manual',
        signal: AbortSignal.timeout(this.context.timeoutMs),
      });
      const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
      const text = (name: string): string | undefined => (typeof body[name] === 'string' ? body[name] : undefined);
      const fields: HealthSeen = { status: response.status };
      for (const name of ['shield', 'origin', 'originDetail', 'colo', 'shieldColo', 'version'] as const) {
        const value = text(name);
        if (value !== undefined) fields[name] = value;
      }
      return fields;
    } catch (error) {
      return { status: 0, error: reason(error) };
    }
  }

  /** A GET of `path` (verify-read.ts), kept for the report. */
  private async read(path: string, options: ReadOptions = {}): Promise<HashedRead> {
    this.made++;
    const read = await readObject(new URL(path, this.base), path, {
      ...options,
      timeoutMs: options.timeoutMs ?? this.context.timeoutMs,
    });
    const { windows: _, ...listed } = read;
    this.reads.push(listed);
    return read;
  }

  /** The sliced object read whole (hashing where the range and the seek fall), then the range and the seek. */
  private async sliced(path: string): Promise<Observations['sliced']> {
    const spans = (length: number): { start: number; end: number }[] => {
      const last = Math.max(0, length - 1);
      const mid = Math.floor(length / 2);
      return [
        { start: 0, end: Math.min(RANGE_BYTES - 1, last) },
        { start: Math.min(mid, last), end: Math.min(mid + SEEK_BYTES - 1, last) },
      ];
    };
    const { windows, ...whole } = await this.read(path, { windows: spans, timeoutMs: WHOLE_READ_MS });
    const [range, seek] = spans(whole.bytes);
    const ranged = async (
      span: { start: number; end: number } | undefined,
      expected: string | undefined,
    ): Promise<RangeRead> => {
      const { start, end } = span ?? { start: 0, end: 0 };
      const { windows: _, ...read } = await this.read(path, { range: `bytes=${start}-${end}` });
      return { ...read, start, end, expectedSha256: expected };
    };
    return { path, whole, range: await ranged(range, windows[0]), seek: await ranged(seek, windows[1]) };
  }

  /** Purges `path` and reads it until the edge answers from anything but the old copy, within PURGE_LIMIT_MS. */
  private async purge(path: string, token: string, last: Read | undefined): Promise<PurgeSeen> {
    const deployment: Deployment = { base: this.base, token, local: false };
    try {
      await callApi(apiRequest(PURGE_API, deployment, { urls: [path] }), this.context);
    } catch (error) {
      return { refused: error instanceof Error ? error.message : String(error) };
    }
    const accepted = Date.now();
    const heldBefore = last !== undefined && member(last, 'edge')?.hit === true;
    let polls = 0;
    let said: string | null = null;
    while (Date.now() - accepted <= PURGE_LIMIT_MS) {
      const { windows: _, ...read } = await this.read(path);
      this.reads.pop(); // the polls are counted, not listed
      polls++;
      said = read.cacheStatus;
      if (read.status !== 0 && member(read, 'edge')?.hit !== true) {
        // This read went past the edge's copy: it is the new one, stored for the next location's run.
        this.reads.push(read);
        return { path, heldBefore, tookMs: Date.now() - accepted, polls, limitMs: PURGE_LIMIT_MS, last: said };
      }
      await sleep(PURGE_POLL_MS);
    }
    return { path, heldBefore, tookMs: undefined, polls, limitMs: PURGE_LIMIT_MS, last: said };
  }

  private async stats(token: string): Promise<StatsSnapshot | { refused: string }> {
    const request = apiRequest(STATS_API, { base: this.base, token, local: false });
    try {
      const { egress, tiers, minutes, flushMs } = parseStatsAnswer(
        await callApi(request, this.context),
        request.url.href,
      );
      return { egress, tiers, minutes, ...(flushMs === undefined ? {} : { flushMs }) };
    } catch (error) {
      return { refused: error instanceof Error ? error.message : String(error) };
    }
  }

  /**
   * The stats again, until the run's requests are counted or STATS_LIMIT_MS has passed: the window's sums after, less
   * before. The origin's bytes are the shield's `bytesFromOrigin` (what stats.json's egress counts); the minute buckets
   * do not carry it, so a window that moved past minutes with shield traffic meanwhile makes the figure low, and says so.
   */
  private async statsAfter(token: string, before: StatsSnapshot): Promise<StatsSeen> {
    const waitFrom = Date.now();
    let last = '';
    let sameSince = waitFrom;
    for (;;) {
      const after = await this.stats(token);
      if ('refused' in after) return after;
      const seen = {
        originBytes: after.egress.originBytes - before.egress.originBytes,
        edgeBytes: after.tiers.edge.totals.bytesSent - before.tiers.edge.totals.bytesSent,
        edgeRequests: after.tiers.edge.totals.requests - before.tiers.edge.totals.requests,
        requestsMade: this.made,
        waitedMs: Date.now() - waitFrom,
        windowMoved: droppedShieldRequests(before, after) > 0,
      };
      const sums = `${seen.originBytes} ${seen.edgeBytes} ${seen.edgeRequests}`;
      if (sums !== last) [last, sameSince] = [sums, Date.now()];
      const settled = seen.edgeRequests >= this.made && Date.now() - sameSince >= settleMs(after);
      if (settled || Date.now() - waitFrom >= STATS_LIMIT_MS) return seen;
      await sleep(STATS_POLL_MS);
    }
  }
}

type StatsSnapshot = Pick<StatsJson, 'egress' | 'tiers' | 'minutes' | 'flushMs'>;

/** How long the sums must hold still: a second past the flush interval the edge names, else STATS_SETTLE_MS. */
function settleMs(stats: StatsSnapshot): number {
  const flush = stats.flushMs;
  return typeof flush === 'number' && Number.isFinite(flush) && flush >= 0
    ? Math.min(flush + STATS_POLL_MS, STATS_SETTLE_MS)
    : STATS_SETTLE_MS;
}

/** Shield requests in minutes `before` had and `after` no longer has (the window moved on): their bytes left the sums. */
function droppedShieldRequests(before: StatsSnapshot, after: StatsSnapshot): number {
  const kept = new Set(after.minutes.map(({ minute }) => minute));
  return before.minutes
    .filter(({ minute }) => !kept.has(minute))
    .reduce((sum, { tiers }) => sum + tiers.shield.requests, 0);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

if (isEntry(import.meta.url)) process.exitCode = await runVerify(process.argv.slice(2), processContext());
