import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Parallelism } from '../../../shared/slices/parallelism.ts';

const MIB = 1024 * 1024;

/**
 * A download whose link gives `rate(level)` bytes per ms at each parallelism: completes slices one at a time at that
 * pace.
 */
function run(
  parallelism: Parallelism,
  clock: { now: number },
  rate: (level: number) => number,
  slices: number,
): number[] {
  const levels: number[] = [];
  for (let i = 0; i < slices; i++) {
    const level = parallelism.limit;
    levels.push(level);
    // With `level` slices in flight at `rate(level)` in all, one completes every SLICE / rate ms.
    clock.now += (8 * MIB) / rate(level);
    parallelism.completed(8 * MIB);
  }
  return levels;
}

describe('a download’s parallelism', () => {
  it('starts where it is told, within its bounds', () => {
    expect(new Parallelism({ start: 16, min: 2, max: 32, now: () => 0 }).limit).toBe(16);
    expect(new Parallelism({ start: 16, min: 2, max: 8, now: () => 0 }).limit).toBe(8);
    expect(new Parallelism({ start: 1, min: 2, max: 8, now: () => 0 }).limit).toBe(2);
  });

  it('grows, one more per slice completed, while each round moves its bytes faster', () => {
    const clock = { now: 0 };
    const parallelism = new Parallelism({ start: 4, min: 2, max: 64, now: () => clock.now });
    // A link that scales without bound: every slice in flight adds its 25 MB/s.
    const levels = run(parallelism, clock, (level) => level * 25_000, 80);
    expect(levels.slice(0, 5)).toEqual([4, 5, 6, 7, 8]);
    expect(parallelism.limit).toBe(64);
  });

  it('stops growing, and steps back to where the round began, once a round gains less than a tenth (GAIN)', () => {
    const clock = { now: 0 };
    const parallelism = new Parallelism({ start: 4, min: 2, max: 64, now: () => clock.now });
    // A link that gives 100 MB/s in all, however many slices share it.
    run(parallelism, clock, () => 100_000, 60);
    const held = parallelism.limit;
    expect(held).toBeLessThan(64);
    run(parallelism, clock, () => 100_000, 30);
    expect(parallelism.limit).toBe(held);
  });

  it('steps back to where the fastest round began, not to the twice as many the next round began with', () => {
    const clock = { now: 0 };
    const parallelism = new Parallelism({ start: 4, min: 2, max: 64, now: () => clock.now });
    // Four in flight already take all the link gives: the round that began at 8 (one more per completion) gained
    // nothing, and the slices past four would only share the link, each arriving later.
    run(parallelism, clock, () => 100_000, 12);
    expect(parallelism.limit).toBe(4);
    // Where a round did gain, it holds the level of that round.
    const scaling = new Parallelism({ start: 4, min: 2, max: 64, now: () => clock.now });
    run(scaling, clock, (level) => Math.min(level, 8) * 25_000, 40);
    expect(scaling.limit).toBe(8);
  });

  it('halves on a slice that failed (or an origin asking to slow down), never under its floor, and grows no more', () => {
    const clock = { now: 0 };
    const parallelism = new Parallelism({ start: 16, min: 2, max: 64, now: () => clock.now });
    parallelism.backOff();
    expect(parallelism.limit).toBe(8);
    parallelism.backOff();
    parallelism.backOff();
    parallelism.backOff();
    expect(parallelism.limit).toBe(2);
    run(parallelism, clock, (level) => level * 25_000, 20);
    expect(parallelism.limit).toBe(2);
  });

  it('stays within its bounds, whatever the link does', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 1, max: 64 }),
        fc.array(fc.oneof(fc.double({ min: 1, max: 1e6, noNaN: true }), fc.constant(-1)), { maxLength: 200 }),
        (start, max, steps) => {
          const clock = { now: 0 };
          const parallelism = new Parallelism({ start, min: 2, max, now: () => clock.now });
          for (const step of steps) {
            if (step < 0) parallelism.backOff();
            else {
              clock.now += step;
              parallelism.completed(MIB);
            }
            expect(parallelism.limit).toBeGreaterThanOrEqual(Math.min(2, Math.max(2, max)));
            expect(parallelism.limit).toBeLessThanOrEqual(Math.max(2, max));
          }
        },
      ),
    );
  });
});
