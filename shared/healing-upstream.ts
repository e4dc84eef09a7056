// The next hop's answers made safe to store and to stream on, whichever hop it is (the shield
// from the edge, the origin from the shield): a span's body heals itself when it breaks
// part-way, asking the same hop again from the byte it reached, pinned to the version it
// described (healing-body.ts); a whole body is counted against its Content-Length and bounded
// in silence, so a cut or stalled one fails visibly instead of passing as complete.

import { withLength } from './byte-stream.ts';
import { countedBody } from './counted-body.ts';
import { HEAL_ATTEMPTS, HEAL_BACKOFF_MS, healingBody } from './healing-body.ts';
import { spanBytes } from './slice-plan.ts';
import { type Upstream, type UpstreamAnswer, VersionChanged } from './upstream.ts';
import { responseAsIs } from './response-as-is.ts';

export interface HealingPolicy {
  /** Longest silence inside any body (ms). */
  idleMs: number;
  /** Reopenings of a span that broke. */
  attempts: number;
}

/** `upstream`, its bodies healing (spans) or counted (whole) within `policy`. */
export function healingUpstream(upstream: Upstream, policy: HealingPolicy): Upstream {
  const { idleMs, attempts } = policy;
  return {
    async slices(span, pinned, ask = {}) {
      const from = ask.from ?? 0;
      const answer = await upstream.slices(span, pinned, ask);
      if (answer.kind === 'whole') return { kind: 'whole', response: countedResponse(answer.response, idleMs) };
      if (answer.kind !== 'span') return answer;
      const bytes = spanBytes(answer.span, answer.meta.sliceSize, answer.meta.size);
      const reopen = async (offset: number): Promise<ReadableStream<Uint8Array>> => {
        const again = await upstream.slices(answer.span, answer.meta, { from: from + offset, signal: ask.signal });
        if (again.kind === 'span') return again.body;
        if (again.kind === 'whole') await again.response.body?.cancel();
        throw new VersionChanged('the next hop no longer serves this version in slices');
      };
      const body = healingBody(answer.body, bytes.end - bytes.start + 1 - from, { reopen, attempts, backoffMs: HEAL_BACKOFF_MS, idleMs });
      return { ...answer, body };
    },
    head: (signal) => upstream.head(signal),
  };
}

/**
 * At the shield, towards the origin: ORIGIN_IDLE_TIMEOUT_MS, and every attempt. At the edge,
 * towards the shield: the shield heals the origin's faults itself, so the edge waits out the
 * shield's own attempts before it calls a body silent, and asks again once (a fault of the hop
 * between the tiers).
 */
export function originHealing(idleMs: number): HealingPolicy {
  return { idleMs, attempts: HEAL_ATTEMPTS };
}

export function shieldHealing(originIdleMs: number): HealingPolicy {
  return { idleMs: (HEAL_ATTEMPTS + 1) * originIdleMs + HEAL_BACKOFF_MS * 2 ** HEAL_ATTEMPTS, attempts: 1 };
}

/**
 * A whole answer whose body is counted against its Content-Length and bounded in silence,
 * and keeps that length on the wire: workerd ends a chunked body that errors as if it were
 * complete, while one of known length that errors is a broken transfer.
 */
function countedResponse(response: Response, idleMs: number): Response {
  if (response.body === null) return response;
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  const length = Number.isSafeInteger(declared) && declared >= 0 ? declared : undefined;
  const counted = countedBody(response.body, length, { idleMs });
  const body = length === undefined ? counted : withLength(counted, length);
  return responseAsIs(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
