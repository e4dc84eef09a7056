import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { correctedInitialAge, freshnessLifetime, parseHttpDate, storeVerdict, varyFields, type FreshnessOptions } from '../../shared/freshness.ts';

const NO_STALE = { whileRevalidate: 0, ifError: 0, mustRevalidate: false };

const NOW = Date.parse('2026-09-01T12:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** IMF-fixdate (RFC 9110 §5.6.7) for a ms epoch. */
const httpDate = (ms: number): string => new Date(ms).toUTCString();

const noDefault: FreshnessOptions = { defaultTtl: 0, now: NOW };
const withDefault: FreshnessOptions = { defaultTtl: 3600, now: NOW };

function headers(init: Record<string, string>): Headers {
  return new Headers(init);
}

describe('storeVerdict', () => {
  it('stores a 200 with max-age for that many seconds', () => {
    expect(storeVerdict(200, headers({ 'cache-control': 'max-age=60' }), noDefault)).toEqual({ store: true, lifetime: 60, stale: NO_STALE });
  });

  it('does not store statuses other than 200, 404 and 410, even with explicit freshness', () => {
    for (const status of [201, 204, 206, 301, 304, 500, 503]) {
      expect(storeVerdict(status, headers({ 'cache-control': 'max-age=60' }), withDefault), String(status)).toEqual({ store: false, reason: `status ${status}` });
    }
  });

  it('does not store a response marked no-store (RFC 9111 §3)', () => {
    expect(storeVerdict(200, headers({ 'cache-control': 'max-age=60, no-store' }), withDefault)).toEqual({ store: false, reason: 'no-store' });
  });

  it('does not store a response marked private (RFC 9111 §3, §5.2.2.7)', () => {
    expect(storeVerdict(200, headers({ 'cache-control': 'private, max-age=60' }), withDefault)).toEqual({ store: false, reason: 'private' });
  });

  it('does not store a response marked private even for named fields only', () => {
    expect(storeVerdict(200, headers({ 'cache-control': 'private="x-user", s-maxage=60' }), withDefault)).toEqual({ store: false, reason: 'private' });
  });

  it('recognises no-store and private whatever their case (RFC 9111 §5.2)', () => {
    expect(storeVerdict(200, headers({ 'cache-control': 'No-Store' }), withDefault)).toMatchObject({ store: false, reason: 'no-store' });
    expect(storeVerdict(200, headers({ 'cache-control': 'PRIVATE' }), withDefault)).toMatchObject({ store: false, reason: 'private' });
  });

  it("does not store a response that sets a cookie, so one client's cookie never reaches another", () => {
    expect(storeVerdict(200, headers({ 'cache-control': 'public, max-age=60', 'set-cookie': 'session=abc' }), withDefault)).toEqual({ store: false, reason: 'set-cookie' });
  });

  it('does not store a response with Vary: *, which never matches a later request (RFC 9111 §4.1)', () => {
    expect(storeVerdict(200, headers({ 'cache-control': 'max-age=60', vary: '*' }), withDefault)).toEqual({ store: false, reason: 'vary-star' });
    expect(storeVerdict(200, headers({ 'cache-control': 'max-age=60', vary: 'Accept-Encoding, *' }), withDefault)).toEqual({ store: false, reason: 'vary-star' });
  });

  it('stores a response that varies on named fields', () => {
    expect(storeVerdict(200, headers({ 'cache-control': 'max-age=60', vary: 'Accept-Encoding' }), withDefault)).toEqual({ store: true, lifetime: 60, stale: NO_STALE });
  });

  it('stores a response marked no-cache, which only has to be revalidated before reuse (RFC 9111 §5.2.2.4)', () => {
    // Fresh for no time, and never served stale: revalidated before every use.
    expect(storeVerdict(200, headers({ 'cache-control': 'no-cache, max-age=60', etag: '"v"' }), noDefault)).toEqual({ store: true, lifetime: 0, stale: { whileRevalidate: 0, ifError: 0, mustRevalidate: true } });
    expect(storeVerdict(200, headers({ 'cache-control': 'no-cache, max-age=60' }), noDefault)).toEqual({ store: false, reason: 'no-cache without validator' });
  });

  it('does not store a response that is fresh for zero seconds', () => {
    expect(storeVerdict(200, headers({ 'cache-control': 'max-age=0' }), withDefault)).toEqual({ store: false, reason: 'no-freshness' });
    expect(storeVerdict(200, headers({ 'cache-control': 's-maxage=0, max-age=600' }), withDefault)).toEqual({ store: false, reason: 'no-freshness' });
    expect(storeVerdict(200, headers({ expires: httpDate(NOW - HOUR), date: httpDate(NOW) }), withDefault)).toEqual({ store: false, reason: 'no-freshness' });
  });

  it('does not store a response without freshness information when no default is configured', () => {
    expect(storeVerdict(200, headers({ 'content-type': 'text/plain' }), noDefault)).toEqual({ store: false, reason: 'no-freshness' });
  });

  it('stores a response without freshness information for the configured default', () => {
    expect(storeVerdict(200, headers({ 'content-type': 'text/plain' }), withDefault)).toEqual({ store: true, lifetime: 3600, stale: NO_STALE });
  });
});

describe('freshnessLifetime', () => {
  it('prefers s-maxage over max-age in a shared cache (RFC 9111 §4.2.1, §5.2.2.10)', () => {
    expect(freshnessLifetime(headers({ 'cache-control': 'max-age=60, s-maxage=600' }), noDefault)).toBe(600);
    expect(freshnessLifetime(headers({ 'cache-control': 'max-age=600, s-maxage=60' }), noDefault)).toBe(60);
  });

  it('prefers max-age over Expires (RFC 9111 §5.3: "the Expires field MUST be ignored")', () => {
    const h = headers({ 'cache-control': 'max-age=60', expires: httpDate(NOW + DAY), date: httpDate(NOW) });
    expect(freshnessLifetime(h, withDefault)).toBe(60);
  });

  it('uses Expires minus Date without max-age (RFC 9111 §4.2.1)', () => {
    const h = headers({ expires: httpDate(NOW + 2 * HOUR), date: httpDate(NOW - HOUR) });
    expect(freshnessLifetime(h, withDefault)).toBe(3 * 3600);
  });

  it('measures Expires from now when the response has no Date (RFC 9110 §6.6.1)', () => {
    expect(freshnessLifetime(headers({ expires: httpDate(NOW + HOUR) }), noDefault)).toBe(3600);
  });

  it('gives no freshness to a response whose Expires is already past', () => {
    expect(freshnessLifetime(headers({ expires: httpDate(NOW - HOUR), date: httpDate(NOW) }), withDefault)).toBe(0);
  });

  it('treats an invalid Expires, especially "0", as already expired rather than using the default (RFC 9111 §5.3)', () => {
    for (const expires of ['0', '-1', 'never', 'soon', '']) {
      expect(freshnessLifetime(headers({ expires, date: httpDate(NOW) }), withDefault), JSON.stringify(expires)).toBe(0);
    }
  });

    it('treats an Expires that is not an HTTP-date, such as ISO 8601 or a bare year, as already expired (RFC 9111 §5.3)', () => {
    for (const expires of ['2099-01-01T00:00:00Z', '2099', '3000']) {
      expect(freshnessLifetime(headers({ expires, date: httpDate(NOW) }), withDefault), expires).toBe(0);
    }
  });

  it('treats two Expires field lines as stale (RFC 9111 §4.2.1)', () => {
    const h = new Headers([['expires', httpDate(NOW + HOUR)], ['expires', httpDate(NOW + DAY)], ['date', httpDate(NOW)]]);
    expect(freshnessLifetime(h, withDefault)).toBe(0);
  });

  it('uses the configured default when the response carries no explicit freshness', () => {
    expect(freshnessLifetime(headers({ 'last-modified': httpDate(NOW - 100 * DAY) }), withDefault)).toBe(3600);
  });

  it('falls back to 10% of the time since Last-Modified without a default (RFC 9111 §4.2.2)', () => {
    const h = headers({ date: httpDate(NOW), 'last-modified': httpDate(NOW - 10 * HOUR) });
    expect(freshnessLifetime(h, noDefault)).toBe(3600);
  });

  it('caps the Last-Modified heuristic at one day', () => {
    const h = headers({ date: httpDate(NOW), 'last-modified': httpDate(NOW - 365 * DAY) });
    expect(freshnessLifetime(h, noDefault)).toBe(86_400);
  });

  it('measures the Last-Modified heuristic from now when the response has no Date', () => {
    expect(freshnessLifetime(headers({ 'last-modified': httpDate(NOW - 20 * HOUR) }), noDefault)).toBe(7200);
  });

  it('gives no heuristic freshness for a Last-Modified after Date, or an invalid one', () => {
    expect(freshnessLifetime(headers({ date: httpDate(NOW), 'last-modified': httpDate(NOW + HOUR) }), noDefault)).toBe(0);
    expect(freshnessLifetime(headers({ date: httpDate(NOW), 'last-modified': 'yesterday' }), noDefault)).toBe(0);
  });

  it('does not use the heuristic when an explicit expiration time is present (RFC 9111 §4.2.2)', () => {
    const h = headers({ expires: httpDate(NOW - HOUR), date: httpDate(NOW), 'last-modified': httpDate(NOW - 30 * DAY) });
    expect(freshnessLifetime(h, noDefault)).toBe(0);
  });

  it('is 0 without any freshness information and without a default', () => {
    expect(freshnessLifetime(headers({}), noDefault)).toBe(0);
  });

  it('accepts an already parsed Cache-Control in place of the header', () => {
    const h = headers({ 'cache-control': 'max-age=60' });
    expect(freshnessLifetime(h, noDefault, new Map([['max-age', '5']]))).toBe(5);
  });
});

describe('correctedInitialAge (RFC 9111 §4.2.3)', () => {
  it('is 0 for a response without Date or Age that arrived instantly', () => {
    expect(correctedInitialAge(headers({}), NOW, NOW)).toBe(0);
  });

  it('is the apparent age, response_time minus date_value, when that is larger', () => {
    expect(correctedInitialAge(headers({ date: httpDate(NOW - 30_000), age: '10' }), NOW - 1000, NOW)).toBe(30);
  });

  it('never has a negative apparent age when Date is ahead of our clock', () => {
    expect(correctedInitialAge(headers({ date: httpDate(NOW + HOUR) }), NOW, NOW)).toBe(0);
  });

  it('is the Age value plus the response delay when that is larger', () => {
    expect(correctedInitialAge(headers({ date: httpDate(NOW), age: '100' }), NOW - 2500, NOW)).toBe(102.5);
  });

  it('counts the response delay even without an Age field', () => {
    expect(correctedInitialAge(headers({}), NOW - 1500, NOW)).toBe(1.5);
  });

  it('never counts a negative response delay', () => {
    expect(correctedInitialAge(headers({ age: '5' }), NOW + 1000, NOW)).toBe(5);
  });

  it('ignores an Age that is negative or not a number (RFC 9111 §5.1)', () => {
    for (const age of ['-5', 'abc', '', 'Infinity', 'NaN']) {
      expect(correctedInitialAge(headers({ age }), NOW - 1000, NOW), JSON.stringify(age)).toBe(1);
    }
  });

    it('ignores an Age written as anything but digits, such as 1e3, 0x10 or 1.5 (RFC 9111 §5.1)', () => {
    for (const age of ['1e3', '0x10', '1.5', '+5']) {
      expect(correctedInitialAge(headers({ age }), NOW - 1000, NOW), age).toBe(1);
    }
  });

    it('uses the first member of a list-based Age (RFC 9111 §5.1)', () => {
    expect(correctedInitialAge(headers({ age: '10, 20' }), NOW, NOW)).toBe(10);
  });
});

describe('varyFields', () => {
  it('lists the Vary field names trimmed and lowercased', () => {
    expect(varyFields(headers({ vary: ' Accept-Encoding ,Origin,, ' }))).toEqual(['accept-encoding', 'origin']);
  });

  it('is empty without Vary', () => {
    expect(varyFields(headers({}))).toEqual([]);
  });
});

describe('parseHttpDate', () => {
  const instant = Date.UTC(1994, 10, 6, 8, 49, 37);

  it('reads all three HTTP-date formats as the same instant (RFC 9110 §5.6.7)', () => {
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(instant);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT')).toBe(instant);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994')).toBe(instant);
  });

  it('is undefined for an absent, empty or unparseable value', () => {
    expect(parseHttpDate(null)).toBeUndefined();
    expect(parseHttpDate('')).toBeUndefined();
    expect(parseHttpDate('not a date')).toBeUndefined();
    expect(parseHttpDate('Sun, 32 Nov 1994 08:49:37 GMT')).toBeUndefined();
  });
});

