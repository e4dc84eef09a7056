import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PAID_SUBREQUESTS, SIMULTANEOUS_CONNECTIONS } from '../../../shared/config/platform-limits.ts';
import { SLICE_READ } from '../../../shared/slices/subrequest-costs.ts';
import {
  edgeReadCost,
  type Paced,
  SHIELD_WARM_COST,
  WARM_CALL_MS,
  WARM_CONCURRENCY,
  WARM_URLS_PER_CALL,
  WarmLedger,
  warmPaced,
} from '../../../shared/warm/warm-pacing.ts';
import { MAX_WARM_URLS, type WarmTier } from '../../../shared/warm/warm-request.ts';

const MIB = 1024 * 1024;

/** A turn of the event loop or a few: targets end out of order, as a pool's do. */
const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await Promise.resolve();
};

interface PoolRun {
  next: number;
  started: number[];
  most: number;
}

/** warmPaced over a scripted target: what it started, in which order, and how many at once at most. */
async function pool(
  from: number,
  end: number,
  concurrency: number,
  outcome: (index: number) => Paced = () => 'done',
  mayStart: (started: number) => boolean = () => true,
): Promise<PoolRun> {
  const started: number[] = [];
  let running = 0;
  let most = 0;
  const next = await warmPaced(
    from,
    end,
    concurrency,
    () => mayStart(started.length),
    async (index) => {
      started.push(index);
      most = Math.max(most, ++running);
      await turns((index * 7) % 5);
      running--;
      return outcome(index);
    },
  );
  return { next, started, most };
}

describe('warmPaced', () => {
  it("starts each target once, in order, no more at once than allowed, at most a call's share", async () => {
    for (const concurrency of [1, 2, 3, 4, 5, 6]) {
      for (const [from, end] of [
        [0, 0],
        [0, 1],
        [0, 7],
        [3, 10],
        [0, WARM_URLS_PER_CALL],
        [0, WARM_URLS_PER_CALL + 1],
        [250, 10_000],
        [9_990, 10_000],
      ] as const) {
        const run = await pool(from, end, concurrency);
        const expectedNext = Math.min(end, from + WARM_URLS_PER_CALL);
        expect(run.next, `${concurrency} ${from}-${end}`).toBe(Math.max(from, expectedNext));
        expect(run.started).toEqual(Array.from({ length: run.next - from }, (_, i) => from + i));
        expect(run.most).toBeLessThanOrEqual(concurrency);
      }
    }
  });

  it('runs the first target alone, then no more than allowed at once', async () => {
    let running = 0;
    const seen: number[] = [];
    await warmPaced(
      0,
      20,
      4,
      () => true,
      async () => {
        seen.push(++running);
        await turns(3);
        running--;
        return 'done';
      },
    );
    expect(seen[0]).toBe(1);
    expect(Math.max(...seen)).toBe(4);
  });

  it('starts nothing more once told to stop, and the next call starts where this one stopped', async () => {
    for (const concurrency of [1, 3, 6]) {
      for (let stopAt = 1; stopAt <= 12; stopAt++) {
        const run = await pool(
          0,
          100,
          concurrency,
          () => 'done',
          (started) => started < stopAt,
        );
        expect(run.next).toBe(stopAt);
        expect(run.started).toEqual(Array.from({ length: stopAt }, (_, i) => i));
      }
    }
  });

  it('always warms the first target, even when nothing else may start: every call moves the list on', async () => {
    const run = await pool(
      5,
      100,
      6,
      () => 'done',
      () => false,
    );
    expect(run).toEqual({ next: 6, started: [5], most: 1 });
  });

  it('ends a call at the first target deferred, whatever was started after it', async () => {
    for (const concurrency of [1, 2, 3, 6]) {
      for (let deferAt = 1; deferAt < 20; deferAt++) {
        const run = await pool(0, 100, concurrency, (index) => (index >= deferAt ? 'deferred' : 'done'));
        expect(run.next, `${concurrency} ${deferAt}`).toBe(deferAt);
        // Those started alongside it, at most one less than may run at once, are warmed all the same.
        expect(run.started.length).toBeLessThanOrEqual(deferAt + concurrency);
        expect(run.started.slice(0, deferAt)).toEqual(Array.from({ length: deferAt }, (_, i) => i));
      }
    }
  });
});

