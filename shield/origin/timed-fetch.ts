// One fetch to the origin, bounded: unreachable → 502 (a GET or HEAD asked twice), no response headers within the
// timeout → 504 (a long body's silences are bounded where it is read); bodies arrive as sent, never decoded.

import { ClientGone, Disconnected, HttpError } from '../../shared/http/errors.ts';
import { resendable, withResend } from '../../shared/http/resend.ts';
import { finalAnswer } from './interim.ts';

/** `client`: the client's request; once it aborts (the client went away), the fetch and its body end too. */
export async function timedFetch(
  url: URL,
  init: RequestInit,
  timeoutMs: number,
  client?: AbortSignal,
): Promise<Response> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = (): void => controller.abort(client?.reason);
  if (client?.aborted) onAbort();
  else client?.addEventListener('abort', onAbort, { once: true });
  // workerd would otherwise decode gzip and keep the header and the encoded length. Typed as plain RequestInit (as
  // workers-cache-gateway.ts does) so that the tests, typed for Node, can run an origin too.
  const ask = (): Promise<Response> =>
    fetch(url, { ...init, signal: controller.signal, redirect: 'manual', encodeResponseBody: 'manual' } as RequestInit);
  const method = init.method ?? 'GET';
  try {
    // A kept-alive connection the origin closed, or left garbage on (a body longer than its Content-Length), fails
    // before any answer: a GET or HEAD is asked once more, at once, on a fresh one (shared/http/resend.ts).
    const response = await withResend(ask, resendable(method, init.body), () => timedOut || client?.aborted === true);
    return await finalAnswer(response, method);
  } catch (error) {
    if (error instanceof HttpError) throw error;
    if (timedOut) throw new Disconnected('origin-timeout', `origin did not answer within ${timeoutMs} ms`);
    if (client?.aborted) throw new ClientGone();
    throw new Disconnected('origin-unreachable', 'origin could not be reached');
  } finally {
    clearTimeout(timer);
  }
}