// --- properties ---------------------------------------------------------------------------

/** Any value a Headers object accepts: Latin-1 without CR, LF or NUL. */
const rawValue = fc.string({
  unit: fc.oneof(fc.constant('\t'), fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c))),
  maxLength: 40,
});
const dateValue = fc.date({ noInvalidDate: true }).chain((d) => fc.constantFrom(d.toUTCString(), d.toISOString(), String(d.getTime()), d.toString()));
const ccValue = fc
  .array(fc.oneof(fc.constantFrom('no-store', 'private', 'public', 'no-cache', 'max-age', 's-maxage'), rawValue).chain((name) =>
    fc.oneof(fc.constant(name), fc.oneof(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String), rawValue).map((arg) => `${name}=${arg}`)),
  ))
  .map((parts) => parts.join(', '));
const headerValue = fc.oneof(rawValue, dateValue, fc.integer().map(String), ccValue);
const responseHeaders = fc
  .record(
    {
      'cache-control': ccValue,
      expires: headerValue,
      date: headerValue,
      'last-modified': headerValue,
      age: headerValue,
      vary: headerValue,
      'set-cookie': headerValue,
    },
    { requiredKeys: [] },
  )
  .map((init) => new Headers(Object.entries(init).filter((entry): entry is [string, string] => entry[1] !== undefined)));
