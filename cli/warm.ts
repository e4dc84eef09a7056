// `npm run warm` (docs/warming.md): what to warm, on which deployment, POSTed as the JSON worker/warm.ts parses, call
// after call: a list of URLs in batches of what one call warms, a playlist as one request continued from where each
// call says the next starts; a line of progress after each call, and what failed at the end.

import { WARM_PATH } from '../shared/request/reserved-paths.ts';
import { formatBytes, formatCount } from '../shared/stats/format.ts';
import { WARM_URLS_PER_CALL } from '../shared/warm/warm-pacing.ts';
import type { TierTally, WarmProblem, WarmReport } from '../shared/warm/warm-report.ts';
import type { WarmTier } from '../shared/warm/warm-request.ts';
import { folderOf } from '../shared/warm/warm-scope.ts';
import { CliFailure, EXIT_FAILED, failureExit, usageError } from './cli-failure.ts';
import { type CliContext, isEntry, processContext } from './command.ts';
import {
  type Api,
  type ApiRequest,
  apiRequest,
  callApi,
  DEPLOYMENT_FLAG,
  DEPLOYMENT_USAGE,
  type Deployment,
  findDeployment,
  parseJsonAnswer,
} from './edge-api.ts';
import { parseFlags, single } from './flags.ts';
import { fromFile, readInput } from './from-file.ts';
import { PORT_FLAG } from './local-stacks.ts';
import { printable } from './print.ts';

export const WARM_USAGE = `usage: npm run warm -- [--url URL]... [--from FILE|-] [--playlist URL]... [--tier shield|both] [--base https://cdn.example]

Reads objects through the tiers so that their first clients are answered from the cache (POST <base>/__tiercache/warm).
  --url URL       one object: a path (/a.mp4) or an absolute URL (https://cdn.example/a.mp4); repeatable
  --from FILE     objects one per line from FILE, or from standard input with -: a path or URL (# comments)
  --playlist URL  an HLS (.m3u8) or DASH (.mpd) playlist: it and what it names in its folder, a master's renditions
                  too (never the bucket listed); repeatable
  --tier TIER     shield (default): the shield, which every location's edge reads from; both: the shield and the
                  edge of the one location this machine reaches (no other location can be warmed from here)
${DEPLOYMENT_USAGE}
  --help          this text
Token: PURGE_TOKEN, else the local stack's (for the local stack's URL only).
Exit: 0 everything warmed or already cached; 1 the edge could not be reached or refused, or an object failed (listed);
2 usage, nothing to warm, no local stack or no token.`;

/** Warm takes purge's token: both are the operator's actions on the cache, and a deployment has one such secret. */
export const WARM_API: Api = {
  path: WARM_PATH,
  method: 'POST',
  tokenName: 'PURGE_TOKEN',
  stackField: 'purgeToken',
  refused: "the token was refused: set PURGE_TOKEN to the deployment's secret (warm takes purge's token)",
  disabled: "warm is disabled: set the PURGE_TOKEN secret (warm takes purge's token)",
};

/** Problems printed at the end; the counts hold them all. */
const PRINTED_PROBLEMS = 20;

export interface WarmArgs {
  urls: string[];
  playlists: string[];
  /** A file of URLs, one per line; `-` = standard input. */
  from: string | undefined;
  tier: WarmTier;
  base: string | undefined;
  port: string | undefined;
  help: boolean;
}

/** One request the edge is asked in calls: its body, less `from`. */
export type WarmBody = { urls: string[] } | { prefixes: [{ prefix: string; playlist: string }] };

/** What a run's calls added up to. */
interface Totals {
  done: number;
  skipped: number;
  shield: TierTally;
  edge: TierTally | undefined;
  problems: WarmProblem[];
}

/**
 * The command, as a function of its arguments and context, answering the exit code. `input`: a file's text, or
 * standard input's for `-` (tests give their own).
 */
