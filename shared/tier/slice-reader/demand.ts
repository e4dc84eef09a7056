// What a reader has earned ahead of it: read-ahead follows demand, so egress is paid only for what a reader came
// for, and a reader that stops (a player that paused, a stalled client) starts nothing more.

/**
 * Slices a read may start ahead of its reader once the reader has shown it reads on: it has taken FIRST_SHARE of its
 * first slice (when that slice arrives as a fill, whose progress is seen) or has its first slice in hand (read from a
 * store, whose progress is not). Each slice the reader takes doubles it, up to the window.
 */
export const FIRST_AHEAD = 2;

/**
 * How much of a fetched first slice its reader must have taken to earn read-ahead. All of it: what a client is seen
 * to take includes what the network buffers for it (megabytes on a fast path), so a player that read one megabyte
 * and paused would seem to have read half a slice.
 */
export const FIRST_SHARE = 0.5;

export class Demand {
  /** Slices the reader has taken. */
  private taken = 0;
  /** The reader has shown it reads on. */
  private reading = false;
  /** Its first slice arrives as a fill: reading is earned by progress through it. */
  private watched = false;
  /** Called when the reader has earned more (the window then starts what it may). */
  private readonly grew: () => void;

  constructor(grew: () => void) {
    this.grew = grew;
  }

  /** Slices ahead of the reader it has earned: FIRST_AHEAD on its first slice, doubled for each it took after. */
  get ahead(): number {
    return this.reading ? FIRST_AHEAD * 2 ** Math.min(Math.max(0, this.taken - 1), 20) : 0;
  }

  /**
   * The reader's first slice arrives as a fill of `length` bytes: the hook its progress goes to. FIRST_SHARE of it
   * taken earns the reader FIRST_AHEAD.
   */
  watchFirst(length: number): (takenBytes: number) => void {
    this.watched = true;
    return (takenBytes) => {
      if (this.reading || takenBytes < length * FIRST_SHARE) return;
      this.reading = true;
      this.grew();
    };
  }

  /**
   * The reader took a slice (it is done with the one before): the first one in hand earns FIRST_AHEAD unless its
   * progress is watched; each after doubles what it has earned.
   */
  took(): void {
    const first = this.taken === 0;
    this.taken++;
    if (first && this.watched) return;
    this.reading = true;
    this.grew();
  }
}
