// The transfers this isolate has under way to one origin, all its endpoints together (Storj counts a project's
// transfers as one, whatever gateway or access key they use), kept within two numbers:
// - ORIGIN_CONCURRENCY, the share of the origin's limit this deployment may use;
// - what the origin lately accepted: a busy answer (429, 503 SlowDown) halves the limit and pauses new transfers for a
//   cool-down (jittered, doubling while busy answers keep coming, capped; a Retry-After heeded up to the cap); after
//   it the limit grows by one for each answer taken, back up to the share: RFC 5681 §3's decrease and slow start,
//   applied to transfers instead of segments. The limit never falls below one.
// A request beyond the limit, or in a cool-down, waits its turn (first come, first served) for at most
// ORIGIN_BUSY_WAIT_MS; past that it is answered busy at once (a stale copy, where one may stand in, or a 503 with a
// short Retry-After), never made to sit out the origin's own Retry-After (Storj's reach 120 s).

import type { Config } from '../../shared/config/config.ts';
import { backoffMs } from '../../shared/http/busy-origin.ts';
import type { OriginTransfers } from '../../shared/http/health-report.ts';

/** A transfer's place in the budget, held until its body is done with. Releasing it twice is releasing it once. */
export interface Lease {
  release(): void;
}

/** The first cool-down after a busy answer, about this long; twice as long for each further one in a row. */
const COOL_BASE_MS = 1_000;
/**
 * The longest cool-down, whatever the origin's Retry-After said: every miss is answered busy meanwhile, so Storj's
 * 120 s, obeyed, would be two minutes without a cold object ("kills performance": storj/edge #536).
 */
const COOL_MAX_MS = 10_000;
const COOL_DOWN = { baseMs: COOL_BASE_MS, maxMs: COOL_MAX_MS };
/**
 * The limit is cut at most once in this while: the busy answers to transfers already under way when it was cut say
 * nothing new (RFC 5681 §3.1 halves once per window of data, not per lost segment).
 */
const CUT_GAP_MS = 250;
/**
 * A lease never released (a body neither read to its end nor cancelled) stops counting after this long, so that a
 * defect somewhere cannot shrink the budget for good. Far longer than any transfer of a slice or a small object takes.
 */
const LEASE_MAX_MS = 300_000;

interface Waiter {
  /** Until when it waits (by the budget's clock). */
  until: number;
  grant(lease: Lease | undefined): void;
}

export class TransferBudget {
  readonly #capacity: number;
  readonly #random: () => number;
  readonly #clock: () => number;
  #limit: number;
  /** Lease to when it was taken. */
  readonly #held = new Map<Lease, number>();
  readonly #waiting: Waiter[] = [];
  #coolingUntil = 0;
  #busyInRow = 0;
  #lastCut = Number.NEGATIVE_INFINITY;

  constructor(capacity: number, clock: () => number = Date.now, random: () => number = Math.random) {
    this.#capacity = capacity;
    this.#limit = capacity;
    this.#clock = clock;
    this.#random = random;
  }

