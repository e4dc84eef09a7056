// When a late first byte is hedged and how many may be (shield/origin/hedge-policy.ts): the wait learnt from recent
// first bytes within its floor and ceiling, and the two caps, a share of requests and a budget of bytes.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  answerBytes,
  type HedgeLimits,
  HedgePolicy,
  hedgeLimits,
  loserCharge,
  worthHedging,
} from '../../../shield/origin/hedge-policy.ts';

const LIMITS: HedgeLimits = {
  percentile: 0.95,
  medianFactor: Number.POSITIVE_INFINITY,
  window: 20,
  minSamples: 10,
  floorMs: 20,
  ceilingMs: 500,
  requestShare: 0.25,
  requestBurst: 2,
  byteShare: 0.02,
  byteAllowance: 1000,
  byteBank: 10_000,
};

const policy = (limits: Partial<HedgeLimits> = {}): HedgePolicy => new HedgePolicy({ ...LIMITS, ...limits });

describe('hedgeLimits', () => {
  it('waits at most 1 s, and at most half of ORIGIN_TIMEOUT_MS, never below its floor', () => {
    expect(hedgeLimits(10_000)).toMatchObject({ ceilingMs: 1_000, floorMs: 50, percentile: 0.99, medianFactor: 4 });
    expect(hedgeLimits(1_000)).toMatchObject({ ceilingMs: 500, floorMs: 50 });
    expect(hedgeLimits(60)).toMatchObject({ ceilingMs: 30, floorMs: 30 });
    expect(hedgeLimits(1)).toMatchObject({ ceilingMs: 1, floorMs: 1 });
  });

  it('makes limits a policy accepts', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 600_000 }), (timeout) => {
        const limits = hedgeLimits(timeout);
        expect(limits.floorMs).toBeLessThanOrEqual(limits.ceilingMs);
        expect(limits.ceilingMs).toBeLessThan(timeout + 1);
        expect(() => new HedgePolicy(limits)).not.toThrow();
      }),
    );
  });
});

describe('HedgePolicy: the wait', () => {
  it('is the ceiling until enough first bytes are known', () => {
    const learning = policy();
    for (let i = 0; i < LIMITS.minSamples - 1; i++) learning.firstByte(300);
    expect(learning.thresholdMs()).toBe(LIMITS.ceilingMs);
    learning.firstByte(300);
    expect(learning.thresholdMs()).toBe(300);
  });

  it('is the nearest-rank percentile of the samples', () => {
    const learnt = policy();
    // 1..20: the 95th percentile by nearest rank is the 19th.
    for (let ms = 1; ms <= 20; ms++) learnt.firstByte(ms * 10);
    expect(learnt.thresholdMs()).toBe(190);
  });

  it('is held within its floor and ceiling', () => {
    const fast = policy();
    for (let i = 0; i < 20; i++) fast.firstByte(1);
    expect(fast.thresholdMs()).toBe(20);
    const slow = policy();
    for (let i = 0; i < 20; i++) slow.firstByte(5_000);
    expect(slow.thresholdMs()).toBe(500);
  });

  it('forgets first bytes older than its window', () => {
    const learnt = policy();
    for (let i = 0; i < 20; i++) learnt.firstByte(400);
    expect(learnt.thresholdMs()).toBe(400);
    for (let i = 0; i < 20; i++) learnt.firstByte(40);
    expect(learnt.thresholdMs()).toBe(40);
  });

  it('ignores a sample that is no time', () => {
    const learnt = policy({ minSamples: 1 });
    learnt.firstByte(Number.NaN);
    learnt.firstByte(-5);
    learnt.firstByte(Number.POSITIVE_INFINITY);
    // None counted: still the ceiling, as before any first byte.
    expect(learnt.thresholdMs()).toBe(LIMITS.ceilingMs);
  });

  it('is always within floor and ceiling, whatever the samples (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1e6, noNaN: true }), { maxLength: 60 }), (samples) => {
        const learnt = policy();
        for (const ms of samples) learnt.firstByte(ms);
        const wait = learnt.thresholdMs();
        expect(wait).toBeGreaterThanOrEqual(LIMITS.floorMs);
        expect(wait).toBeLessThanOrEqual(LIMITS.ceilingMs);
        // At least `percentile` of the window's samples are at or below a wait that is not the ceiling's.
        const window = samples.slice(-LIMITS.window);
        if (window.length >= LIMITS.minSamples && wait > LIMITS.floorMs && wait < LIMITS.ceilingMs)
          expect(window.filter((ms) => ms <= wait).length / window.length).toBeGreaterThanOrEqual(LIMITS.percentile);
      }),
    );
  });

  it('refuses limits that contradict themselves', () => {
    expect(() => policy({ floorMs: 600 })).toThrow(RangeError);
    expect(() => policy({ percentile: 0 })).toThrow(RangeError);
    expect(() => policy({ window: 0 })).toThrow(RangeError);
  });
});

