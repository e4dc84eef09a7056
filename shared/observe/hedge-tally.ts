// The hedges this isolate made (shield/origin/endpoint-race.ts: a GET or HEAD asked of a second origin endpoint while
// the first had not answered), counted until its next stats flush takes them (record-sinks.ts), as the purge list's
// KV requests are: the stats store adds them per minute, the page shows and prices them (docs/costs.md).

/** Hedges since the last flush. */
export interface HedgeCounts {
  /** Hedges made: each one more request to the origin. */
  hedgesStarted: number;
  /** Of those, the ones whose answer was used (the first endpoint's was cancelled). */
  hedgesWon: number;
  /** Of those, the ones cancelled because the first endpoint answered first. */
  hedgesLost: number;
  /**
   * Bytes the losers of hedged requests were charged (hedge-policy.ts answerBytes: a cancelled body's declared length,
   * the most it sent): origin egress no client read.
   */
  hedgeBytes: number;
}

export function noHedges(): HedgeCounts {
  return { hedgesStarted: 0, hedgesWon: 0, hedgesLost: 0, hedgeBytes: 0 };
}

export class HedgeTally {
  #counts = noHedges();

  started(): void {
    this.#counts.hedgesStarted += 1;
  }

  /** The race a hedge was in ended: `hedgeWon` whether the hedge's answer was used; `loserBytes` the loser's charge. */
  ended(hedgeWon: boolean, loserBytes: number): void {
    if (hedgeWon) this.#counts.hedgesWon += 1;
    else this.#counts.hedgesLost += 1;
    this.#counts.hedgeBytes += Math.max(0, loserBytes);
  }

  /** The counts since the last take, and a fresh start. */
  take(): HedgeCounts {
    const counts = this.#counts;
    this.#counts = noHedges();
    return counts;
  }
}

/** This isolate's hedges (module state, declared: one tally per isolate, emptied at each flush). */
export const isolateHedges = new HedgeTally();
