// The edge's API as stats and purge call it (docs/purge.md, docs/operating.md). The base URL: --base when given, else
// the local stack's (`npm start`). The token: the environment variable when set, else the local stack's, but only for
// the local stack's own URL: a token made up for this machine is never sent to another host, nor printed.

import { CliFailure, EXIT_USAGE } from './cli-failure.ts';
import type { CliContext } from './command.ts';
import { chooseLocalStack, type LocalStack, PORT_FLAG, parsePort, readLocalStacks, stackAt } from './local-stacks.ts';
import { printable } from './print.ts';

/** One endpoint of the edge: where it lives, which secret opens it, what its 401 and 403 mean (what to set). */
export interface Api {
  path: string;
  method: 'GET' | 'POST';
  /** The environment variable holding the bearer token (wins over the local stack's). */
  tokenName: 'STATS_TOKEN' | 'PURGE_TOKEN';
  /** Its field in a local stack's note. */
  stackField: 'statsToken' | 'purgeToken';
  /** 401: a token was sent, and it is not the deployment's. */
  refused: string;
  /** 403: the deployment has no such secret, so the endpoint is off. */
  disabled: string;
}

/** The flag both commands name the deployment with (`--url` is purge's flag for an object). */
export const DEPLOYMENT_FLAG = 'base';
export const DEPLOYMENT_USAGE = [
  "  --base URL      the edge's base URL (default: the local stack `npm start` runs, .build/local/stacks/)",
  '  --port N        the local stack whose edge is on port N, when several run',
].join('\n');

export interface Deployment {
  /** The edge's base URL (its origin: the endpoints' paths replace any path given). */
  base: URL;
  token: string;
  /** Whether the base URL came from the local stack's note (so an unreachable edge may mean it stopped). */
  local: boolean;
  /** That note's file, named when the edge cannot be reached. */
  note?: string;
}

/** A request as a plain value (what the tests look at before anything is sent). */
export interface ApiRequest {
  api: Api;
  url: URL;
  method: Api['method'];
  headers: Record<string, string>;
  body?: string;
  /** Sent to the local stack its note names (Deployment.local). */
  local: boolean;
  note?: string;
}

const MAX_LINE = 200;

/**
 * Where `api` is called and with which token. `flag` is --base; `port` --port's text: with neither, the only local
 * stack running. A local stack's token goes to that stack's own URL only.
 */
export async function findDeployment(
  api: Api,
  flag: string | undefined,
  context: CliContext,
  port?: string,
): Promise<Deployment> {
  const envToken = headerSafe(context.env[api.tokenName], api.tokenName);
  if (flag !== undefined && port !== undefined)
    throw new CliFailure(`give --${DEPLOYMENT_FLAG} or --${PORT_FLAG}, not both`, EXIT_USAGE);
  if (flag !== undefined) {
    const base = baseUrl(flag, `--${DEPLOYMENT_FLAG}`);
    if (envToken !== undefined) return { base, token: envToken, local: false };
    const stackToken = stackAt(await readLocalStacks(context.stacksDir), base)?.[api.stackField];
    if (stackToken !== undefined) return { base, token: stackToken, local: false };
    throw new CliFailure(`no token for ${base.origin}: set ${api.tokenName} to the deployment's secret`, EXIT_USAGE);
  }
  const stack = chooseLocalStack(await readLocalStacks(context.stacksDir), parsePort(port));
  return {
    base: baseUrl(stack.url, 'the local stack url'),
    token: envToken ?? stackToken(stack, api),
    local: true,
    note: stack.path,
  };
}

