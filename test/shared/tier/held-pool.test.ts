// HeldPool (shared/tier/held-pool.ts): what the bodies held until whole hold in all, in one isolate, each its share.

import { describe, expect, it } from 'vitest';
import { HELD_POOL_BYTES, HeldPool, isolateHeldPool, STALLED_SHARE_MS } from '../../../shared/tier/held-pool.ts';
import { HOLD_BYTES } from '../../../shared/tier/held-until-whole.ts';

describe('HeldPool', () => {
  it('grants bytes up to its limit, across shares, and not one more', () => {
    const pool = new HeldPool(100);
    const [a, b] = [pool.share(), pool.share()];
    expect(a.take(60)).toBe(true);
    expect(b.take(40)).toBe(true);
    expect(a.take(1)).toBe(false);
    expect(b.take(1)).toBe(false);
    expect(pool.inUse).toBe(100);
  });

  it('takes nothing when it refuses', () => {
    const pool = new HeldPool(100);
    const share = pool.share();
    share.take(90);
    expect(share.take(20)).toBe(false);
    expect([pool.inUse, share.bytes]).toEqual([90, 90]);
    expect(share.take(10)).toBe(true);
  });

  it('grants again what a share gave back, or dropped', () => {
    const pool = new HeldPool(100);
    const [a, b] = [pool.share(), pool.share()];
    a.take(70);
    b.take(30);
    a.giveBack(30);
    expect(pool.inUse).toBe(70);
    b.drop();
    expect(pool.inUse).toBe(40);
    expect(pool.share().take(60)).toBe(true);
  });

  it('never gives back more than a share took', () => {
    const pool = new HeldPool(100);
    const [a, b] = [pool.share(), pool.share()];
    a.take(10);
    b.take(20);
    a.giveBack(Number.POSITIVE_INFINITY);
    a.drop();
    expect(pool.inUse).toBe(20);
  });

  it(`stops counting a share that has moved no byte for ${STALLED_SHARE_MS} ms (its request ended unheard), once room is wanted`, () => {
    let now = 0;
    const pool = new HeldPool(100, () => now);
    const [stalled, moving] = [pool.share(), pool.share()];
    stalled.take(60);
    moving.take(30);
    now = STALLED_SHARE_MS - 1;
    moving.giveBack(10);
    expect(pool.share().take(40), 'not yet stalled').toBe(false);
    now = STALLED_SHARE_MS;
    expect(pool.share().take(40), 'the stalled share is no longer counted').toBe(true);
    expect(pool.inUse).toBe(60);
    // What it gives back later is not taken from the others.
    stalled.drop();
    expect(pool.inUse).toBe(60);
    moving.drop();
    expect(pool.inUse).toBe(40);
  });

  it("the isolate's pool holds several answers of the most one may hold, and starts empty", () => {
    expect(isolateHeldPool.limit).toBe(HELD_POOL_BYTES);
    expect(HELD_POOL_BYTES / HOLD_BYTES).toBeGreaterThanOrEqual(8);
    expect(isolateHeldPool.inUse).toBe(0);
  });
});
