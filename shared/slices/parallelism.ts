// How many slices one download keeps in flight ahead of its reader: adaptive and polite, growing only
// while that adds throughput for the download. Never past `max` (SLICE_PARALLEL), never under `min`.

/** A round must move bytes this much faster than the one before for parallelism to grow again. */
const GAIN = 1.1;

/**
 * It starts at `start` and grows as TCP's slow start does: one more in flight for each slice that
 * completes (so it doubles each round, a round being as many completions as were in flight when it
 * began), and each round timed. A round that moved its bytes less than GAIN faster than the fastest
 * before it ends the growth (the origin, the link or the tiers' CPU is the bound), and it steps back to
 * where that fastest round began.
 */
export class Parallelism {
  private readonly min: number;
  private readonly max: number;
  private readonly now: () => number;
  private level: number;
  private settled = false;
  private roundStart: number;
  private roundBytes = 0;
  private roundSlices = 0;
  private lastRate = 0;
  /** The level the round began at. */
  private roundLevel: number;
  /** The level the fastest round so far began at: what more in flight is measured against. */
  private bestLevel: number;

  constructor(options: { start: number; min: number; max: number; now: () => number }) {
    this.min = Math.max(1, options.min);
    this.max = Math.max(this.min, options.max);
    this.level = Math.min(this.max, Math.max(this.min, options.start));
    this.now = options.now;
    this.roundStart = this.now();
    this.roundLevel = this.level;
    this.bestLevel = this.level;
  }

  /** Slices this download may have in flight now. */
  get limit(): number {
    return this.level;
  }

  /** A slice of `bytes` completed (stored, or read through). */
  completed(bytes: number): void {
    this.roundBytes += bytes;
    this.roundSlices++;
    if (!this.settled) this.level = Math.min(this.max, this.level + 1);
    if (this.roundSlices < this.roundLevel) return;
    const elapsed = Math.max(1, this.now() - this.roundStart);
    const rate = this.roundBytes / elapsed;
    if (!this.settled && rate < this.lastRate * GAIN) {
      // More in flight bought nothing: back to where the fastest round began, and hold. Not to where this round
      // began: the level grew by one a completion through the round before, so this round began with twice what
      // moved the bytes as fast; slices in flight past what the bound (the origin, the link, the tiers' CPU) takes
      // share it and each arrives that much later, the reader's next one too.
      this.settled = true;
      this.level = this.bestLevel;
    }
    if (rate > this.lastRate) {
      this.lastRate = rate;
      this.bestLevel = this.roundLevel;
    }
    this.newRound();
  }

  /**
   * A slice failed, or the origin asked to slow down (S3's 503 SlowDown, a 429): half as many, and
   * no more growth, since more connections would only be refused again.
   */
  backOff(): void {
    this.level = Math.max(this.min, Math.floor(this.level / 2));
    this.settled = true;
    this.newRound();
  }

  private newRound(): void {
    this.roundStart = this.now();
    this.roundBytes = 0;
    this.roundSlices = 0;
    this.roundLevel = this.level;
  }
}
