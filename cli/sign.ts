// `npm run sign` (docs/private-content.md): a signed URL (and with --cookie the tc_token cookie) for a path or a folder
// under SIGNED_PREFIXES, signed here with SIGNING_KEYS by the same function a site's backend calls; no request is made.

import { signedCookie, signedUrl, signToken } from '../shared/admission/signer.ts';
import { CliFailure, EXIT_USAGE, failureExit, usageError } from './cli-failure.ts';
import { type CliContext, isEntry, processContext } from './command.ts';
import { DEPLOYMENT_FLAG } from './edge-api.ts';
import { parseFlags, single } from './flags.ts';
import { chooseLocalStack, type LocalStack, PORT_FLAG, parsePort, readLocalStacks, stackAt } from './local-stacks.ts';

export const SIGN_USAGE = `usage: npm run sign -- --path PATH [--prefix] --expires WHEN [--base https://cdn.example]
                       [--kid KID] [--ip ADDRESS] [--country CC] [--not-before WHEN] [--cookie] [--port N]

Prints a URL the edge admits for PATH (under SIGNED_PREFIXES) until WHEN, as the last line.
  --path PATH        the path granted, starting with / (/video/ep1.mp4)
  --prefix           grant every path under PATH instead (PATH ends with /: an HLS folder)
  --expires WHEN     90s, 10m, 2h, 1d from now, or an absolute time in unix seconds
  --not-before WHEN  refused before then (same forms); default: valid at once
  --kid KID          the key id in SIGNING_KEYS to sign with; default: the first
  --ip ADDRESS       only for this client address (CF-Connecting-IP)
  --country CC       only for clients in this ISO 3166-1 country (two letters)
  --cookie           print the Set-Cookie value too (a player sends it with every segment)
  --base URL         the edge's base URL; default: the local stack's
  --port N           the local stack whose edge is on port N, when several run
  --help             this text
Keys: SIGNING_KEYS (kid=secret,…), else the local stack's (for the local stack's URL only).
Exit: 0 printed; 2 usage, no local stack or no key.`;