describe('HedgePolicy: the share of requests', () => {
  it('starts with its burst, then allows one hedge per 1/share requests', () => {
    const capped = policy({ byteAllowance: 1e12, byteBank: 1e12 });
    expect(capped.take()).toBe(true);
    expect(capped.take()).toBe(true);
    expect(capped.take()).toBe(false);
    for (let i = 0; i < 3; i++) capped.asked();
    expect(capped.take()).toBe(false);
    capped.asked();
    expect(capped.take()).toBe(true);
  });

  it('never banks more than its burst', () => {
    const capped = policy({ byteAllowance: 1e12, byteBank: 1e12 });
    for (let i = 0; i < 100; i++) capped.asked();
    expect([capped.take(), capped.take(), capped.take()]).toEqual([true, true, false]);
  });

  it('hedges at most burst + share × requests (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 400 }), (tries) => {
        const capped = policy({ byteAllowance: 1e12, byteBank: 1e12 });
        let hedges = 0;
        for (const tryHedge of tries) {
          capped.asked();
          if (tryHedge && capped.take()) hedges += 1;
        }
        expect(hedges).toBeLessThanOrEqual(LIMITS.requestBurst + LIMITS.requestShare * tries.length + 1e-9);
      }),
    );
  });
});

describe('HedgePolicy: the byte budget', () => {
  it('refuses a hedge once the losers cost its allowance, until answers earn it back', () => {
    const budget = policy({ requestBurst: 100 });
    expect(budget.take()).toBe(true);
    budget.lost(1000);
    expect(budget.byteBalance()).toBe(0);
    expect(budget.take()).toBe(false);
    budget.served(100);
    expect(budget.byteBalance()).toBe(2);
    expect(budget.take()).toBe(true);
  });

  it('banks at most byteBank, and ignores nonsense', () => {
    const budget = policy();
    budget.served(1e9);
    expect(budget.byteBalance()).toBe(10_000);
    budget.served(Number.NaN);
    budget.lost(-5);
    budget.lost(Number.NaN);
    expect(budget.byteBalance()).toBe(10_000);
  });

  it('charges losers at most allowance + share × served + one loser (a whole slice, at most) (property)', () => {
    const slice = 8 * 1024 * 1024;
    const step = fc.record({
      served: fc.integer({ min: 0, max: 5_000_000 }),
      charge: fc.integer({ min: 0, max: slice }),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 300 }), (steps) => {
        const budget = policy({ requestBurst: 1e9, byteAllowance: 100_000, byteBank: 1e12 });
        let served = 0;
        let charged = 0;
        for (const { served: bytes, charge } of steps) {
          budget.served(bytes);
          served += bytes;
          if (budget.take()) {
            budget.lost(charge);
            charged += charge;
          }
        }
        expect(charged).toBeLessThanOrEqual(100_000 + LIMITS.byteShare * served + slice + 1e-6);
      }),
    );
  });
});

describe('the median factor', () => {
  it('waits at most four times the median first byte, however many answers are slow', () => {
    const policy = new HedgePolicy(hedgeLimits(10_000));
    // An endpoint slow on a fifth of its answers, those not hedged among the samples: p99 is a slow one's 440 ms.
    for (let i = 0; i < 100; i++) policy.firstByte(i % 5 === 4 ? 440 : 40);
    expect(policy.thresholdMs()).toBe(160);
  });

  it('waits for the percentile when the answers are all alike', () => {
    const policy = new HedgePolicy(hedgeLimits(10_000));
    for (let i = 0; i < 100; i++) policy.firstByte(100 + (i % 10));
    expect(policy.thresholdMs()).toBe(109);
  });
});

describe('worthHedging', () => {
  it('hedges a first read and a short slice, never a long slice of a known version', () => {
    expect(worthHedging({ range: 'bytes=0-8388607' })).toBe(true);
    expect(worthHedging({ 'if-match': '"v1"', range: 'bytes=0-2097151' })).toBe(true);
    expect(worthHedging({ 'if-match': '"v1"', range: 'bytes=8388608-16777215' })).toBe(false);
    expect(worthHedging({ 'if-match': '"v1"' })).toBe(true);
  });
});

describe('answerBytes and loserCharge', () => {
  it("counts an answer's declared body, none for a HEAD or an undeclared length", () => {
    const answer = (headers: Record<string, string>): Response => new Response('x'.repeat(10), { headers });
    expect(answerBytes('GET', answer({ 'content-length': '10' }))).toBe(10);
    expect(answerBytes('HEAD', answer({ 'content-length': '10' }))).toBe(0);
    expect(answerBytes('GET', answer({}))).toBe(0);
    expect(answerBytes('GET', answer({ 'content-length': 'ten' }))).toBe(0);
    expect(answerBytes('GET', new Response(null, { status: 304 }))).toBe(0);
  });

  it('charges a cancelled loser a round trip of bytes at most, never more than the answer', () => {
    expect(loserCharge(10, false)).toBe(10);
    expect(loserCharge(10 * 1024 * 1024, false)).toBe(16 * 1024);
    expect(loserCharge(-1, false)).toBe(0);
    // A hedge that lost went to an endpoint answering well: it may have sent all of it.
    expect(loserCharge(10 * 1024 * 1024, true)).toBe(10 * 1024 * 1024);
    expect(loserCharge(-1, true)).toBe(0);
  });
});
