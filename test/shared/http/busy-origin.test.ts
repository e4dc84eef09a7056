import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BUSY_RETRIES,
  backoffMs,
  busyWait,
  clientRetryAfter,
  isBusy,
  retryAfterMs,
} from '../../../shared/http/busy-origin.ts';

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);

describe('retryAfterMs (RFC 9110 §10.2.3)', () => {
  it('reads delay-seconds and HTTP-dates', () => {
    expect(retryAfterMs('2', NOW)).toBe(2000);
    expect(retryAfterMs(' 0 ', NOW)).toBe(0);
    expect(retryAfterMs('Tue, 01 Dec 2026 12:00:03 GMT', NOW)).toBe(3000);
    expect(retryAfterMs('Tue, 01 Dec 2026 11:00:00 GMT', NOW)).toBe(0);
  });

  it('reads nothing else', () => {
    for (const value of [null, '', '-1', '1.5', 'soon', '2026-12-01T12:00:03Z'])
      expect(retryAfterMs(value, NOW), String(value)).toBeUndefined();
  });

  it('never throws and never answers a negative wait (property)', () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        const ms = retryAfterMs(value, NOW);
        expect(ms === undefined || ms >= 0).toBe(true);
      }),
    );
  });
});

describe('busyWait', () => {
  it('waits as the origin says, within the deadline and the tries', () => {
    expect(busyWait(1, '1', NOW, NOW + 10_000)).toBe(1000);
    expect(busyWait(1, '30', NOW, NOW + 10_000)).toBeUndefined();
    expect(busyWait(BUSY_RETRIES + 1, '0', NOW, NOW + 10_000)).toBeUndefined();
  });

  it('backs off on its own when the origin names no wait', () => {
    const waits = [1, 2, 3].map((retry) => busyWait(retry, null, NOW, NOW + 60_000));
    expect(waits).toEqual([250, 500, 1000]);
  });

  it('knows which statuses mean busy', () => {
    expect([429, 503].every(isBusy)).toBe(true);
    expect([500, 502, 504, 404].some(isBusy)).toBe(false);
  });
});

describe('backoffMs', () => {
  const bounds = { baseMs: 1_000, maxMs: 10_000 };

  it('doubles in a row from the base, jittered between half and all of it, and stops at the cap', () => {
    expect(backoffMs(1, bounds, undefined, () => 1)).toBe(1_000);
    expect(backoffMs(1, bounds, undefined, () => 0)).toBe(500);
    expect(backoffMs(3, bounds, undefined, () => 1)).toBe(4_000);
    expect(backoffMs(30, bounds, undefined, () => 1)).toBe(10_000);
  });

  it('heeds a longer Retry-After up to the cap', () => {
    expect(backoffMs(1, bounds, 3_000, () => 1)).toBe(3_000);
    expect(backoffMs(1, bounds, 120_000, () => 1)).toBe(10_000);
  });

  it('is never past the cap nor below half the base (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000 }),
        fc.option(fc.integer({ min: 0, max: 1e9 }), { nil: undefined }),
        fc.double({ min: 0, max: 0.999_999, noNaN: true }),
        (inRow, retryAfter, random) => {
          const ms = backoffMs(inRow, bounds, retryAfter, () => random);
          expect(ms).toBeLessThanOrEqual(bounds.maxMs);
          expect(ms).toBeGreaterThanOrEqual(bounds.baseMs / 2);
        },
      ),
    );
  });
});

describe('clientRetryAfter', () => {
  it("is the origin's Retry-After in whole seconds, from 1 to 5", () => {
    expect(clientRetryAfter('120', 0)).toBe('5');
    expect(clientRetryAfter('2', 0)).toBe('2');
    expect(clientRetryAfter('0', 0)).toBe('1');
    expect(clientRetryAfter(null, 0)).toBe('1');
    expect(clientRetryAfter('soon', 0)).toBe('1');
  });
});