export interface SignArgs {
  path: string;
  prefix: boolean;
  expires: string;
  notBefore: string | undefined;
  kid: string | undefined;
  ip: string | undefined;
  country: string | undefined;
  cookie: boolean;
  base: string | undefined;
  port: string | undefined;
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** The command, as a function of its arguments, context and clock (unix seconds), answering the exit code. */
export async function runSign(
  argv: readonly string[],
  context: CliContext,
  now = Math.floor(Date.now() / 1000),
): Promise<number> {
  try {
    const args = parseSignArgs(argv);
    if (args === 'help') {
      context.out(SIGN_USAGE);
      return 0;
    }
    const { base, keys } = await signingContext(args.base, args.port, context);
    const [keyId, secret] = chosenKey(keys, args.kid);
    const options = {
      keyId,
      secret,
      path: args.path,
      prefix: args.prefix,
      expires: when(args.expires, now, '--expires'),
      ...(args.notBefore === undefined ? {} : { notBefore: when(args.notBefore, now, '--not-before') }),
      ...(args.ip === undefined ? {} : { ip: args.ip }),
      ...(args.country === undefined ? {} : { country: args.country.toUpperCase() }),
    };
    if (options.expires <= now) throw usageError('--expires is already past', SIGN_USAGE);
    const grant = args.prefix ? `every path under ${args.path}` : args.path;
    context.out(`key ${keyId}; ${grant}; until ${new Date(options.expires * 1000).toISOString()}`);
    if (args.cookie) {
      context.out(`Set-Cookie: ${await signedCookie(options, now)}`);
      context.out(`Cookie: tc_token=${await signToken(options)}`);
    }
    context.out(await signedUrl(base, options));
    return 0;
  } catch (error) {
    return failureExit(error, context.err);
  }
}

export function parseSignArgs(argv: readonly string[]): SignArgs | 'help' {
  const strings = ['path', 'expires', 'not-before', 'kid', 'ip', 'country', DEPLOYMENT_FLAG, PORT_FLAG] as const;
  const flags = parseFlags(
    argv,
    {
      ...Object.fromEntries(strings.map((name) => [name, { type: 'string' as const }])),
      prefix: { type: 'boolean' },
      cookie: { type: 'boolean' },
      help: { type: 'boolean' },
    },
    SIGN_USAGE,
  );
  if (flags.booleans.help === true) return 'help';
  const value = (name: (typeof strings)[number]): string | undefined => single(flags, name, SIGN_USAGE);
  const path = value('path');
  const expires = value('expires');
  if (path === undefined || !path.startsWith('/'))
    throw usageError('--path must be a path starting with /', SIGN_USAGE);
  if (expires === undefined) throw usageError('--expires is required (90s, 10m, 2h, 1d or unix seconds)', SIGN_USAGE);
  const prefix = flags.booleans.prefix === true;
  if (prefix && !path.endsWith('/')) throw usageError('with --prefix, --path must end with / (a folder)', SIGN_USAGE);
  return {
    path,
    prefix,
    expires,
    notBefore: value('not-before'),
    kid: value('kid'),
    ip: value('ip'),
    country: value('country'),
    cookie: flags.booleans.cookie === true,
    base: value(DEPLOYMENT_FLAG),
    port: value(PORT_FLAG),
  };
}

/** `90s`, `10m`, `2h`, `1d` from `now`, or absolute unix seconds. */
export function when(text: string, now: number, flag: string): number {
  const relative = /^(\d{1,9})([smhd])$/.exec(text);
  if (relative) return now + Number(relative[1]) * (UNIT_SECONDS[relative[2] ?? 's'] ?? 1);
  if (/^\d{1,12}$/.test(text)) return Number(text);
  throw usageError(`${flag} must be like 90s, 10m, 2h, 1d or unix seconds, got ${JSON.stringify(text)}`, SIGN_USAGE);
}

/**
 * Where the URL points and the keys it is signed with: SIGNING_KEYS, else the local stack's note (--base's when it
 * names a local stack, --port's, or the only one running).
 */
async function signingContext(
  flag: string | undefined,
  port: string | undefined,
  context: CliContext,
): Promise<{ base: string; keys: [string, string][] }> {
  if (flag !== undefined && port !== undefined)
    throw new CliFailure(`give --${DEPLOYMENT_FLAG} or --${PORT_FLAG}, not both`, EXIT_USAGE);
  if (flag !== undefined && !URL.canParse(flag))
    throw new CliFailure(
      `expected --${DEPLOYMENT_FLAG} to be the edge's base URL, like https://cdn.example; got ${JSON.stringify(flag)}`,
      EXIT_USAGE,
    );
  const fromEnv = context.env.SIGNING_KEYS;
  let stack: LocalStack | undefined;
  if (flag === undefined) stack = chooseLocalStack(await readLocalStacks(context.stacksDir), parsePort(port));
  else if (fromEnv === undefined) stack = stackAt(await readLocalStacks(context.stacksDir), new URL(flag));
  const base = flag ?? stack?.url ?? '';
  const raw = fromEnv ?? stack?.signingKeys;
  if (raw === undefined)
    throw new CliFailure('no signing key: set SIGNING_KEYS (kid=secret,…) to the deployment’s secret', EXIT_USAGE);
  const keys = raw
    .split(',')
    .map((pair) => pair.trim())
    .filter((pair) => pair.includes('='))
    .map((pair): [string, string] => [
      pair.slice(0, pair.indexOf('=')).trim(),
      pair.slice(pair.indexOf('=') + 1).trim(),
    ]);
  if (keys.length === 0) throw new CliFailure('SIGNING_KEYS holds no kid=secret pair', EXIT_USAGE);
  return { base, keys };
}

function chosenKey(keys: [string, string][], kid: string | undefined): [string, string] {
  const found = kid === undefined ? keys[0] : keys.find(([id]) => id === kid);
  if (found === undefined)
    throw new CliFailure(
      `no key ${JSON.stringify(kid)} in SIGNING_KEYS (it has ${keys.map(([id]) => id).join(', ')})`,
      EXIT_USAGE,
    );
  return found;
}

if (isEntry(import.meta.url)) process.exitCode = await runSign(process.argv.slice(2), processContext());
