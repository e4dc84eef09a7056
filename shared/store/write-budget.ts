// How many puts the R2 tier may make per hour (R2_WRITES_PER_HOUR): a token bucket refilled at that rate, holding at
// most a minute of it, so that a burst of admissions (a cold catalogue, a purge of everything) spends no more than a
// minute's writes at once and the hour's rate holds over any longer span. Pure: the time is passed in.

/** The burst a budget holds: a minute's writes (at least one). */
const BURST_S = 60;

export class WriteBudget {
  private readonly perMs: number;
  private readonly capacity: number;
  private tokens: number;
  private at: number | undefined;

  /** `perHour`: puts allowed per hour; 0 = none at all. */
  constructor(perHour: number) {
    this.perMs = perHour / 3_600_000;
    this.capacity = perHour > 0 ? Math.max(1, (perHour * BURST_S) / 3600) : 0;
    this.tokens = this.capacity;
  }

  /** Takes one put at `now` (ms epoch): false, and nothing taken, when the budget is spent for now. */
  take(now: number): boolean {
    const elapsed = this.at === undefined ? 0 : Math.max(0, now - this.at);
    this.at = Math.max(now, this.at ?? now);
    this.tokens = Math.min(this.capacity, this.tokens + elapsed * this.perMs);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
