// What one shield isolate may spend on prefetching segments (docs/warming.md "The next segments at the shield"): so
// many under way at once, so many started in a minute, and never two of one segment. Pure: the time is handed in.

export interface BudgetLimits {
  /** Prefetches under way at once in the isolate. */
  underWay: number;
  /** Prefetches started in any 60 s. */
  perMinute: number;
}

/**
 * The shield's: 8 under way (each one origin connection, in the invocation of the read that started it: well within
 * the six each invocation may open, as each read's prefetches go one after another), and 600 a minute (10 a second:
 * an isolate's share of thousands of viewers reading a segment every few seconds, each of whom needs one).
 */
export const PREFETCH_LIMITS: BudgetLimits = { underWay: 8, perMinute: 600 };

const MINUTE_MS = 60_000;

export class PrefetchBudget {
  readonly #limits: BudgetLimits;
  readonly #underWay = new Set<string>();
  /** When each prefetch of the last minute started, oldest first. */
  readonly #started: number[] = [];

  constructor(limits: BudgetLimits) {
    this.#limits = limits;
  }

  /** How many may start at `now`. */
  room(now: number): number {
    this.#expire(now);
    return Math.max(
      0,
      Math.min(this.#limits.underWay - this.#underWay.size, this.#limits.perMinute - this.#started.length),
    );
  }

  /** Whether a prefetch of `key` is under way. */
  has(key: string): boolean {
    return this.#underWay.has(key);
  }

  /** Starts a prefetch of `key` at `now`: false when it is under way already or the budget has no room. */
  begin(key: string, now: number): boolean {
    if (this.#underWay.has(key) || this.room(now) === 0) return false;
    this.#underWay.add(key);
    this.#started.push(now);
    return true;
  }

  /** The prefetch of `key` ended, however. */
  end(key: string): void {
    this.#underWay.delete(key);
  }

  #expire(now: number): void {
    let gone = 0;
    while (gone < this.#started.length && (this.#started[gone] ?? now) <= now - MINUTE_MS) gone++;
    this.#started.splice(0, gone);
  }
}
