import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_WINDOW_MINUTES,
  expired,
  inWindow,
  MAX_WINDOW_MINUTES,
  MINUTE_MS,
  minuteOf,
  windowLength,
  windowMinuteStarts,
} from '../../../shared/stats/stats-window.ts';

const NOW = Date.parse('2026-02-03T14:37:21.500Z');
const MINUTE = Date.parse('2026-02-03T14:37:00Z');

describe('the stats window', () => {
  it('puts a time in the minute that holds it (UTC)', () => {
    expect(minuteOf(NOW)).toBe(MINUTE);
    expect(minuteOf(MINUTE)).toBe(MINUTE);
    expect(minuteOf(MINUTE - 1)).toBe(MINUTE - MINUTE_MS);
  });

  it("is the last windowMinutes minutes, oldest first, ending with now's", () => {
    expect(windowMinuteStarts(NOW, 3)).toEqual([MINUTE - 2 * MINUTE_MS, MINUTE - MINUTE_MS, MINUTE]);
  });

  it('takes a window of 1 minute to a day, the default for one that is no number', () => {
    expect([0, -5, 1.9, 60, 10 ** 9, Number.NaN, Number.POSITIVE_INFINITY].map(windowLength)).toEqual([
      1,
      1,
      1,
      60,
      MAX_WINDOW_MINUTES,
      DEFAULT_WINDOW_MINUTES,
      DEFAULT_WINDOW_MINUTES,
    ]);
  });

  it('expires exactly the minutes before the window', () => {
    expect(expired(MINUTE - 59 * MINUTE_MS, NOW, 60)).toBe(false);
    expect(expired(MINUTE - 60 * MINUTE_MS, NOW, 60)).toBe(true);
    expect(expired(MINUTE + MINUTE_MS, NOW, 60)).toBe(false);
    expect(inWindow(MINUTE + MINUTE_MS, NOW, 60)).toBe(false);
    expect(inWindow(MINUTE, NOW, 60)).toBe(true);
  });

  it("agrees with itself: the window's minutes are the ones in it, whatever now and length", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 45 }),
        fc.integer({ min: -5, max: 200 }),
        fc.integer({ min: -300, max: 300 }),
        (now, length, offset) => {
          const minutes = windowMinuteStarts(now, length);
          expect(minutes).toHaveLength(windowLength(length));
          const minute = minuteOf(now) + offset * MINUTE_MS;
          expect(inWindow(minute, now, length)).toBe(minutes.includes(minute));
          expect(expired(minute, now, length)).toBe(minute < (minutes[0] ?? 0));
        },
      ),
    );
  });
});
