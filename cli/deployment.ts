// Which deployment a command talks to, and with which token. The base URL: --base when given
// (both commands name the deployment with it, documented by the same usage line), else the
// local stack's (`npm start`). The token: the environment variable when set, else the
// local stack's, but only for the local stack's own URL: a token made up for this machine is
// never sent to another host. Nothing here prints a token.

import type { Api } from './api.ts';
import type { CliContext } from './cli-context.ts';
import { CliFailure, EXIT_USAGE } from './cli-failure.ts';
import { type LocalStack, readLocalStack } from './local-stack.ts';

/** The flag both commands name the deployment with (`--url` is purge's flag for an object). */
export const DEPLOYMENT_FLAG = 'base';
export const DEPLOYMENT_USAGE =
  "  --base URL      the edge's base URL (default: the local stack, .build/local/stack.json from `npm start`)";

export interface Deployment {
  /** The edge's base URL (its origin: the endpoints' paths replace any path given). */
  base: URL;
  token: string;
  /** Whether the base URL came from the local stack's note (so an unreachable edge may mean it stopped). */
  local: boolean;
}

export async function findDeployment(api: Api, flag: string | undefined, context: CliContext): Promise<Deployment> {
  const envToken = headerSafe(context.env[api.tokenName], api.tokenName);
  if (flag !== undefined) {
    const base = baseUrl(flag, `--${DEPLOYMENT_FLAG}`);
    if (envToken !== undefined) return { base, token: envToken, local: false };
    const stack = await readLocalStack(context.stackPath);
    const stackToken =
      stack !== undefined && new URL(stack.url).origin === base.origin ? stack[api.stackField] : undefined;
    if (stackToken !== undefined) return { base, token: stackToken, local: false };
    throw new CliFailure(`no token for ${base.origin}: set ${api.tokenName} to the deployment's secret`, EXIT_USAGE);
  }
  const stack = await readLocalStack(context.stackPath);
  if (stack === undefined)
    throw new CliFailure(`no local stack: start it with \`npm start\`, or pass --${DEPLOYMENT_FLAG}`, EXIT_USAGE);
  return {
    base: baseUrl(stack.url, 'the local stack url'),
    token: envToken ?? stackToken(stack, api, context.stackPath),
    local: true,
  };
}

function stackToken(stack: LocalStack, api: Api, path: string): string {
  const token = stack[api.stackField];
  if (token === undefined)
    throw new CliFailure(
      `the local stack (${path}) has no ${api.stackField}: restart it with \`npm start\`, or set ${api.tokenName}`,
      EXIT_USAGE,
    );
  return token;
}

/** An http(s) URL without credentials in it (fetch refuses those, and they would be printed). */
export function baseUrl(text: string, what: string): URL {
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new CliFailure(
      `expected ${what} to be the edge's base URL, like https://cdn.example; got ${JSON.stringify(text)}`,
      EXIT_USAGE,
    );
  }
  if (url.username !== '' || url.password !== '')
    throw new CliFailure(
      `expected ${what} without user:password in it; the token comes from the environment`,
      EXIT_USAGE,
    );
  return url;
}

/**
 * The variable's token, trimmed (a token read with `$(cat file)` keeps its newline), or undefined
 * when unset. One that a header cannot carry is refused here: fetch's own error would quote it.
 */
function headerSafe(value: string | undefined, name: string): string | undefined {
  const token = value?.trim();
  if (token === undefined || token === '') return undefined;
  if (!/^[\x21-\x7e]+$/.test(token))
    throw new CliFailure(
      `${name} holds characters an Authorization header cannot carry (spaces, control or non-ASCII characters): set it to the secret alone`,
      EXIT_USAGE,
    );
  return token;
}
