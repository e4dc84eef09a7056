// `npm run purge` (docs/purge.md): what to purge, on which deployment, POSTed as the JSON worker/purge.ts parses;
// the edge's answer printed as what it accepted (soft or not) and when that reaches every location.

import type { PurgeRequest } from '../shared/purge/purge-rules.ts';
import { PURGE_PATH } from '../shared/request/reserved-paths.ts';
import { formatTime } from '../shared/stats/format.ts';
import { CliFailure, failureExit, usageError } from './cli-failure.ts';
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
import { joinTargets, type PurgeTargets, parseTargetLines, purgeBatches, targetCount } from './purge-targets.ts';

export type { PurgeTargets };

export const PURGE_USAGE = `usage: npm run purge -- [--url URL]... [--prefix PATH]... [--tag TAG]... [--everything] [--from FILE|-] [--soft] [--base https://cdn.example]

Purges what the edge and the shield hold (POST <base>/__tiercache/purge); name at least one target.
  --url URL       one object: a path (/a.png) or an absolute URL (https://cdn.example/a.png); repeatable
  --prefix PATH   every path starting with PATH (starting with /, like /img/); repeatable
  --tag TAG       every response whose Cache-Tag holds TAG; repeatable
  --everything    everything stored so far
  --from FILE     targets one per line from FILE, or from standard input with -: a path or URL,
                  prefix:/img/, tag:brand or everything (# comments); sent in requests the edge takes
  --soft          soft purge: what it names becomes stale, revalidated with the origin (a 304 keeps the bytes)
${DEPLOYMENT_USAGE}
  --help          this text
Token: PURGE_TOKEN, else the local stack's (for the local stack's URL only).
Exit: 0 accepted; 1 the edge could not be reached or refused; 2 usage, no target, no local stack or no token.`;

export const PURGE_API: Api = {
  path: PURGE_PATH,
  method: 'POST',
  tokenName: 'PURGE_TOKEN',
  stackField: 'purgeToken',
  refused: "the token was refused: set PURGE_TOKEN to the deployment's secret",
  disabled: 'purge is disabled: set the PURGE_TOKEN secret',
};

export interface PurgeArgs {
  targets: PurgeTargets;
  /** A file of targets, one per line (purge-targets.ts); `-` = standard input. */
  from: string | undefined;
  base: string | undefined;
  /** --port: the local stack on that port. */
  port: string | undefined;
  help: boolean;
}

/**
 * The edge's 200 (worker/purge.ts): what it accepted, when (`at`, ms epoch), and the bound on reaching every
 * location (`reachesEveryLocationWithin`: "65s", KV's propagation plus the isolates' refresh, or the platform's
 * "150ms" when it took the purge and nothing it cannot reach holds a copy: shared/purge/purge-bounds.ts), with what
 * kind of figure it is (`bound`: "typical", as the platform states the times it rests on) and what it rests on
 * (`boundBasis`); both absent from an edge older than them.
 */
export interface PurgeAnswer extends Bound {
  /** `soft` is absent from the answer of an edge older than soft purge. */
  purged: Omit<PurgeRequest, 'soft'> & { soft?: boolean };
  at: number;
  boundBasis?: string;
  /**
   * Which paths the purge took (worker/platform-purge.ts), each with its bound and the layers it reaches (`reaches`,
   * absent from an edge older than it); absent from an edge older than them.
   */
  paths?: {
    platform: (Bound & { sent: true; reaches?: string[] }) | { sent: false; reason: string };
    records: Bound & { reaches?: string[] };
  };
}

