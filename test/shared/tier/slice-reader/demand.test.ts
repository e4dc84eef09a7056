// Demand (shared/tier/slice-reader/demand.ts): what a reader earns ahead of it by reading (as it reads), and nothing by
// stopping.

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

  it('earns as the reader reads the second half of a slice, part of the way to what its end earns, and tells the window only of more', () => {
    let grew = 0;
    const demand = new Demand(() => grew++);
    // Nothing read before the first slice is in hand earns anything.
    demand.reading(0, 0.9);
    expect([demand.ahead, grew]).toEqual([0, 0]);
    demand.took();
    expect([demand.ahead, grew]).toEqual([Math.floor(FIRST_AHEAD * GROWTH ** 0.8), 1]);
    // The first half of a slice earns nothing (a reader probing a file's head, a stalled one); three quarters of it,
    // FIRST_AHEAD × √GROWTH; its end, what asking for the second earns.
    const fresh = new Demand(() => grew++);
    fresh.took();
    grew = 0;
    fresh.reading(0, 0.5);
    expect([fresh.ahead, grew]).toEqual([FIRST_AHEAD, 0]);
    fresh.reading(0, 0.75);
    expect([fresh.ahead, grew]).toEqual([Math.floor(FIRST_AHEAD * GROWTH ** 0.5), 1]);
    fresh.reading(0, 1);
    expect([fresh.ahead, grew]).toEqual([FIRST_AHEAD * GROWTH, 2]);
    // Asking for the second slice earns nothing more (it was read whole already); reading less takes nothing back.
    fresh.asked(1);
    fresh.reading(0, 0.2);
    expect([fresh.ahead, grew]).toEqual([FIRST_AHEAD * GROWTH, 2]);
  });

  it('never earns more part of the way than at the slice end it is on its way to, and never less as it reads on', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.double({ min: 0, max: 1, noNaN: true })), {
          maxLength: 40,
        }),
        (reads) => {
          const demand = new Demand(() => undefined);
          demand.took();
          let before = demand.ahead;
          for (const [position, share] of reads) {
            demand.reading(position, share);
            const ahead = demand.ahead;
            expect(ahead).toBeGreaterThanOrEqual(before);
            expect(Number.isSafeInteger(ahead)).toBe(true);
            // At most what reading every slice up to the end of this one whole would have earned.
            const furthest = Math.max(...reads.map(([at, part]) => at + part), 0);
            expect(ahead).toBeLessThanOrEqual(FIRST_AHEAD * GROWTH ** Math.min(Math.ceil(furthest), 10));
            before = ahead;
          }
        },
      ),
    );
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
