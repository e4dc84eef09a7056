// Demand (shared/tier/slice-reader/demand.ts): what a reader earns ahead of it by reading, and nothing by stopping.

import { describe, expect, it } from 'vitest';
import { Demand, FIRST_AHEAD, FIRST_SHARE } from '../../../../shared/tier/slice-reader/demand.ts';

describe('Demand', () => {
  it('earns nothing ahead before the reader has its first slice', () => {
    expect(new Demand(() => undefined).ahead).toBe(0);
  });

  it('earns FIRST_AHEAD with a first slice from the store, and doubles with each slice taken after', () => {
    let grew = 0;
    const demand = new Demand(() => grew++);
    demand.took();
    expect(demand.ahead).toBe(FIRST_AHEAD);
    demand.took();
    demand.took();
    expect(demand.ahead).toBe(FIRST_AHEAD * 4);
    expect(grew).toBe(3);
  });

  it('earns nothing for a fetched first slice until its reader has taken FIRST_SHARE of it', () => {
    let grew = 0;
    const demand = new Demand(() => grew++);
    const taken = demand.watchFirst(1000);
    demand.took();
    expect(demand.ahead).toBe(0);
    // What a reader that stopped has taken (the network's buffers included) earns it nothing more.
    taken(1000 * FIRST_SHARE - 1);
    expect([demand.ahead, grew]).toEqual([0, 0]);
    taken(1000 * FIRST_SHARE);
    expect([demand.ahead, grew]).toEqual([FIRST_AHEAD, 1]);
    taken(1000);
    expect(grew).toBe(1);
  });

  it('earns, for a fetched first slice, by taking the second slice too (the first read whole)', () => {
    const demand = new Demand(() => undefined);
    demand.watchFirst(1000);
    demand.took();
    demand.took();
    expect(demand.ahead).toBe(FIRST_AHEAD * 2);
  });

  it('never earns more than a bounded doubling, however many slices are taken', () => {
    const demand = new Demand(() => undefined);
    for (let i = 0; i < 100; i++) demand.took();
    expect(Number.isFinite(demand.ahead)).toBe(true);
    expect(demand.ahead).toBeGreaterThanOrEqual(1024);
  });
});