/** A bound as the edge states it: the time, and whether it is a typical figure (absent: an older edge's). */
interface Bound {
  reachesEveryLocationWithin: string;
  bound?: string;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * The command, as a function of its arguments and context, answering the exit code. `input`: a file's text, or
 * standard input's for `-` (tests give their own).
 */
export async function runPurge(
  argv: readonly string[],
  context: CliContext,
  input: (path: string) => Promise<string> = readInput,
): Promise<number> {
  try {
    const args = parsePurgeArgs(argv);
    if (args.help) {
      context.out(PURGE_USAGE);
      return 0;
    }
    const targets =
      args.from === undefined ? args.targets : joinTargets(args.targets, await targetsFrom(args.from, input));
    const deployment = await findDeployment(PURGE_API, args.base, context, args.port);
    // In requests the edge takes, in order; one refused stops the rest (what was accepted is printed).
    for (const batch of purgeBatches(targets)) {
      const request = purgeRequest(deployment, batch);
      const answer = parsePurgeAnswer(await callApi(request, context), request.url.href);
      context.out(`${deployment.base.origin}: ${renderPurgeAnswer(answer)}`);
    }
    return 0;
  } catch (error) {
    return failureExit(error, context.err);
  }
}

/**
 * Each flag repeatable and kept in order. Which values the edge accepts (a prefix starts with "/", at most 30
 * values …) is the edge's to say (shared/purge/purge-rules.ts): its 400 names what it expected; the CLI prints it.
 */
export function parsePurgeArgs(argv: readonly string[]): PurgeArgs {
  const flags = parseFlags(
    argv,
    {
      url: { type: 'string' },
      prefix: { type: 'string' },
      tag: { type: 'string' },
      everything: { type: 'boolean' },
      from: { type: 'string' },
      soft: { type: 'boolean' },
      [DEPLOYMENT_FLAG]: { type: 'string' },
      [PORT_FLAG]: { type: 'string' },
      help: { type: 'boolean' },
    },
    PURGE_USAGE,
  );
  const targets: PurgeTargets = {
    urls: flags.strings.url ?? [],
    prefixes: flags.strings.prefix ?? [],
    tags: flags.strings.tag ?? [],
    everything: flags.booleans.everything === true,
    soft: flags.booleans.soft === true,
  };
  const help = flags.booleans.help === true;
  const from = single(flags, 'from', PURGE_USAGE);
  if (!help && from === undefined && targetCount(targets) === 0 && !targets.everything)
    throw usageError('nothing to purge: name at least one --url, --prefix, --tag, --everything or --from', PURGE_USAGE);
  return {
    targets,
    from,
    base: single(flags, DEPLOYMENT_FLAG, PURGE_USAGE),
    port: single(flags, PORT_FLAG, PURGE_USAGE),
    help,
  };
}

/** The targets `--from` names: a usage error (exit 2) for a file that cannot be read, a bad line, or none. */
async function targetsFrom(path: string, input: (path: string) => Promise<string>): Promise<PurgeTargets> {
  const parsed = await fromFile(path, input, PURGE_USAGE, parseTargetLines);
  if (targetCount(parsed) === 0 && !parsed.everything) throw usageError(`--from ${path}: no target in it`, PURGE_USAGE);
  return parsed;
}

/** The POST whose body shared/purge/purge-rules.ts parsePurgeBody reads. */
export function purgeRequest(deployment: Deployment, targets: PurgeTargets): ApiRequest {
  // Only the fields that name something: the edge reads an absent list as empty, `everything` as false.
  const body: Partial<PurgeTargets> = {};
  if (targets.urls.length > 0) body.urls = targets.urls;
  if (targets.prefixes.length > 0) body.prefixes = targets.prefixes;
  if (targets.tags.length > 0) body.tags = targets.tags;
  if (targets.everything) body.everything = true;
  if (targets.soft) body.soft = true;
  return apiRequest(PURGE_API, deployment, body);
}

export function parsePurgeAnswer(text: string, from: string): PurgeAnswer {
  const answer = parseJsonAnswer(text, from) as Partial<PurgeAnswer> | null;
  const purged = answer?.purged;
  const lists =
    purged !== undefined && (['urls', 'prefixes', 'tags'] as const).every((name) => Array.isArray(purged[name]));
  if (!lists || typeof answer?.at !== 'number' || typeof answer.reachesEveryLocationWithin !== 'string') {
    throw new CliFailure(
      `${from} answered JSON that is not a purge's answer ({purged, at, reachesEveryLocationWithin}): ${JSON.stringify(text.slice(0, 120))}`,
    );
  }
  return answer as PurgeAnswer;
}

/** The answer as the moment the purge is done everywhere, and only the lists that name something. */
export function renderPurgeAnswer(answer: PurgeAnswer): string {
  const { purged, at, reachesEveryLocationWithin: bound } = answer;
  const lines = [`purge accepted at ${formatTime(at)}`];
  const named: [string, readonly string[]][] = [
    ['urls', purged.urls],
    ['prefixes', purged.prefixes],
    ['tags', purged.tags],
  ];
  for (const [name, values] of named) {
    if (values.length > 0) lines.push(`  ${`${name}:`.padEnd(12)}${values.map(printable).join(', ')}`);
  }
  if (purged.everything) lines.push(`  ${'everything:'.padEnd(12)}yes`);
  if (purged.soft === true) lines.push(`  ${'soft:'.padEnd(12)}yes (stale at once, revalidated with the origin)`);
  const within = durationMs(bound);
  // A typical figure (as KV's "up to 60 seconds or more" and Instant Purge's P50 are) is printed as one, not a promise.
  const typical = answer.bound === 'typical';
  lines.push(
    within === undefined
      ? `reaches every location ${withinText(answer)}`
      : typical
        ? `reaches every location by about ${formatTime(at + within)} (${withinText(answer)}; no bound the platform guarantees)`
        : `reaches every location by ${formatTime(at + within)} (${withinText(answer)})`,
  );
  const paths = answer.paths;
  if (paths !== undefined) {
    const records = `the purge records (KV): ${withinText(paths.records)}${reached(paths.records.reaches)}`;
    if (!paths.platform.sent)
      lines.push(`  through ${records}; Cloudflare's purge: ${printable(paths.platform.reason)}`);
    else {
      const platform = paths.platform;
      // The records are the backstop only when the platform's bound is the purge's: else they reach what it cannot.
      const role = bound === platform.reachesEveryLocationWithin ? ', the backstop' : '';
      lines.push(
        `  through Cloudflare's purge: ${withinText(platform)}${reached(platform.reaches)}; ${records}${role}`,
      );
    }
  }
  if (typical && answer.boundBasis !== undefined)
    lines.push(`  as the platform states it: ${printable(answer.boundBasis)}`);
  return lines.join('\n');
}

/** `within 65s`, or `typically within 65s` for a bound the edge states as typical. */
function withinText(bound: Bound): string {
  return `${bound.bound === 'typical' ? 'typically ' : ''}within ${printable(bound.reachesEveryLocationWithin)}`;
}

/** The layers a path reaches, as a parenthesis; nothing for an edge older than the field. */
function reached(layers: readonly string[] | undefined): string {
  return layers === undefined || layers.length === 0 ? '' : ` (${layers.map(printable).join(', ')})`;
}

/** A duration as the edge writes it (`65s`, `500ms`, `2m`) in ms; undefined if it is none of those. */
export function durationMs(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text.trim());
  const unit = match?.[2] === undefined ? undefined : UNIT_MS[match[2]];
  return match?.[1] === undefined || unit === undefined ? undefined : Number(match[1]) * unit;
}

if (isEntry(import.meta.url)) process.exitCode = await runPurge(process.argv.slice(2), processContext());