export async function runWarm(
  argv: readonly string[],
  context: CliContext,
  input: (path: string) => Promise<string> = readInput,
): Promise<number> {
  try {
    const args = parseWarmArgs(argv);
    if (args.help) {
      context.out(WARM_USAGE);
      return 0;
    }
    const urls =
      args.from === undefined
        ? args.urls
        : [...args.urls, ...(await fromFile(args.from, input, WARM_USAGE, parseUrlLines))];
    const deployment = await findDeployment(WARM_API, args.base, context, args.port);
    const totals: Totals = { done: 0, skipped: 0, shield: tally(), edge: undefined, problems: [] };
    for (const body of warmBodies(urls, args.playlists)) await warmAll(deployment, body, args.tier, totals, context);
    const failed = totals.shield.failed + (totals.edge?.failed ?? 0);
    context.out(renderTotals(totals, failed));
    return failed > 0 ? EXIT_FAILED : 0;
  } catch (error) {
    return failureExit(error, context.err);
  }
}

/** Each flag repeatable and kept in order; which values the edge accepts is the edge's to say (its 400 is printed). */
export function parseWarmArgs(argv: readonly string[]): WarmArgs {
  const flags = parseFlags(
    argv,
    {
      url: { type: 'string' },
      from: { type: 'string' },
      playlist: { type: 'string' },
      tier: { type: 'string' },
      [DEPLOYMENT_FLAG]: { type: 'string' },
      [PORT_FLAG]: { type: 'string' },
      help: { type: 'boolean' },
    },
    WARM_USAGE,
  );
  const tier = single(flags, 'tier', WARM_USAGE) ?? 'shield';
  if (tier !== 'shield' && tier !== 'both')
    throw usageError(`--tier is shield or both, got ${JSON.stringify(tier)}`, WARM_USAGE);
  const args: WarmArgs = {
    urls: flags.strings.url ?? [],
    playlists: flags.strings.playlist ?? [],
    from: single(flags, 'from', WARM_USAGE),
    tier,
    base: single(flags, DEPLOYMENT_FLAG, WARM_USAGE),
    port: single(flags, PORT_FLAG, WARM_USAGE),
    help: flags.booleans.help === true,
  };
  if (!args.help && args.from === undefined && args.urls.length === 0 && args.playlists.length === 0)
    throw usageError('nothing to warm: name at least one --url, --from or --playlist', WARM_USAGE);
  return args;
}

/**
 * The requests a run makes: the URLs in batches of what one call warms (a call of more would only say where the next
 * starts), then each playlist, its prefix its folder.
 */
export function warmBodies(urls: readonly string[], playlists: readonly string[]): WarmBody[] {
  const bodies: WarmBody[] = [];
  for (let at = 0; at < urls.length; at += WARM_URLS_PER_CALL)
    bodies.push({ urls: urls.slice(at, at + WARM_URLS_PER_CALL) });
  for (const playlist of playlists) bodies.push({ prefixes: [{ prefix: folderOf(pathOf(playlist)), playlist }] });
  return bodies;
}

