// One request's log of what its next hop answered for it, heard as each answer's head arrives (loggedUpstream),
// read when this tier's own head goes out (hop-report.ts folds it).

import { type CacheStatusParams, memberParams } from '../http/cache-status.ts';
import type { SliceSpan } from '../slices/slice-plan.ts';
import type { HopAnswer, HopReport } from './hop-report.ts';
import type { Upstream } from './ports.ts';

/** Most slice indices one ask is logged by: a span longer than any request makes (the edge asks ≤ 16). */
const MAX_LOGGED_SPAN = 4096;

/**
 * The next hop's answers for one request: each slice's first verdict (a warm's, not the copy after it; a span's,
 * not the reopening of a body that broke), answers about the object alone (a 304, a 416) kept beside them, and the
 * slices asked whose answer has not come yet.
 */
export class HopLog {
  /** The next tier's Cache-Status member name, which its folded member is reported under; undefined: the origin. */
  readonly cache: string | undefined;
  private readonly pending = new Set<number>();
  private readonly heardSlices = new Set<number>();
  private readonly answers: { at: number; answer: HopAnswer }[] = [];

  constructor(cache?: string) {
    this.cache = cache;
  }

  /** `span` was asked for: its slices are coming, unless a verdict on them was heard already. */
  asked(span: SliceSpan): void {
    for (const index of indices(span)) if (!this.heardSlices.has(index)) this.pending.add(index);
  }

  /** The head of an answer for `span`: `carries` when it is the verdict on its slices, not on the object alone. */
  heard(span: SliceSpan, headers: Headers, carries: boolean): void {
    const fresh = indices(span).filter((index) => !this.heardSlices.has(index));
    for (const index of indices(span)) this.pending.delete(index);
    if (carries && fresh.length === 0) return;
    for (const index of carries ? fresh : []) this.heardSlices.add(index);
    this.answers.push({
      at: span.first,
      answer: {
        slices: carries ? fresh.length : 0,
        member: this.member(headers),
        timing: headers.get('server-timing'),
      },
    });
  }

  /** The ask for `span` ended without an answer (it failed, or was given up): nothing more is coming for it. */
  gaveUp(span: SliceSpan): void {
    for (const index of indices(span)) this.pending.delete(index);
  }

  /** What was heard so far, in slice order (an answer about the object before the slices of the same index). */
  report(): HopReport {
    const sorted = [...this.answers].sort((a, b) => a.at - b.at || a.answer.slices - b.answer.slices);
    return { answers: sorted.map((entry) => entry.answer), pending: this.pending.size };
  }

  private member(headers: Headers): CacheStatusParams | undefined {
    return this.cache === undefined ? undefined : memberParams(headers.get('cache-status'), this.cache);
  }
}

/**
 * `upstream`, each answer's head heard by `log`. Not logged: the copy of what a warm stored (the warm gave the
 * verdict: its head is heard by the next hop's client, worker/shield-client.ts) and the rest of a body that broke.
 */
export function loggedUpstream(upstream: Upstream, log: HopLog): Upstream {
  return {
    async slices(span, pinned, ask) {
      if (ask?.copy === true || (ask?.from ?? 0) > 0) return upstream.slices(span, pinned, ask);
      log.asked(span);
      try {
        const answer = await upstream.slices(span, pinned, ask);
        if (answer.kind === 'span') log.heard(answer.span, answer.response.headers, true);
        else log.heard(span, answer.response.headers, false);
        return answer;
      } finally {
        log.gaveUp(span);
      }
    },
    head: (signal) => upstream.head(signal),
    ...(upstream.warm !== undefined && {
      warm: async (span, pinned, signal) => {
        log.asked(span);
        try {
          return await upstream.warm?.(span, pinned, signal);
        } finally {
          log.gaveUp(span);
        }
      },
    }),
  };
}

function indices(span: SliceSpan): number[] {
  const last = Math.min(span.last, span.first + MAX_LOGGED_SPAN - 1);
  return Array.from({ length: Math.max(0, last - span.first + 1) }, (_, i) => span.first + i);
}
