import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FLOOR_BYTES_PER_SEC, moveDeadlineMs } from '../../../shared/slices/move-deadline.ts';

describe('moveDeadlineMs', () => {
  it('gives a slice its silence bound plus its length at 1 MiB/s', () => {
    expect(FLOOR_BYTES_PER_SEC).toBe(1024 * 1024);
    expect(moveDeadlineMs(8 * 1024 * 1024, 10_000)).toBe(18_000);
    expect(moveDeadlineMs(0, 300)).toBe(300);
    expect(moveDeadlineMs(1, 300)).toBe(301);
  });

  it('grows with the length and the bound, and is never under the bound', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 }),
        fc.integer({ min: 0, max: 2 ** 31 }),
        fc.integer({ min: 0, max: 600_000 }),
        (a, b, idle) => {
          const [short, long] = a <= b ? [a, b] : [b, a];
          expect(moveDeadlineMs(short, idle)).toBeLessThanOrEqual(moveDeadlineMs(long, idle));
          expect(moveDeadlineMs(short, idle)).toBeGreaterThanOrEqual(idle);
        },
      ),
    );
  });
});