/** The request to `api` on `deployment`; `body`, when there is one, sent as JSON. */
export function apiRequest(api: Api, deployment: Deployment, body?: unknown): ApiRequest {
  const json: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
  return {
    api,
    url: new URL(api.path, deployment.base),
    method: api.method,
    headers: { authorization: `Bearer ${deployment.token}`, ...json, accept: 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    local: deployment.local,
    ...(deployment.note === undefined ? {} : { note: deployment.note }),
  };
}

/**
 * The body of `request`'s 2xx answer; else a CliFailure (exit 1) saying what to do: the edge not reached, the token
 * refused (401), the endpoint off (403, in the edge's words), another answer (its status and first line). Redirects
 * are not followed: the token is for the URL given, and a redirect usually means a wrong base URL.
 */
export async function callApi(request: ApiRequest, context: CliContext): Promise<string> {
  let response: Response;
  let text: string;
  try {
    const init: RequestInit = {
      method: request.method,
      headers: request.headers,
      redirect: 'manual',
      signal: AbortSignal.timeout(context.timeoutMs),
    };
    if (request.body !== undefined) init.body = request.body;
    response = await fetch(request.url, init);
    text = await response.text();
  } catch (error) {
    // The note outlives a stack that was killed rather than stopped: say which note it was.
    const stale = request.note === undefined ? '' : ` (from ${request.note}: is \`npm start\` still running?)`;
    throw new CliFailure(
      `cannot reach ${request.url.href}: ${redacted(networkReason(error, context.timeoutMs), request)}${stale}`,
    );
  }
  if (response.ok) return text;
  throw new CliFailure(refusal(request, response, redacted(text, request)));
}

/** The JSON of a 200's body; a CliFailure when it is not JSON at all (a site's page, say). */
export function parseJsonAnswer(text: string, from: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new CliFailure(
      `${from} answered 200 with something that is not JSON (is it a tiercache edge?): ${JSON.stringify(text.slice(0, 80))}`,
    );
  }
}

/** The first non-empty line, without the status tiercache's error bodies start with (`403 purge is …`), bounded. */
function firstLine(text: string, status: number): string {
  const line =
    text
      .split(/\r?\n/)
      .map((part) => part.trim())
      .find((part) => part !== '') ?? '';
  const bare = printable(line.startsWith(`${status} `) ? line.slice(String(status).length + 1) : line);
  return bare.length <= MAX_LINE ? bare : `${bare.slice(0, MAX_LINE)}…`;
}

/**
 * `text` as an edge's base URL: http or https, without user:password in it (fetch refuses those, and they would be
 * printed); a usage failure naming `what` else.
 */
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

function stackToken(stack: LocalStack, api: Api): string {
  const token = stack[api.stackField];
  if (token === undefined)
    throw new CliFailure(
      `the local stack (${stack.path}) has no ${api.stackField}: restart it with \`npm start\`, or set ${api.tokenName}`,
      EXIT_USAGE,
    );
  return token;
}

/** The variable's token, trimmed (`$(cat file)` keeps a newline); one no header can carry is refused here. */
export function headerSafe(value: string | undefined, name: string): string | undefined {
  const token = value?.trim();
  if (token === undefined || token === '') return undefined;
  if (!/^[\x21-\x7e]+$/.test(token))
    throw new CliFailure(
      `${name} holds characters an Authorization header cannot carry (spaces, control or non-ASCII characters): set it to the secret alone`,
      EXIT_USAGE,
    );
  return token;
}

function refusal(request: ApiRequest, response: Response, text: string): string {
  const line = firstLine(text, response.status);
  if (response.status === 401) return request.api.refused;
  if (response.status === 403) {
    const says = isPlainText(response) && line !== '' ? `\n  ${request.url.origin} says: ${line}` : '';
    return `${request.api.disabled}${says}`;
  }
  const status = `${response.status}${response.statusText === '' ? '' : ` ${response.statusText}`}`;
  const location = response.headers.get('location');
  const redirect =
    location !== null && response.status >= 300 && response.status < 400
      ? ` (to ${location}: pass that base URL instead)`
      : '';
  return `${request.url.href} answered ${status}${redirect}${line === '' ? '' : `: ${line}`}`;
}

/** Why fetch failed, in the words of the cause underneath "fetch failed" (ECONNREFUSED, ENOTFOUND …). */
function networkReason(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error && cause.message !== '') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

function isPlainText(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/plain');
}

/** The answer with the request's own token blanked out, should a server ever echo it: no token is printed. */
function redacted(text: string, request: ApiRequest): string {
  const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
  return token === undefined || token === '' ? text : text.replaceAll(token, '[token]');
}
