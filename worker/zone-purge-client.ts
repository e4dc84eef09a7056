// Sends a purge's calls to Cloudflare's zone purge (shared/purge/zone-purge.ts plans them), through a port: the
// fetch, the clock's sleep and the runtime's waitUntil are handed in. A call rate-limited past what the request may
// wait is queued after the answer, never dropped: its report says so.

import type { ZonePurgeConfig } from '../shared/config/config.ts';
import {
  QUEUE_BUDGET_MS,
  retryAfterMs,
  retryInRequest,
  TRIES_QUEUED,
  type ZonePurgeCall,
} from '../shared/purge/zone-purge.ts';

/** What the client does I/O with. */
export interface ZonePurgePort {
  fetch(url: string, init: { method: 'POST'; headers: Record<string, string>; body: string }): Promise<Response>;
  sleep(ms: number): Promise<void>;
  /** Keeps work going after the answer (ExecutionContext.waitUntil). */
  waitUntil(work: Promise<unknown>): void;
  now(): number;
}

/** How one call went: `sent` (accepted, with Cloudflare's purge id), or why not. */
export type ZonePurgeReport =
  | { call: ZonePurgeCall; outcome: 'sent'; id: string | undefined; tries: number }
  | { call: ZonePurgeCall; outcome: 'rateLimited'; tries: number; queued: true; retryAfterMs: number }
  | { call: ZonePurgeCall; outcome: 'refused' | 'failed'; tries: number; status: number | undefined; reason: string };

/**
 * Each call sent, one after another (the account's token bucket is shared, developers.cloudflare.com/cache/how-to/purge-cache/).
 * Once one is rate-limited past what the request may wait, it and every call after it are queued together, in order,
 * behind its Retry-After: trying the rest now would only spend the bucket on more 429s.
 */
export async function sendZonePurge(
  calls: readonly ZonePurgeCall[],
  config: ZonePurgeConfig,
  port: ZonePurgePort,
): Promise<ZonePurgeReport[]> {
  const reports: ZonePurgeReport[] = [];
  // One wait for the whole purge request, however many calls it makes.
  const waiting = { waited: 0 };
  for (const [index, call] of calls.entries()) {
    const report = await sendCall(call, config, port, waiting);
    reports.push(report);
    if (report.outcome !== 'rateLimited') continue;
    const rest = calls.slice(index + 1);
    for (const later of rest)
      reports.push({ call: later, outcome: 'rateLimited', tries: 0, queued: true, retryAfterMs: report.retryAfterMs });
    port.waitUntil(queued([call, ...rest], config, port, report.retryAfterMs));
    break;
  }
  return reports;
}

async function sendCall(
  call: ZonePurgeCall,
  config: ZonePurgeConfig,
  port: ZonePurgePort,
  waiting: { waited: number },
): Promise<ZonePurgeReport> {
  for (let tries = 1; ; tries++) {
    const answer = await attempt(call, config, port);
    if (answer.kind !== 'rateLimited') return { call, tries, ...answer.report };
    if (!retryInRequest(tries, waiting.waited, answer.delay))
      return { call, outcome: 'rateLimited', tries, queued: true, retryAfterMs: answer.delay };
    await port.sleep(answer.delay);
    waiting.waited += answer.delay;
  }
}

/**
 * After the answer, in order: each call after the Retry-After of the last 429, up to TRIES_QUEUED more tries each, while
 * the waits stay within QUEUE_BUDGET_MS (the runtime keeps waitUntil work only so long; a try before its Retry-After
 * would only be refused again). What is left then is left to the records, whose bound the answer already gave.
 */
async function queued(
  calls: readonly ZonePurgeCall[],
  config: ZonePurgeConfig,
  port: ZonePurgePort,
  delay: number,
): Promise<void> {
  let wait = delay;
  let waited = 0;
  for (const [index, call] of calls.entries()) {
    for (let tries = 0; ; tries++) {
      const pause = wait;
      if (tries === TRIES_QUEUED || waited + pause > QUEUE_BUDGET_MS) {
        console.error(
          `zone purge: ${calls.length - index} queued calls left to the purge records (still rate-limited)`,
        );
        return;
      }
      await port.sleep(pause);
      waited += pause;
      const answer = await attempt(call, config, port).catch(() => undefined);
      if (answer === undefined || answer.kind !== 'rateLimited') {
        wait = 0;
        break;
      }
      wait = answer.delay;
    }
  }
}

/** A call's outcome, less the call and its tries. */
type Outcome =
  | { outcome: 'sent'; id: string | undefined }
  | { outcome: 'refused' | 'failed'; status: number | undefined; reason: string };

type Attempt = { kind: 'rateLimited'; delay: number } | { kind: 'done'; report: Outcome };

/** One POST /zones/{zone_id}/purge_cache with `Authorization: Bearer` (developers.cloudflare.com/api/resources/cache/methods/purge/). */
async function attempt(call: ZonePurgeCall, config: ZonePurgeConfig, port: ZonePurgePort): Promise<Attempt> {
  let response: Response;
  try {
    response = await port.fetch(`${config.apiBase}/zones/${config.zoneId}/purge_cache`, {
      method: 'POST',
      headers: { authorization: `Bearer ${config.apiToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(call),
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { kind: 'done', report: { outcome: 'failed', status: undefined, reason: reason.slice(0, 200) } };
  }
  if (response.status === 429) {
    await response.body?.cancel();
    return { kind: 'rateLimited', delay: retryAfterMs(response.headers.get('retry-after'), port.now()) };
  }
  const envelope = await readEnvelope(response);
  if (response.ok && envelope.success) return { kind: 'done', report: { outcome: 'sent', id: envelope.id } };
  return {
    kind: 'done',
    report: {
      outcome: response.status >= 500 ? 'failed' : 'refused',
      status: response.status,
      reason: envelope.reason || `HTTP ${response.status}`,
    },
  };
}

/** The API's envelope: `{success, errors: [{code, message}], messages, result: {id}}`; what cannot be read is no success. */
async function readEnvelope(response: Response): Promise<{ success: boolean; id: string | undefined; reason: string }> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    return { success: false, id: undefined, reason: '' };
  }
  if (typeof body !== 'object' || body === null) return { success: false, id: undefined, reason: '' };
  const { success, errors, result } = body as Record<string, unknown>;
  const id = typeof result === 'object' && result !== null ? (result as Record<string, unknown>).id : undefined;
  const reason = Array.isArray(errors)
    ? errors
        .map((error: unknown) => {
          const { code, message } = (error ?? {}) as Record<string, unknown>;
          return `${typeof code === 'number' ? `${code} ` : ''}${typeof message === 'string' ? message : ''}`.trim();
        })
        .filter((text) => text !== '')
        .join('; ')
        .slice(0, 300)
    : '';
  return { success: success === true, id: typeof id === 'string' ? id : undefined, reason };
}