  /** A lease now, or undefined: the limit is reached, or others are waiting their turn before this one. */
  tryTake(): Lease | undefined {
    if (this.#waiting.length > 0 || !this.#room()) return undefined;
    return this.#lease();
  }

  /** A lease within `waitMs` (its turn among the waiting ones), or undefined when that passed or `signal` aborted. */
  take(waitMs: number, signal?: AbortSignal): Promise<Lease | undefined> {
    const now = this.tryTake();
    // A cool-down that outlasts the wait: answered at once rather than after waiting for nothing.
    if (now !== undefined || waitMs <= this.coolingFor() || signal?.aborted === true) return Promise.resolve(now);
    return new Promise((resolve) => {
      const give = (lease: Lease | undefined): void => {
        clearTimeout(timer);
        clearTimeout(cooled);
        signal?.removeEventListener('abort', giveUp);
        resolve(lease);
      };
      const waiter: Waiter = { until: this.#clock() + waitMs, grant: give };
      const giveUp = (): void => {
        const at = this.#waiting.indexOf(waiter);
        if (at >= 0) this.#waiting.splice(at, 1);
        give(undefined);
      };
      const timer = setTimeout(giveUp, waitMs);
      // A cool-down ending while this one waits lets the waiting start: woken from this request's own timer (workerd
      // runs a timer only within the request that set it, so another's could not be relied on).
      const atCoolEnd = (): void => {
        this.#grant();
        const left = this.coolingFor();
        if (left > 0) cooled = setTimeout(atCoolEnd, left);
      };
      let cooled = setTimeout(atCoolEnd, this.coolingFor());
      signal?.addEventListener('abort', giveUp, { once: true });
      this.#waiting.push(waiter);
    });
  }

  /** The origin answered busy: the limit is halved (once per CUT_GAP_MS), and no transfer starts for a cool-down. */
  busy(retryAfterMs?: number): void {
    const now = this.#clock();
    this.#busyInRow += 1;
    if (now - this.#lastCut >= CUT_GAP_MS) {
      this.#limit = Math.max(1, Math.floor(Math.min(this.#limit, this.#held.size) / 2));
      this.#lastCut = now;
    }
    // `Retry-After: 0` is the origin saying to come back at once: the limit is cut, nothing paused.
    const cool = retryAfterMs === 0 ? 0 : backoffMs(this.#busyInRow, COOL_DOWN, retryAfterMs, this.#random);
    this.#coolingUntil = Math.max(this.#coolingUntil, now + cool);
    // Those whose wait ends before the cool-down does would wait for nothing: answered at once.
    const hopeless = this.#waiting.filter((waiter) => waiter.until <= this.#coolingUntil);
    this.#waiting.splice(
      0,
      this.#waiting.length,
      ...this.#waiting.filter((waiter) => waiter.until > this.#coolingUntil),
    );
    for (const waiter of hopeless) waiter.grant(undefined);
  }

  /**
   * The origin answered (anything but busy): past the cool-down, the limit grows by one towards the share. An answer
   * within it was asked before the busy one came, and says nothing of the origin since.
   */
  answered(): void {
    this.#busyInRow = 0;
    if (this.#clock() < this.#coolingUntil || this.#limit >= this.#capacity) return;
    this.#limit += 1;
    this.#grant();
  }

  /** While a cool-down lasts, how long until it ends (ms); 0 after. */
  coolingFor(): number {
    return Math.max(0, this.#coolingUntil - this.#clock());
  }

  /** What the health answer says of it (docs/operating.md "Health"). */
  report(): OriginTransfers {
    const now = this.#clock();
    return {
      capacity: this.#capacity,
      limit: this.#limit,
      inFlight: this.#held.size,
      waiting: this.#waiting.length,
      ...(now < this.#coolingUntil ? { coolingUntil: this.#coolingUntil } : {}),
    };
  }

  #room(): boolean {
    if (this.#clock() < this.#coolingUntil) return false;
    if (this.#held.size < this.#limit) return true;
    // Full: first let go of leases held past any transfer's length (never released: a defect elsewhere).
    const now = this.#clock();
    for (const [lease, since] of this.#held) if (now - since > LEASE_MAX_MS) this.#held.delete(lease);
    return this.#held.size < this.#limit;
  }

  #lease(): Lease {
    const lease: Lease = {
      release: () => {
        if (this.#held.delete(lease)) this.#grant();
      },
    };
    this.#held.set(lease, this.#clock());
    return lease;
  }

  /** Leases to those waiting, in turn, while there is room. */
  #grant(): void {
    while (this.#waiting.length > 0 && this.#room()) this.#waiting.shift()?.grant(this.#lease());
  }
}

/** Per origin (its preferred endpoint) and share: this isolate's budget, the same for every bucket a host reads. */
const budgets = new Map<string, TransferBudget>();

/**
 * This isolate's budget for the origin `config` names (its preferred endpoint): module state, declared; bounded by the origins configured (one,
 * or one per configuration a test or the local stack starts in one process).
 */
export function isolateBudget(config: Config): TransferBudget {
  const capacity = config.originBudget.concurrency;
  const key = `${config.originUrl.href} ${capacity}`;
  let budget = budgets.get(key);
  if (budget === undefined) {
    budget = new TransferBudget(capacity);
    budgets.set(key, budget);
  }
  return budget;
}
