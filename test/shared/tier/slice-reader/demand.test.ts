// Demand (shared/tier/slice-reader/demand.ts): what a reader earns ahead of it by reading, and nothing by stopping.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Demand, FIRST_AHEAD, GROWTH } from '../../../../shared/tier/slice-reader/demand.ts';

describe('Demand', () => {
  it('earns nothing ahead before the reader has its first slice', () => {
    expect(new Demand(() => undefined).ahead).toBe(0);
  });

  it('earns FIRST_AHEAD with the first slice in hand, and GROWTH times more for each slice taken after', () => {
    let grew = 0;
    const demand = new Demand(() => grew++);
    demand.took();
    expect(demand.ahead).toBe(FIRST_AHEAD);
    demand.took();
    expect(demand.ahead).toBe(FIRST_AHEAD * GROWTH);
    demand.took();
    expect(demand.ahead).toBe(FIRST_AHEAD * GROWTH ** 2);
    // The window hears each time, to start what the reader has earned.
    expect(grew).toBe(3);
  });

  it('earns for a slice read whole as soon as the reader asks for the next one, before that one arrives', () => {
    let grew = 0;
    const demand = new Demand(() => grew++);
    // Asking for the first slice earns nothing: nothing was read yet.
    demand.asked(0);
    expect(demand.ahead).toBe(0);
    demand.took();
    expect(demand.ahead).toBe(FIRST_AHEAD);
    // It asks for its second slice: it read the first whole, and earns what taking the second used to earn.
    demand.asked(1);
    expect(demand.ahead).toBe(FIRST_AHEAD * GROWTH);
    // Taking it earns nothing twice; asking again for an earlier position takes nothing back.
    demand.took();
    demand.asked(1);
    expect(demand.ahead).toBe(FIRST_AHEAD * GROWTH);
    // The window refills right after it asks: only a slice taken calls back.
    expect(grew).toBe(2);
  });

  it('grows only with slices taken: a reader that stops earns nothing more, and it never overflows', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200 }), (taken) => {
        const demand = new Demand(() => undefined);
        for (let i = 0; i < taken; i++) demand.took();
        const ahead = demand.ahead;
        expect(Number.isSafeInteger(ahead)).toBe(true);
        expect(ahead).toBe(taken === 0 ? 0 : FIRST_AHEAD * GROWTH ** Math.min(taken - 1, 10));
      }),
    );
  });
});
