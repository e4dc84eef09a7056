import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUSY_RETRIES, busyWait, isBusy, retryAfterMs } from '../../../shared/http/busy-origin.ts';

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
