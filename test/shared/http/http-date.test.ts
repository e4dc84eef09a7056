import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatHttpDate, parseHttpDate } from '../../../shared/http/http-date.ts';

const NOV_6_1994 = Date.UTC(1994, 10, 6, 8, 49, 37);

describe('parseHttpDate (RFC 9110 §5.6.7)', () => {
  it('reads the preferred IMF-fixdate form', () => {
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(NOV_6_1994);
  });

  it('reads the obsolete RFC 850 form, placing two-digit years at most 50 years ahead', () => {
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', Date.UTC(2026, 0))).toBe(NOV_6_1994);
    expect(parseHttpDate('Monday, 01-Jan-46 00:00:00 GMT', Date.UTC(2026, 0))).toBe(Date.UTC(2046, 0, 1));
  });

  it('reads the obsolete asctime form as UTC', () => {
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994')).toBe(NOV_6_1994);
  });

  it('refuses what is not an HTTP-date, so an Expires of that kind reads as already expired', () => {
    for (const value of [
      '0',
      '2099',
      '2099-01-01T00:00:00Z',
      'Sun, 06 Nov 1994 08:49:37 PST',
      'Sun, 31 Feb 1994 08:49:37 GMT',
      'Sun, 06 Nov 1994 25:00:00 GMT',
      '',
      null,
    ]) {
      expect(parseHttpDate(value), String(value)).toBeUndefined();
    }
  });

  it('reads back every date it formats', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253_402_300_799 }), (seconds) => {
        expect(parseHttpDate(formatHttpDate(seconds * 1000))).toBe(seconds * 1000);
      }),
    );
  });

  it('matches without regard to case, as a cache recipient should (RFC 9111 §4.2)', () => {
    const expected = Date.UTC(1994, 10, 6, 8, 49, 37);
    for (const value of [
      'sun, 06 nov 1994 08:49:37 gmt',
      'SUN, 06 NOV 1994 08:49:37 GMT',
      'sunday, 06-nov-94 08:49:37 gmt',
      'sun nov  6 08:49:37 1994',
    ]) {
      expect(parseHttpDate(value), value).toBe(expected);
    }
  });

  it('never throws', () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        expect(() => parseHttpDate(value)).not.toThrow();
      }),
    );
  });
});
