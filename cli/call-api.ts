// Sends one request to the edge and turns every way it can go wrong into a sentence that says
// what to do: the edge not reached, the token refused (401), the endpoint off (403, with the
// edge's own words), or any other answer (its status and first line). Redirects are not
// followed: the token is for the URL given, and a redirect usually means a wrong base URL.

import type { ApiRequest } from './api-request.ts';
import type { CliContext } from './cli-context.ts';
import { CliFailure } from './cli-failure.ts';
import { printable } from './printable.ts';

const MAX_LINE = 200;

/** The body of a 2xx answer, as text; anything else throws a CliFailure (exit 1). */
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
    const stale = request.local ? ` (from ${context.stackPath}: is \`npm start\` still running?)` : '';
    throw new CliFailure(
      `cannot reach ${request.url.href}: ${redacted(networkReason(error, context.timeoutMs), request)}${stale}`,
    );
  }
  if (response.ok) return text;
  throw new CliFailure(refusal(request, response, redacted(text, request)));
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

/** The first non-empty line, without the status tiercache's own error bodies start with (`403 purge is …`), bounded. */
export function firstLine(text: string, status: number): string {
  const line =
    text
      .split(/\r?\n/)
      .map((part) => part.trim())
      .find((part) => part !== '') ?? '';
  const bare = printable(line.startsWith(`${status} `) ? line.slice(String(status).length + 1) : line);
  return bare.length <= MAX_LINE ? bare : `${bare.slice(0, MAX_LINE)}…`;
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
