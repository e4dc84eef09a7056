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
  /** Slices' worth the reader has read, a fraction of the one it reads included: it read the slices before it whole. */
  private read = 0;
  /** What `ahead` was when the window last heard of it. */
  private told = 0;
  /** Called when the reader has earned more (the window then starts what it may). */
  private readonly grew: () => void;

  constructor(grew: () => void) {
    this.grew = grew;
  }

  /**
   * Slices ahead of the reader it has earned: none before its first slice is in hand, FIRST_AHEAD with it, GROWTH
   * times more for each slice it has read since, earned as it reads the second half of each (`reading`). At each
   * slice's end it is what reading slice by slice earns.
   */
  get ahead(): number {
    if (this.taken === 0) return 0;
    return Math.floor(FIRST_AHEAD * GROWTH ** Math.min(Math.max(this.taken - 1, this.read), 10));
  }

  /**
   * The reader asks for the slice at `position` of its read (0 the first): it has read every one before it whole, and
   * earns as much for that now, not once the slice it asks for has arrived. Where that slice comes through the caches
   * (a warm, a copy, a read back: read-ahead.ts), waiting for it put the next step of the ramp-up that much later on
   * every cold download. The caller starts what was earned (no `grew`: it refills its window next).
   */
  asked(position: number): void {
    this.read = Math.max(this.read, position);
    this.told = Math.max(this.told, this.ahead);
  }

  /**
   * The reader has read `share` (0 to 1) of the slice at `position` of its read. A cold download reads its first slice
   * at one origin connection's rate: what reading it earns starts as it reads, not all at its end, which left the
   * reader waiting a quarter of a second for the next slices on every cold 100 MiB download (bench:cold-download).
   * Only the second half of a slice earns, part of the way (three quarters read: FIRST_AHEAD × √GROWTH of the first):
   * a reader that reads a file's head and leaves (a player probing, a stalled client whose socket took a few hundred
   * kilobytes) costs what it did when only a slice read whole earned.
   */
  reading(position: number, share: number): void {
    this.read = Math.max(this.read, position + Math.min(1, Math.max(0, 2 * share - 1)));
    if (this.ahead > this.told) this.tell();
  }

  /** The reader took a slice (it is done with the one before). */
  took(): void {
    this.taken++;
    this.tell();
  }

  private tell(): void {
    this.told = this.ahead;
    this.grew();
  }
}
