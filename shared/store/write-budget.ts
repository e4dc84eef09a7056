// How many puts the R2 tier may make per hour (R2_WRITES_PER_HOUR): a token bucket refilled at that rate, holding at
// most a minute of it, so that a burst of admissions (a cold catalogue, a purge of everything) spends no more than a
// minute's writes at once and the hour's rate holds over any longer span. Pure: the time is passed in.

/** The burst a budget holds: a minute's writes (at least one). */
const BURST_S = 60;
const HOUR_MS = 3_600_000;

export class WriteBudget {
  private readonly perHour: number;
  /** Tokens are counted in put-milliseconds-per-hour (a put is HOUR_MS of them): whole numbers, no rounding. */
  private readonly capacity: number;
  private tokens: number;
  private at: number | undefined;

  /** `perHour`: puts allowed per hour; 0 = none at all. */
  constructor(perHour: number) {
    this.perHour = Math.max(0, Math.floor(perHour));
    this.capacity = this.perHour > 0 ? Math.max(1, Math.floor((this.perHour * BURST_S) / 3600)) * HOUR_MS : 0;
    this.tokens = this.capacity;
  }

  /** Takes one put at `now` (ms epoch): false, and nothing taken, when the budget is spent for now. */
  take(now: number): boolean {
    // An hour refills any budget whole: a longer gap adds nothing more (and keeps the product a safe integer).
    const elapsed = this.at === undefined ? 0 : Math.min(HOUR_MS, Math.max(0, Math.floor(now - this.at)));
    this.at = Math.max(now, this.at ?? now);
    this.tokens = Math.min(this.capacity, this.tokens + elapsed * this.perHour);
    if (this.tokens < HOUR_MS) return false;
    this.tokens -= HOUR_MS;
    return true;
  }
}
