// The hedges this isolate made (shield/origin/endpoint-race.ts: a GET or HEAD asked of a second origin endpoint while
// the first had not answered), counted until its next stats flush takes them (record-sinks.ts), as the purge list's
// KV requests are: the stats store adds them per minute, the page shows and prices them (docs/costs.md).

import { type HedgeCounts, noHedges } from '../stats/store-operations.ts';

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
