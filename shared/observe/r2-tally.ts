// What this shield isolate's R2 tier did to its bucket (shield/r2/counted-bucket.ts tells it each call R2 answered):
// its gets and heads (Class B), the puts R2 took and their bytes, its lists (Class A), and the storage each put commits
// to, counted until the next stats flush takes them (record-sinks.ts), as the hedges and prefetches are: the stats store
// adds them per minute, the page shows and prices them (docs/costs.md).

import { noR2, type R2Counts } from '../stats/store-operations.ts';

export class R2Tally {
  #counts = noR2();

  /** A get (a lookup, found or not) or a head (a removal's): R2 bills each as a Class B operation. */
  read(): void {
    this.#counts.r2Gets += 1;
  }

  /** R2 took a put of `bytes`, kept for `retentionS` seconds (its entry's expiry less now; none counted below 0). */
  put(bytes: number, retentionS: number): void {
    this.#counts.r2Puts += 1;
    this.#counts.r2PutBytes += bytes;
    this.#counts.r2StoredByteSeconds += bytes * Math.max(0, retentionS);
  }

  /** A page of the bucket's listing (the walk of its index): a Class A operation. */
  listed(): void {
    this.#counts.r2Lists += 1;
  }

  /** The counts since the last take, and a fresh start. */
  take(): R2Counts {
    const counts = this.#counts;
    this.#counts = noR2();
    return counts;
  }
}

/** This isolate's R2 tier's operations (module state, declared: one tally per isolate, emptied at each flush). */
export const isolateR2 = new R2Tally();
