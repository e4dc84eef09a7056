// What a fill from the next hop may still pull once nobody waits for it, and the bounds of a body without a length:
// the decisions, pure (shared/tier/fill.ts applies them; the settings are shared/config/limits.ts FillConfig).
//
// A fill belongs to the cache, not to the client that started it (Varnish keeps fetching an object its client left):
// but only so far. Without a bound, one aborted request for a large object an origin sends whole (one that ignores
// Range, or has no strong ETag to slice by) costs the whole object, and in `http` mode every query string is a key of
// its own: `?1`, `?2`, … would each cost one.

import type { FillConfig } from '../config/limits.ts';
import { moveDeadlineMs } from '../slices/move-deadline.ts';

/** The settings, and the tier's silence bound, which an abandoned fill's deadline starts from. */
export interface FillLimits extends FillConfig {
  /** ORIGIN_IDLE_TIMEOUT_MS. */
  idleMs: number;
}

/**
 * What a fill that has just lost its last client does: go on for at most `allowance` more bytes within `deadlineMs`
 * (the isolate's budget permitting), or stop, nothing of it stored.
 */
export type AbandonVerdict = { go: true; allowance: number; deadlineMs: number } | { go: false; why: string };

/**
 * The verdict on a fill whose clients have all gone, `delivered` bytes in, of `length` (undefined: a body without a
 * length). It finishes only when what is left is known to be within `abandonedFillMax`: the bytes it pulls for nobody
 * are then at most that, and the next request finds it stored. Of a body without a length, what is left is not known
 * (an endless one never ends): it stops. However long a fill that goes on takes, it takes no longer than its bytes at a
 * floor rate past the silence bound (move-deadline.ts).
 */
export function abandonVerdict(delivered: number, length: number | undefined, limits: FillLimits): AbandonVerdict {
  if (length === undefined)
    return {
      go: false,
      why: `nobody waits for this fill any more, and how much of it is left is not known (no Content-Length): it is not pulled for nobody (ABANDONED_FILL_MAX)`,
    };
  const left = Math.max(0, length - delivered);
  if (left > limits.abandonedFillMax)
    return {
      go: false,
      why: `nobody waits for this fill any more, and ${left} bytes of it are left: more than the ${limits.abandonedFillMax} one may pull for nobody (ABANDONED_FILL_MAX)`,
    };
  return { go: true, allowance: left, deadlineMs: moveDeadlineMs(left, limits.idleMs) };
}

/** Whether an abandoned fill has pulled more since it was abandoned than its allowance: it stops. */
export function pastAllowance(pulledSince: number, allowance: number): boolean {
  return pulledSince > allowance;
}

/**
 * Whether the isolate's budget for bytes pulled for nobody (`inUse` of `limit` held by other abandoned fills) has room
 * for one more fill's `allowance`; past it, the fill stops at once.
 */
export function isolateAdmits(pool: { limit: number; inUse: number }, allowance: number): boolean {
  return pool.inUse + allowance <= pool.limit;
}

/** Whether a body without a length has run past the longest one a tier takes, `delivered` bytes in. */
export function pastUnknownLengthMax(delivered: number, limits: Pick<FillConfig, 'unknownLengthMax'>): boolean {
  return delivered > limits.unknownLengthMax;
}