const options = fc.record({
  defaultTtl: fc.nat(),
  now: fc.integer({ min: -8.64e15, max: 8.64e15 }),
});

describe('freshness properties', () => {
  it('storeVerdict never throws and stores only with a positive, finite lifetime', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }), responseHeaders, options, (status, h, opts) => {
        const verdict = storeVerdict(status, h, opts);
        if (verdict.store) {
          expect(Number.isFinite(verdict.lifetime)).toBe(true);
          expect(verdict.lifetime).toBeGreaterThan(0);
        } else {
          expect(verdict.reason.length).toBeGreaterThan(0);
        }
      }),
    );
  });

  it('freshnessLifetime never throws and is never negative or NaN', () => {
    fc.assert(
      fc.property(responseHeaders, options, (h, opts) => {
        const lifetime = freshnessLifetime(h, opts);
        expect(Number.isNaN(lifetime)).toBe(false);
        expect(lifetime).toBeGreaterThanOrEqual(0);
      }),
    );
  });

  it('correctedInitialAge never throws and is never negative or NaN', () => {
    fc.assert(
      fc.property(responseHeaders, options, fc.integer({ min: -1e7, max: 1e7 }), (h, opts, delay) => {
        const age = correctedInitialAge(h, opts.now - delay, opts.now);
        expect(Number.isNaN(age)).toBe(false);
        expect(age).toBeGreaterThanOrEqual(0);
      }),
    );
  });
});