/** The URLs `--from` names, one a line: a usage error (exit 2) for a file that cannot be read, a bad line, or none. */
export function parseUrlLines(text: string): string[] | { error: string } {
  const urls: string[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (!line.startsWith('/') && !/^https?:\/\//i.test(line))
      return { error: `line ${i + 1}: expected a path or an http(s) URL, got ${JSON.stringify(line.slice(0, 80))}` };
    urls.push(line);
  }
  return urls.length === 0 ? { error: 'no URL in it' } : urls;
}

/** One request, call after call from where each says the next starts; a line printed after each. */
async function warmAll(
  deployment: Deployment,
  body: WarmBody,
  tier: WarmTier,
  totals: Totals,
  context: CliContext,
): Promise<void> {
  for (let from: number | null = 0; from !== null; ) {
    const request = warmRequest(deployment, body, tier, from);
    const report = parseWarmReport(await callApi(request, context), request.url.href);
    // An edge that answers the same `from` again would keep this loop going for ever: it is a failure instead.
    if (report.next !== null && report.next <= from)
      throw new CliFailure(`${request.url.href} answered a warm that moved no further than ${from}`);
    add(totals, report);
    context.out(`${deployment.base.origin}: ${renderProgress(report, totals)}`);
    from = report.next;
  }
}

/** The POST whose body shared/warm/warm-request.ts parseWarmBody reads. */
export function warmRequest(deployment: Deployment, body: WarmBody, tier: WarmTier, from: number): ApiRequest {
  return apiRequest(WARM_API, deployment, {
    ...body,
    ...(tier === 'shield' ? {} : { tier }),
    ...(from > 0 ? { from } : {}),
  });
}

export function parseWarmReport(text: string, from: string): WarmReport {
  const report = parseJsonAnswer(text, from) as Partial<WarmReport> | null;
  const counted = (value: unknown): boolean =>
    typeof value === 'object' && value !== null && typeof (value as TierTally).warmed === 'number';
  if (
    typeof report?.total !== 'number' ||
    typeof report.done !== 'number' ||
    !(report.next === null || typeof report.next === 'number') ||
    !counted(report.shield) ||
    !Array.isArray(report.problems)
  )
    throw new CliFailure(
      `${from} answered JSON that is not a warm's report ({total, done, next, shield, problems}): ${JSON.stringify(text.slice(0, 120))}`,
    );
  return report as WarmReport;
}

/** A call's line: how far the list is, and what the run has warmed so far. */
function renderProgress(report: WarmReport, totals: Totals): string {
  const reached = report.next ?? report.total;
  const where = report.location === undefined ? '' : ` at ${printable(report.location)}`;
  const edge = totals.edge === undefined ? '' : `; edge${where}: ${tallyText(totals.edge)}`;
  return `${formatCount(reached)}/${formatCount(report.total)} (shield: ${tallyText(totals.shield)}${edge}; ${formatCount(totals.skipped)} skipped)`;
}

/** The run's end: its totals, and what failed or was skipped, a line each. */
function renderTotals(totals: Totals, failed: number): string {
  const lines = [`${failed === 0 ? 'warmed' : 'warmed, with failures'}: ${formatCount(totals.done)} objects`];
  for (const problem of totals.problems.slice(0, PRINTED_PROBLEMS)) {
    const at = problem.tier === undefined ? 'skipped' : `failed at the ${problem.tier}`;
    lines.push(`  ${at}: ${printable(problem.url)}: ${printable(problem.reason)}`);
  }
  if (totals.problems.length > PRINTED_PROBLEMS)
    lines.push(`  … and ${totals.problems.length - PRINTED_PROBLEMS} more`);
  return lines.join('\n');
}

function tallyText(t: TierTally): string {
  return `${formatCount(t.warmed)} warmed, ${formatCount(t.cached)} cached, ${formatCount(t.failed)} failed, ${formatBytes(t.bytes)} (${formatBytes(t.originBytes)} from the origin)`;
}

function add(totals: Totals, report: WarmReport): void {
  totals.done += report.done;
  totals.skipped += report.skipped;
  addTally(totals.shield, report.shield);
  if (report.edge !== undefined) {
    totals.edge ??= tally();
    addTally(totals.edge, report.edge);
  }
  totals.problems.push(...report.problems);
}

function addTally(into: TierTally, from: TierTally): void {
  into.warmed += from.warmed;
  into.cached += from.cached;
  into.failed += from.failed;
  into.bytes += from.bytes;
  into.originBytes += from.originBytes;
}

function tally(): TierTally {
  return { warmed: 0, cached: 0, failed: 0, bytes: 0, originBytes: 0 };
}

/** A URL's or path's path. */
function pathOf(value: string): string {
  return URL.canParse(value) ? new URL(value).pathname : (value.split(/[?#]/, 1)[0] ?? value);
}

if (isEntry(import.meta.url)) process.exitCode = await runWarm(process.argv.slice(2), processContext());
