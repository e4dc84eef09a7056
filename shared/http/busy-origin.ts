// An origin that says it is busy (503 or 429, with Retry-After): how long a tier waits before it tries
// again, within a bounded total wait. Pure: the caller does the waiting.

import { parseHttpDate } from './http-date.ts';

// Storj's gateway answers 503 (S3's SlowDown) or 429 with Retry-After once a credential has 500
// transfers under way.
/** Statuses that say "try again later" (RFC 9110 §15.6.4, RFC 6585 §4). */
export function isBusy(status: number): boolean {
  return status === 503 || status === 429;
}

/** Tries after the first, at most. */
export const BUSY_RETRIES = 3;
/** Wait when the origin names none, doubled for each further try. */
const DEFAULT_WAIT_MS = 250;

/**
 * RFC 9110 §10.2.3 Retry-After: delay-seconds or an HTTP-date, as ms from `now`; undefined
 * when absent or neither.
 */
export function retryAfterMs(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  const at = parseHttpDate(text);
  return at === undefined ? undefined : Math.max(0, at - now);
}

/** A response's Retry-After as ms from now; undefined when it named none it could be read as. */
export function retryAfterOf(response: Response): number | undefined {
  return retryAfterMs(response.headers.get('retry-after'), Date.now());
}

/**
 * How long to leave an origin (or one of its endpoints) alone after `inRow` failures or busy answers in a row: `baseMs`
 * doubling each time, jittered by `random` to between half and all of it (callers that saw the same answer do not all
 * come back at once), or what its Retry-After asked if longer; never past `maxMs`.
 */
export function backoffMs(
  inRow: number,
  { baseMs, maxMs }: { baseMs: number; maxMs: number },
  retryAfterMs: number | undefined,
  random: () => number,
): number {
  const doubled = baseMs * 2 ** Math.min(Math.max(inRow, 1) - 1, 10) * (0.5 + random() / 2);
  return Math.min(maxMs, Math.max(doubled, retryAfterMs ?? 0));
}

/**
 * The longest Retry-After a client of ours is told when the origin was busy (s). By then the shield paces the origin
 * itself (shield/origin/transfer-budget.ts), so a client need not sit out the origin's own (Storj's reach 120 s, which
 * its users say "kills performance": storj/edge #536); a client that comes back early finds a stale copy, a turn, or
 * this answer again, quickly.
 */
const CLIENT_RETRY_AFTER_MAX_S = 5;

/** The Retry-After (delay-seconds, RFC 9110 §10.2.3) for a client: the origin's `value`, from 1 to the cap; 1 without one. */
export function clientRetryAfter(value: string | null, now: number): string {
  const ms = retryAfterMs(value, now) ?? 0;
  return String(Math.min(CLIENT_RETRY_AFTER_MAX_S, Math.max(1, Math.ceil(ms / 1000))));
}

/**
 * How long to wait before try `retry` (1 for the first retry), or undefined to give up: no
 * tries left, or the wait would end past `deadline` (ms epoch, the bound on all waiting). Given
 * up, the client gets the 503 with the origin's Retry-After (or a stale copy, where one may stand
 * in for an error).
 */
export function busyWait(retry: number, retryAfter: string | null, now: number, deadline: number): number | undefined {
  if (retry > BUSY_RETRIES) return undefined;
  const wait = retryAfterMs(retryAfter, now) ?? DEFAULT_WAIT_MS * 2 ** (retry - 1);
  return now + wait > deadline ? undefined : wait;
}
