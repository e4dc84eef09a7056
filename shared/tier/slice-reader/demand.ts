// What a reader has earned ahead of it: read-ahead follows demand, so egress is paid only for what a reader came
// for, and a reader that stops (a player that paused, a stalled client) starts nothing more.

/**
 * Slices a read may start ahead of its reader once the reader has its first slice in hand: what a reader that takes
 * one slice and stops costs beyond it. Four keep a cold download's first second near the tiers' ceiling (each slice
 * moves at one origin connection's rate); two cost it a third of its speed on 64 MiB.
 */
export const FIRST_AHEAD = 4;

/** What each slice the reader takes after its first multiplies its read-ahead by (until the window bounds it). */
export const GROWTH = 4;

export class Demand {
  /** Slices the reader has taken. */
  private taken = 0;
  /** Slices the reader has read whole: it asked for the one after them. */
  private readWhole = 0;
  /** Called when the reader has earned more (the window then starts what it may). */
  private readonly grew: () => void;

  constructor(grew: () => void) {
    this.grew = grew;
  }

  /**
   * Slices ahead of the reader it has earned: none before its first slice is in hand, FIRST_AHEAD with it, GROWTH
   * times more for each slice it has read whole (it asked for the one after it, or took it).
   */
  get ahead(): number {
    return this.taken === 0 ? 0 : FIRST_AHEAD * GROWTH ** Math.min(Math.max(this.taken - 1, this.readWhole), 10);
  }

  /**
   * The reader asks for the slice at `position` of its read (0 the first): it has read every one before it whole, and
   * earns as much for that now, not once the slice it asks for has arrived. Where that slice comes through the caches
   * (a warm, a copy, a read back: read-ahead.ts), waiting for it put the next step of the ramp-up that much later on
   * every cold download. The caller starts what was earned (no `grew`: it refills its window next).
   */
  asked(position: number): void {
    this.readWhole = Math.max(this.readWhole, position);
  }

  /** The reader took a slice (it is done with the one before). */
  took(): void {
    this.taken++;
    this.grew();
  }
}