describe('WarmLedger', () => {
  it('keeps back a reserve of SUBREQUEST_LIMIT, half of a small one', () => {
    expect(WarmLedger.forCall(PAID_SUBREQUESTS.value, 0, () => 0).subrequests).toBe(9_984);
    expect(WarmLedger.forCall(50, 0, () => 0).subrequests).toBe(34);
    expect(WarmLedger.forCall(10, 0, () => 0).subrequests).toBe(5);
  });

  it('pays what fits, puts off what this call cannot pay, refuses what no call can', () => {
    const ledger = new WarmLedger(10, 1000, () => 0);
    expect(ledger.charge(3)).toBe(true);
    ledger.listMade();
    expect(ledger.forTargets).toBe(7);
    expect(ledger.pay(8)).toBe('never');
    expect(ledger.pay(6, 2)).toBe('never');
    expect(ledger.pay(5)).toBe('spent');
    expect(ledger.pay(3)).toBe('later');
    expect(ledger.pay(2)).toBe('spent');
    expect(ledger.used).toBe(10);
    expect(ledger.mayStart(1)).toBe(false);
    expect(ledger.charge(1)).toBe(false);
  });

  it("starts nothing once the call's time is spent", () => {
    let now = 0;
    const ledger = WarmLedger.forCall(1000, 0, () => now);
    expect(ledger.mayStart(1)).toBe(true);
    now = WARM_CALL_MS;
    expect(ledger.mayStart(1)).toBe(false);
  });
});

describe('edgeReadCost', () => {
  it('pays a lookup, a manifest and each slice read through the caches', () => {
    expect(edgeReadCost(0, 8 * MIB)).toBe(2 + SLICE_READ);
    expect(edgeReadCost(8 * MIB, 8 * MIB)).toBe(2 + SLICE_READ);
    expect(edgeReadCost(8 * MIB + 1, 8 * MIB)).toBe(2 + 2 * SLICE_READ);
  });
});

/** A whole warm as the CLI runs it: calls in turn, each from where the last said, until the list is done. */
async function wholeWarm(
  total: number,
  tier: WarmTier,
  limit: number,
  sizeOf: (index: number) => number,
  listCost = 0,
): Promise<{ calls: number; spent: number[]; warmed: number[]; unpaid: number }> {
  const warmed = new Array<number>(total).fill(0);
  const spent: number[] = [];
  let unpaid = 0;
  let from = 0;
  while (from < total) {
    const ledger = WarmLedger.forCall(limit, 0, () => 0);
    expect(ledger.charge(listCost)).toBe(true);
    ledger.listMade();
    const next = await warmPaced(
      from,
      total,
      WARM_CONCURRENCY[tier],
      () => ledger.mayStart(SHIELD_WARM_COST),
      async (i) => {
        const forShield = ledger.pay(SHIELD_WARM_COST);
        if (forShield === 'later') return 'deferred';
        await turns(i % 3);
        if (tier === 'both' && forShield === 'spent') {
          const forEdge = ledger.pay(edgeReadCost(sizeOf(i), 8 * MIB), SHIELD_WARM_COST);
          if (forEdge === 'later') return 'deferred';
          if (forEdge === 'never') unpaid++;
        }
        warmed[i] = (warmed[i] ?? 0) + 1;
        return 'done';
      },
    );
    expect(next, 'every call moves the list on').toBeGreaterThan(from);
    expect(ledger.used, 'no call spends more than its budget').toBeLessThanOrEqual(ledger.subrequests);
    spent.push(ledger.used);
    from = next;
  }
  return { calls: spent.length, spent, warmed, unpaid };
}

describe('a warm of MAX_WARM_URLS, paced', () => {
  it('is 40 calls at the shield, each within its budget and the six connections, every object once', async () => {
    const run = await wholeWarm(MAX_WARM_URLS, 'shield', PAID_SUBREQUESTS.value, () => MIB);
    expect(run.calls).toBe(Math.ceil(MAX_WARM_URLS / WARM_URLS_PER_CALL));
    expect(run.warmed.every((count) => count === 1)).toBe(true);
    expect(Math.max(...run.spent)).toBe(WARM_URLS_PER_CALL * SHIELD_WARM_COST);
    expect(WARM_CONCURRENCY.shield).toBe(SIMULTANEOUS_CONNECTIONS.value);
  });

  it('fits Workers Free: more calls, each within 50 subrequests', async () => {
    const run = await wholeWarm(MAX_WARM_URLS, 'shield', 50, () => MIB);
    expect(run.calls).toBe(Math.ceil(MAX_WARM_URLS / 34));
    expect(run.warmed.every((count) => count === 1)).toBe(true);
  });

  it('warming both tiers, pays each edge read by its slices and ends when a call cannot, every object warmed', async () => {
    fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 2_000 * MIB }), { minLength: 1, maxLength: 400 }),
        fc.constantFrom(50, 1_000, PAID_SUBREQUESTS.value),
        fc.nat({ max: 20 }),
        async (sizes, limit, listCost) => {
          fc.pre(listCost < WarmLedger.forCall(limit, 0, () => 0).subrequests);
          const run = await wholeWarm(sizes.length, 'both', limit, (i) => sizes[i] ?? 0, listCost);
          // Every object at least once; again only when a call ended on a deferral while it was in flight.
          expect(run.warmed.every((count) => count >= 1 && count <= 1 + WARM_CONCURRENCY.both)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('says an object no call can read at the edge cannot be, rather than put it off for ever', async () => {
    const run = await wholeWarm(3, 'both', 50, (i) => (i === 1 ? 100 * 8 * MIB : MIB));
    expect(run.unpaid).toBe(1);
    expect(run.warmed).toEqual([1, 1, 1]);
  });
});
