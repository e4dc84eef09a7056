// HeldPool (shared/tier/held-pool.ts): what the bodies held until whole hold in all, in one isolate.

import { describe, expect, it } from 'vitest';
import { HELD_POOL_BYTES, HeldPool, isolateHeldPool } from '../../../shared/tier/held-pool.ts';
import { HOLD_BYTES } from '../../../shared/tier/held-until-whole.ts';

describe('HeldPool', () => {
  it('grants bytes up to its limit, and not one more', () => {
    const pool = new HeldPool(100);
    expect(pool.take(60)).toBe(true);
    expect(pool.take(40)).toBe(true);
    expect(pool.take(1)).toBe(false);
    expect(pool.inUse).toBe(100);
  });

  it('takes nothing when it refuses', () => {
    const pool = new HeldPool(100);
    pool.take(90);
    expect(pool.take(20)).toBe(false);
    expect(pool.inUse).toBe(90);
    expect(pool.take(10)).toBe(true);
  });

  it('grants again what was given back', () => {
    const pool = new HeldPool(100);
    pool.take(100);
    pool.giveBack(30);
    expect(pool.inUse).toBe(70);
    expect(pool.take(30)).toBe(true);
    expect(pool.take(1)).toBe(false);
  });

  it('never counts below nothing, whatever is given back', () => {
    const pool = new HeldPool(100);
    pool.take(10);
    pool.giveBack(Number.POSITIVE_INFINITY);
    expect(pool.inUse).toBe(0);
    expect(pool.take(100)).toBe(true);
  });

  it("the isolate's pool holds several answers of the most one may hold, and starts empty", () => {
    expect(isolateHeldPool.limit).toBe(HELD_POOL_BYTES);
    expect(HELD_POOL_BYTES / HOLD_BYTES).toBeGreaterThanOrEqual(8);
    expect(isolateHeldPool.inUse).toBe(0);
  });
});
