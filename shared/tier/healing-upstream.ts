// The next hop's answers made safe to store and to stream on, whichever hop it is (the shield from the edge, the
// origin from the shield): spans that heal when they break, silence inside any body bounded.

import { VersionChanged } from '../http/errors.ts';
import { fromNextHop } from '../streams/from-next-hop.ts';
import { HEAL_ATTEMPTS, HEAL_BACKOFF_MS } from '../streams/heal.ts';
import type { Upstream } from './ports.ts';

export interface HealingPolicy {
  /** Longest silence inside any body (ms). */
  idleMs: number;
  /** Reopenings of a span that broke. */
  attempts: number;
}

/**
 * `upstream`, its bodies healing (spans) or counted (whole) within `policy`. A span's body that breaks part-way asks
 * the same hop again from the byte it reached, pinned to the version it described. The bodies are marked with that
 * (fromNextHop) and stay the runtime's own streams: whoever reads them through bodySource reads them so.
 */
export function healingUpstream(upstream: Upstream, policy: HealingPolicy): Upstream {
  const { idleMs, attempts } = policy;
  return {
    async slices(span, pinned, ask = {}) {
      const from = ask.from ?? 0;
      const answer = await upstream.slices(span, pinned, ask);
      if (answer.kind === 'whole') {
        if (answer.response.body !== null) fromNextHop(answer.response.body, { idleMs });
        return answer;
      }
      if (answer.kind !== 'span') return answer;
      const reopen = async (offset: number): Promise<ReadableStream<Uint8Array>> => {
        const again = await upstream.slices(answer.span, answer.meta, { from: from + offset, signal: ask.signal });
        if (again.kind === 'span') return again.body;
        if (again.kind === 'whole') await again.response.body?.cancel();
        throw new VersionChanged('the next hop no longer serves this version in slices');
      };
      return {
        ...answer,
        body: fromNextHop(answer.body, { idleMs, heal: { reopen, attempts, backoffMs: HEAL_BACKOFF_MS } }),
      };
    },
    head: (signal) => upstream.head(signal),
    // A warm moves no bytes to heal: one that fails leaves the slice to be read as it comes.
    ...(upstream.warm !== undefined && { warm: upstream.warm.bind(upstream) }),
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
  return healingBehind(originHealing(originIdleMs));
}

/**
 * Towards a tier that heals its own next hop's bodies within `behind`: every one of its attempts (and their backoff)
 * waited out before a body is called silent, then asked again once.
 */
export function healingBehind(behind: HealingPolicy): HealingPolicy {
  return { idleMs: (behind.attempts + 1) * behind.idleMs + HEAL_BACKOFF_MS * 2 ** behind.attempts, attempts: 1 };
}
