import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Lease, TransferBudget } from '../../../shield/origin/transfer-budget.ts';

/** A budget on a clock the test moves, with no jitter (the cool-down is the low end: half the doubling). */
function budget(capacity: number): { budget: TransferBudget; clock: { now: number } } {
  const clock = { now: 1_000_000 };
  return {
    budget: new TransferBudget(
      capacity,
      () => clock.now,
      () => 0,
    ),
    clock,
  };
}

function takeAll(of: TransferBudget, count: number): Lease[] {
  return Array.from({ length: count }, () => of.tryTake()).filter((lease): lease is Lease => lease !== undefined);
}

describe('TransferBudget', () => {
  it('lends up to its capacity, and a released lease makes room (released twice, once)', () => {
    const { budget: b } = budget(3);
    const leases = takeAll(b, 5);
    expect(leases).toHaveLength(3);
    expect(b.tryTake()).toBeUndefined();
    leases[0]?.release();
    leases[0]?.release();
    expect(b.report().inFlight).toBe(2);
    expect(b.tryTake()).toBeDefined();
    expect(b.tryTake()).toBeUndefined();
  });

  it('gives the waiting their turn in order of arrival, before anyone who comes later', async () => {
    const { budget: b } = budget(1);
    const [held] = takeAll(b, 1);
    const order: string[] = [];
    const first = b.take(10_000).then((lease) => {
      order.push('first');
      return lease;
    });
    const second = b.take(10_000).then((lease) => {
      order.push('second');
      return lease;
    });
    expect(b.report().waiting).toBe(2);
    // Someone arriving now does not jump the queue.
    held?.release();
    expect(b.tryTake()).toBeUndefined();
    (await first)?.release();
    await second;
    expect(order).toEqual(['first', 'second']);
  });

  it('gives up on a wait after its time, or once its client is gone, and leaves the queue', async () => {
    const { budget: b } = budget(1);
    takeAll(b, 1);
    expect(await b.take(20)).toBeUndefined();
    const gone = new AbortController();
    const waiting = b.take(10_000, gone.signal);
    gone.abort();
    expect(await waiting).toBeUndefined();
    expect(b.report().waiting).toBe(0);
    expect(await b.take(0)).toBeUndefined();
  });

  it('halves the limit on a busy answer, once per cut window, never below one', () => {
    const { budget: b, clock } = budget(8);
    takeAll(b, 8);
    b.busy();
    expect(b.report().limit).toBe(4);
    // Busy answers to transfers already under way when it was cut say nothing new.
    b.busy();
    expect(b.report().limit).toBe(4);
    for (let i = 0; i < 5; i++) {
      clock.now += 300;
      b.busy();
    }
    expect(b.report().limit).toBe(1);
  });

  it('cuts from the transfers under way when they are fewer than the limit', () => {
    const { budget: b } = budget(100);
    takeAll(b, 6);
    b.busy();
    expect(b.report().limit).toBe(3);
  });

  it('starts no transfer during a cool-down, then grows the limit by one per answer up to the capacity', () => {
    const { budget: b, clock } = budget(4);
    const leases = takeAll(b, 4);
    b.busy();
    for (const lease of leases) lease.release();
    expect(b.report()).toMatchObject({ limit: 2, coolingUntil: clock.now + 500 });
    expect(b.tryTake()).toBeUndefined();
    b.answered();
    expect(b.report().limit).toBe(2);
    clock.now += 500;
    b.answered();
    b.answered();
    b.answered();
    expect(b.report()).toEqual({ capacity: 4, limit: 4, inFlight: 0, waiting: 0 });
  });

  it('doubles the cool-down while busy answers keep coming, heeds a Retry-After, and caps both at 10 s', () => {
    const { budget: b, clock } = budget(4);
    b.busy();
    expect(b.coolingFor()).toBe(500);
    clock.now += 300;
    b.busy();
    expect(b.coolingFor()).toBe(1_000);
    b.busy(120_000);
    expect(b.coolingFor()).toBe(10_000);
    clock.now += 10_000;
    expect(b.coolingFor()).toBe(0);
  });

  it('grants a waiter as soon as an answer raises the limit', async () => {
    const { budget: b, clock } = budget(2);
    const [first] = takeAll(b, 2);
    b.busy();
    first?.release();
    // One under way against a limit of one: a newcomer waits.
    const waiting = b.take(10_000);
    expect(b.report()).toMatchObject({ limit: 1, inFlight: 1, waiting: 1 });
    clock.now += 1_000;
    b.answered();
    expect(await waiting).toBeDefined();
    expect(b.report()).toMatchObject({ limit: 2, inFlight: 2, waiting: 0 });
  });

  it('pauses nothing for a Retry-After of 0 (come back at once), though the limit is still cut', () => {
    const { budget: b } = budget(4);
    takeAll(b, 4);
    b.busy(0);
    expect(b.coolingFor()).toBe(0);
    expect(b.report().limit).toBe(2);
  });

  it('lets the waiting start once a cool-down ends, from their own wait', async () => {
    const { budget: b, clock } = budget(4);
    b.busy();
    const waiting = b.take(10_000);
    clock.now += 500;
    expect(await waiting).toBeDefined();
  });

  it('answers at once those waiting whose wait ends before a cool-down that begins', async () => {
    const { budget: b } = budget(1);
    const [held] = takeAll(b, 1);
    const short = b.take(2_000);
    const long = b.take(60_000);
    b.busy(5_000);
    expect(await short).toBeUndefined();
    expect(b.report().waiting).toBe(1);
    // And while it lasts, a newcomer with a shorter wait is not made to wait at all.
    expect(await b.take(1_000)).toBeUndefined();
    held?.release();
    void long;
  });

  it('stops counting a lease never released once it is held past any transfer', () => {
    const { budget: b, clock } = budget(1);
    takeAll(b, 1);
    expect(b.tryTake()).toBeUndefined();
    clock.now += 300_001;
    expect(b.tryTake()).toBeDefined();
  });

  it('never lends past the limit in force when it lends, whatever the order of events', () => {
    const event = fc.oneof(
      fc.constant({ kind: 'take' as const }),
      fc.constant({ kind: 'release' as const }),
      fc.constant({ kind: 'busy' as const }),
      fc.constant({ kind: 'answered' as const }),
      fc.integer({ min: 0, max: 2_000 }).map((ms) => ({ kind: 'tick' as const, ms })),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.array(event, { maxLength: 200 }), (capacity, events) => {
        const { budget: b, clock } = budget(capacity);
        const held: Lease[] = [];
        for (const step of events) {
          if (step.kind === 'take') {
            const before = b.report();
            const lease = b.tryTake();
            if (lease !== undefined) {
              expect(before.inFlight).toBeLessThan(before.limit);
              expect(before.coolingUntil).toBeUndefined();
              held.push(lease);
            }
          } else if (step.kind === 'release') held.shift()?.release();
          else if (step.kind === 'busy') b.busy();
          else if (step.kind === 'answered') b.answered();
          else clock.now += step.ms;
          const { limit, inFlight } = b.report();
          expect(limit).toBeGreaterThanOrEqual(1);
          expect(limit).toBeLessThanOrEqual(capacity);
          expect(inFlight).toBe(held.length);
        }
      }),
    );
  });
});
