import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { correctedInitialAge } from '../../../shared/http/age.ts';
import {
  type FreshnessOptions,
  freshnessLifetime,
  HEURISTICALLY_CACHEABLE,
  parseHttpDate,
  storeVerdict,
  UNDERSTOOD_STATUSES,
} from '../../../shared/http/freshness.ts';
import { TIERCACHE_TARGETS } from '../../../shared/http/targeted-cache-control.ts';

const NO_STALE = { whileRevalidate: 0, ifError: 0, mustRevalidate: false };
const FORBIDDEN = { whileRevalidate: 0, ifError: 0, mustRevalidate: true };

const NOW = Date.parse('2026-09-01T12:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** IMF-fixdate (RFC 9110 §5.6.7) for a ms epoch. */
const httpDate = (ms: number): string => new Date(ms).toUTCString();

const noDefault: FreshnessOptions = { defaultTtl: 0, now: NOW };
const withDefault: FreshnessOptions = { defaultTtl: 3600, now: NOW };
const withNegative: FreshnessOptions = { defaultTtl: 3600, negativeTtl: 30, now: NOW };

function headers(init: Record<string, string>): Headers {
  return new Headers(init);
}

describe('storeVerdict', () => {
  const stored = (lifetime: number, stale = NO_STALE, strip: string[] = []) => ({
    store: true,
    lifetime,
    stale,
    strip,
  });

  it('stores a 200 with max-age for that many seconds', () => {
    expect(storeVerdict(200, headers({ 'cache-control': 'max-age=60' }), noDefault)).toEqual(stored(60));
  });

  it('stores any final status with explicit freshness (RFC 9111 §3: "the response status code is final")', () => {
    for (const status of [201, 202, 204, 299, 302, 303, 307, 400, 403, 418, 429, 500, 502, 503, 504, 599]) {
      expect(storeVerdict(status, headers({ 'cache-control': 'max-age=60' }), withDefault), String(status)).toEqual(
        stored(60),
      );
      expect(
        storeVerdict(status, headers({ expires: httpDate(NOW + HOUR), date: httpDate(NOW) }), withDefault),
        String(status),
      ).toEqual(stored(3600));
    }
  });

  it('does not store interim (1xx) or out-of-range statuses, which are not final (RFC 9111 §3, RFC 9110 §15)', () => {
    for (const status of [0, 99, 100, 101, 103, 199, 600, 999, -1, 200.5, Number.NaN]) {
      expect(
        storeVerdict(status, headers({ 'cache-control': 'public, max-age=60' }), withDefault),
        String(status),
      ).toEqual({ store: false, reason: `status ${status}` });
    }
  });

  it('leaves 206 and 304 to their own paths, even with explicit freshness', () => {
    for (const status of [206, 304]) {
      expect(storeVerdict(status, headers({ 'cache-control': 'public, max-age=60' }), withDefault)).toEqual({
        store: false,
        reason: `status ${status}`,
      });
    }
  });

  it('stores a heuristically cacheable status without explicit freshness for the default (RFC 9111 §4.2.2, RFC 9110 §15.1)', () => {
    for (const status of [200, 203, 204, 300, 301, 308]) {
      expect(storeVerdict(status, headers({}), withDefault), String(status)).toEqual(stored(3600));
    }
  });

  it('lists exactly the heuristically cacheable statuses of RFC 9110 §15.1', () => {
    expect([...HEURISTICALLY_CACHEABLE].sort((a, b) => a - b)).toEqual([
      200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501,
    ]);
  });

  it('does not store a status that is not heuristically cacheable without explicit freshness or public (RFC 9111 §3)', () => {
    for (const status of [201, 202, 302, 303, 307, 400, 403, 500, 502, 503]) {
      expect(
        storeVerdict(status, headers({ 'last-modified': httpDate(NOW - 10 * DAY) }), withNegative),
        String(status),
      ).toEqual({ store: false, reason: 'no-freshness' });
    }
  });

  it('gives any status with public heuristic freshness (RFC 9111 §3, §5.2.2.9)', () => {
    expect(storeVerdict(201, headers({ 'cache-control': 'public' }), withNegative)).toEqual(stored(3600));
    expect(storeVerdict(302, headers({ 'cache-control': 'public' }), withNegative)).toEqual(stored(3600));
    // An error answer takes the negative default, never the object one.
    expect(storeVerdict(500, headers({ 'cache-control': 'public' }), withNegative)).toEqual(stored(30));
    expect(storeVerdict(500, headers({ 'cache-control': 'public' }), withDefault)).toEqual({
      store: false,
      reason: 'no-freshness',
    });
  });

  it('gives heuristically cacheable errors the negative default, never the object default (RFC 9111 §4.2.2)', () => {
    for (const status of [404, 405, 410, 414, 501]) {
      expect(storeVerdict(status, headers({}), withNegative), String(status)).toEqual(stored(30));
      expect(storeVerdict(status, headers({}), withDefault), String(status)).toEqual({
        store: false,
        reason: 'no-freshness',
      });
    }
  });

  it('falls back to the Last-Modified heuristic for a status without a configured default (RFC 9111 §4.2.2)', () => {
    const h = headers({ date: httpDate(NOW), 'last-modified': httpDate(NOW - 10 * HOUR) });
    expect(storeVerdict(200, h, noDefault)).toEqual(stored(3600));
    expect(storeVerdict(404, h, noDefault)).toEqual(stored(3600));
    expect(storeVerdict(301, h, { ...noDefault, defaultTtl: 0, negativeTtl: 0 })).toEqual(stored(3600));
  });

  it('prefers explicit freshness over the negative default for an error', () => {
    expect(storeVerdict(404, headers({ 'cache-control': 'max-age=5' }), withNegative)).toEqual(stored(5));
  });

  it('does not apply the default stale windows to 4xx/5xx answers', () => {
    const options: FreshnessOptions = { ...withNegative, staleDefaults: { whileRevalidate: 60, ifError: 600 } };
    expect(storeVerdict(200, headers({ 'cache-control': 'max-age=5' }), options)).toEqual(
      stored(5, { whileRevalidate: 60, ifError: 600, mustRevalidate: false }),
    );
    expect(storeVerdict(404, headers({ 'cache-control': 'max-age=5' }), options)).toEqual(stored(5));
    expect(storeVerdict(503, headers({ 'cache-control': 'max-age=5' }), options)).toEqual(stored(5));
    // The response's own windows still apply.
    expect(storeVerdict(404, headers({ 'cache-control': 'max-age=5, stale-if-error=9' }), options)).toEqual(
      stored(5, { ...NO_STALE, ifError: 9 }),
    );
  });

  it('does not store a response marked no-store (RFC 9111 §3)', () => {
    expect(storeVerdict(200, headers({ 'cache-control': 'max-age=60, no-store' }), withDefault)).toEqual({
      store: false,
      reason: 'no-store',
    });
  });

  it('ignores no-store with must-understand for a status it understands (RFC 9111 §5.2.2.3)', () => {
    expect(storeVerdict(200, headers({ 'cache-control': 'no-store, must-understand, max-age=60' }), noDefault)).toEqual(
      stored(60),
    );
    expect(storeVerdict(404, headers({ 'cache-control': 'must-understand, no-store, max-age=60' }), noDefault)).toEqual(
      stored(60),
    );
    expect(storeVerdict(200, headers({ 'cache-control': 'must-understand' }), withDefault)).toEqual(stored(3600));
  });

  it('does not store a response with must-understand and a status RFC 9110 §15 does not define (RFC 9111 §3)', () => {
    for (const status of [299, 306, 418, 429, 451, 499, 599]) {
      expect(
        storeVerdict(status, headers({ 'cache-control': 'no-store, must-understand, max-age=60' }), withDefault),
        String(status),
      ).toEqual({ store: false, reason: 'must-understand' });
      expect(
        storeVerdict(status, headers({ 'cache-control': 'must-understand, max-age=60' }), withDefault),
        String(status),
      ).toEqual({ store: false, reason: 'must-understand' });
    }
  });

  it('understands every status RFC 9110 §15 defines, and none it leaves unused', () => {
    for (const status of [
      200, 201, 202, 203, 204, 205, 206, 300, 301, 302, 303, 304, 305, 307, 308, 400, 417, 421, 422, 426, 500, 505,
    ]) {
      expect(UNDERSTOOD_STATUSES.has(status), String(status)).toBe(true);
    }
    for (const status of [207, 226, 306, 418, 423, 429, 451, 506, 511, 599])
      expect(UNDERSTOOD_STATUSES.has(status), String(status)).toBe(false);
  });

  it('does not store a response marked private (RFC 9111 §3, §5.2.2.7)', () => {
    expect(storeVerdict(200, headers({ 'cache-control': 'private, max-age=60' }), withDefault)).toEqual({
      store: false,
      reason: 'private',
    });
  });

  it('stores a response whose private names fields, without those fields (RFC 9111 §5.2.2.7)', () => {
    expect(
      storeVerdict(200, headers({ 'cache-control': 'private="X-User, x-session", s-maxage=60' }), withDefault),
    ).toEqual(stored(60, FORBIDDEN, ['x-user', 'x-session']));
    expect(storeVerdict(200, headers({ 'cache-control': 'private=x-user, max-age=60' }), withDefault)).toEqual(
      stored(60, NO_STALE, ['x-user']),
    );
  });

  it('reads a private whose argument names no valid field as unqualified: not stored', () => {
    for (const cc of ['private="", max-age=60', 'private="a b", max-age=60', 'private=",", max-age=60']) {
      expect(storeVerdict(200, headers({ 'cache-control': cc }), withDefault), cc).toEqual({
        store: false,
        reason: 'private',
      });
    }
  });

  it('recognises no-store and private whatever their case (RFC 9111 §5.2)', () => {
    expect(storeVerdict(200, headers({ 'cache-control': 'No-Store' }), withDefault)).toMatchObject({
      store: false,
      reason: 'no-store',
    });
    expect(storeVerdict(200, headers({ 'cache-control': 'PRIVATE' }), withDefault)).toMatchObject({
      store: false,
      reason: 'private',
    });
  });

  it('does not store an answer to a request with Authorization unless must-revalidate, public or s-maxage allows it (RFC 9111 §3.5)', () => {
    const request = headers({ authorization: 'Bearer x' });
    expect(storeVerdict(200, headers({ 'cache-control': 'max-age=60' }), { ...withDefault, request })).toEqual({
      store: false,
      reason: 'authorization',
    });
    expect(storeVerdict(200, headers({}), { ...withDefault, request })).toEqual({
      store: false,
      reason: 'authorization',
    });
    expect(
      storeVerdict(200, headers({ 'cache-control': 'max-age=60, must-revalidate' }), { ...withDefault, request }),
    ).toEqual(stored(60, FORBIDDEN));
    expect(storeVerdict(200, headers({ 'cache-control': 'max-age=60, public' }), { ...withDefault, request })).toEqual(
      stored(60),
    );
    expect(storeVerdict(200, headers({ 'cache-control': 's-maxage=60' }), { ...withDefault, request })).toEqual(
      stored(60, FORBIDDEN),
    );
  });

  it('stores as usual for a request without Authorization', () => {
    expect(
      storeVerdict(200, headers({ 'cache-control': 'max-age=60' }), {
        ...withDefault,
        request: headers({ accept: '*/*' }),
      }),
    ).toEqual(stored(60));
  });

  it("does not store a response that sets a cookie, so one client's cookie never reaches another", () => {
    expect(
      storeVerdict(200, headers({ 'cache-control': 'public, max-age=60', 'set-cookie': 'session=abc' }), withDefault),
    ).toEqual({ store: false, reason: 'set-cookie' });
    // Even when no-cache names it: the stored copy is withheld altogether, not trusted to be stripped.
    expect(
      storeVerdict(
        200,
        headers({ 'cache-control': 'no-cache="set-cookie", max-age=60', 'set-cookie': 'session=abc' }),
        withDefault,
      ),
    ).toEqual({ store: false, reason: 'set-cookie' });
  });

  it('does not store a response with Vary: *, which never matches a later request (RFC 9111 §4.1)', () => {
    expect(storeVerdict(200, headers({ 'cache-control': 'max-age=60', vary: '*' }), withDefault)).toEqual({
      store: false,
      reason: 'vary-star',
    });
    expect(
      storeVerdict(200, headers({ 'cache-control': 'max-age=60', vary: 'Accept-Encoding, *' }), withDefault),
    ).toEqual({ store: false, reason: 'vary-star' });
  });

  it('stores a response that varies on named fields', () => {
    expect(storeVerdict(200, headers({ 'cache-control': 'max-age=60', vary: 'Accept-Encoding' }), withDefault)).toEqual(
      stored(60),
    );
  });

  it('stores a response marked no-cache, which only has to be revalidated before reuse (RFC 9111 §5.2.2.4)', () => {
    // Fresh for no time, and never served stale: revalidated before every use.
    expect(storeVerdict(200, headers({ 'cache-control': 'no-cache, max-age=60', etag: '"v"' }), noDefault)).toEqual(
      stored(0, FORBIDDEN),
    );
    expect(
      storeVerdict(301, headers({ 'cache-control': 'no-cache', 'last-modified': httpDate(NOW - DAY) }), noDefault),
    ).toEqual(stored(0, FORBIDDEN));
    expect(storeVerdict(200, headers({ 'cache-control': 'no-cache, max-age=60' }), noDefault)).toEqual({
      store: false,
      reason: 'no-cache without validator',
    });
    expect(storeVerdict(404, headers({ 'cache-control': 'no-cache', etag: '"v"' }), withNegative)).toEqual({
      store: false,
      reason: 'no-cache without validator',
    });
  });

  it('stores a response whose no-cache names fields, with its own freshness and without those fields (RFC 9111 §5.2.2.4)', () => {
    expect(storeVerdict(200, headers({ 'cache-control': 'no-cache="X-Token", max-age=60' }), noDefault)).toEqual(
      stored(60, NO_STALE, ['x-token']),
    );
    expect(
      storeVerdict(200, headers({ 'cache-control': 'no-cache="a, b", private="b, c", max-age=60' }), noDefault),
    ).toEqual(stored(60, NO_STALE, ['b', 'c', 'a']));
  });

  it('never stores without a field the stored bytes need: a qualified private naming one keeps the response out (RFC 9111 §5.2.2.7)', () => {
    for (const field of ['Content-Encoding', 'content-type', 'ETag', 'Content-Range']) {
      const cc = `private="x-user, ${field}", max-age=60`;
      expect(storeVerdict(200, headers({ 'cache-control': cc, etag: '"v"' }), withDefault), cc).toEqual({
        store: false,
        reason: `private="${field.toLowerCase()}"`,
      });
    }
  });

  it('keeps a field the stored bytes need that a qualified no-cache names, and revalidates before every use (RFC 9111 §5.2.2.4)', () => {
    for (const field of ['Content-Encoding', 'content-type', 'ETag', 'Content-Range']) {
      const cc = `no-cache="x-token, ${field}", max-age=60`;
      // Revalidated before every use, as unqualified no-cache; fields only a private names are still left out.
      expect(storeVerdict(200, headers({ 'cache-control': cc, etag: '"v"' }), noDefault), cc).toEqual(
        stored(0, FORBIDDEN),
      );
      expect(
        storeVerdict(200, headers({ 'cache-control': `${cc}, private="x-user"`, etag: '"v"' }), noDefault),
        cc,
      ).toEqual(stored(0, FORBIDDEN, ['x-user']));
      expect(storeVerdict(200, headers({ 'cache-control': cc }), noDefault), cc).toEqual({
        store: false,
        reason: 'no-cache without validator',
      });
    }
  });

  it('reads a no-cache whose argument names no valid field as unqualified: revalidated before every use', () => {
    expect(storeVerdict(200, headers({ 'cache-control': 'no-cache="", max-age=60', etag: '"v"' }), noDefault)).toEqual(
      stored(0, FORBIDDEN),
    );
    expect(
      storeVerdict(200, headers({ 'cache-control': 'no-cache="a b", max-age=60', etag: '"v"' }), noDefault),
    ).toEqual(stored(0, FORBIDDEN));
  });

  it('does not store a response that is fresh for zero seconds', () => {
    expect(storeVerdict(200, headers({ 'cache-control': 'max-age=0' }), withDefault)).toEqual({
      store: false,
      reason: 'no-freshness',
    });
    expect(storeVerdict(200, headers({ 'cache-control': 's-maxage=0, max-age=600' }), withDefault)).toEqual({
      store: false,
      reason: 'no-freshness',
    });
    expect(storeVerdict(200, headers({ expires: httpDate(NOW - HOUR), date: httpDate(NOW) }), withDefault)).toEqual({
      store: false,
      reason: 'no-freshness',
    });
  });

  it('does not fall back to the default when max-age is invalid: the response is stale (RFC 9111 §4.2.1)', () => {
    for (const cc of ['max-age=abc', 'max-age=-1', 'max-age=1.5', 'max-age', 's-maxage=x, max-age=60']) {
      expect(storeVerdict(200, headers({ 'cache-control': cc }), withDefault), cc).toEqual({
        store: false,
        reason: 'no-freshness',
      });
    }
  });

  it('does not store a response without freshness information when no default is configured', () => {
    expect(storeVerdict(200, headers({ 'content-type': 'text/plain' }), noDefault)).toEqual({
      store: false,
      reason: 'no-freshness',
    });
    expect(storeVerdict(200, headers({}), { now: NOW })).toEqual({ store: false, reason: 'no-freshness' });
  });

  it('stores a response without freshness information for the configured default', () => {
    expect(storeVerdict(200, headers({ 'content-type': 'text/plain' }), withDefault)).toEqual(stored(3600));
  });
});

describe('storeVerdict with targeted fields (RFC 9213 §2.2)', () => {
  const targeted: FreshnessOptions = { ...withDefault, targeted: TIERCACHE_TARGETS };

  it('takes freshness from CDN-Cache-Control over Cache-Control and Expires', () => {
    const h = headers({
      'cache-control': 'max-age=10',
      'cdn-cache-control': 'max-age=600',
      expires: httpDate(NOW + DAY),
      date: httpDate(NOW),
    });
    expect(storeVerdict(200, h, targeted)).toEqual({ store: true, lifetime: 600, stale: NO_STALE, strip: [] });
  });

  it('prefers Tiercache-Cache-Control over CDN-Cache-Control', () => {
    const h = headers({ 'tiercache-cache-control': 'max-age=7', 'cdn-cache-control': 'max-age=600' });
    expect(storeVerdict(200, h, targeted)).toMatchObject({ store: true, lifetime: 7 });
  });

  it('stores a response with Cache-Control: no-store when the targeted field allows it', () => {
    expect(
      storeVerdict(200, headers({ 'cache-control': 'no-store', 'cdn-cache-control': 'max-age=600' }), targeted),
    ).toMatchObject({ store: true, lifetime: 600 });
  });

  it('obeys no-store and private in the targeted field, whatever Cache-Control says', () => {
    expect(
      storeVerdict(200, headers({ 'cache-control': 'max-age=600', 'cdn-cache-control': 'no-store' }), targeted),
    ).toEqual({ store: false, reason: 'no-store' });
    expect(
      storeVerdict(200, headers({ 'cache-control': 'max-age=600', 'cdn-cache-control': 'private' }), targeted),
    ).toEqual({ store: false, reason: 'private' });
  });

  it('ignores Expires when a targeted field is used, even without max-age in it', () => {
    const h = headers({ 'cdn-cache-control': 'public', expires: httpDate(NOW + DAY), date: httpDate(NOW) });
    expect(storeVerdict(200, h, targeted)).toMatchObject({ store: true, lifetime: 3600 });
    expect(storeVerdict(200, headers({ 'cdn-cache-control': 'max-age=60', expires: '0' }), targeted)).toMatchObject({
      store: true,
      lifetime: 60,
    });
  });

  it('falls back to Cache-Control and Expires when the targeted field is invalid (RFC 9213 §2.1)', () => {
    for (const cdn of ['max-age=600, &&&', 'max-age =600', 'MAX-AGE=600', 'max-age=600,']) {
      expect(
        storeVerdict(200, headers({ 'cache-control': 'no-store', 'cdn-cache-control': cdn }), targeted),
        cdn,
      ).toEqual({ store: false, reason: 'no-store' });
      expect(
        storeVerdict(
          200,
          headers({ expires: httpDate(NOW + 60_000), date: httpDate(NOW), 'cdn-cache-control': cdn }),
          targeted,
        ),
        cdn,
      ).toMatchObject({ store: true, lifetime: 60 });
    }
  });

  it('reads a quoted max-age in a targeted field as invalid, hence stale, not as its digits (RFC 9213 §2.1)', () => {
    expect(storeVerdict(200, headers({ 'cdn-cache-control': 'max-age="600"' }), targeted)).toEqual({
      store: false,
      reason: 'no-freshness',
    });
  });

  it('reads the Authorization allowance from the targeted field', () => {
    const request = headers({ authorization: 'Basic eA==' });
    expect(
      storeVerdict(200, headers({ 'cache-control': 'public, max-age=60', 'cdn-cache-control': 'max-age=60' }), {
        ...targeted,
        request,
      }),
    ).toEqual({ store: false, reason: 'authorization' });
    expect(
      storeVerdict(200, headers({ 'cdn-cache-control': 'public, max-age=60' }), { ...targeted, request }),
    ).toMatchObject({ store: true, lifetime: 60 });
  });

  it('takes the stale windows and their prohibitions from the targeted field', () => {
    const h = headers({
      'cache-control': 'max-age=60, must-revalidate',
      'cdn-cache-control': 'max-age=60, stale-while-revalidate=30',
    });
    expect(storeVerdict(200, h, targeted)).toMatchObject({
      stale: { whileRevalidate: 30, ifError: 0, mustRevalidate: false },
    });
  });

  it('ignores targeted fields that are not on the target list (RFC 9213 §2.2)', () => {
    expect(
      storeVerdict(200, headers({ 'cache-control': 'max-age=10', 'cdn-cache-control': 'max-age=600' }), withDefault),
    ).toMatchObject({ lifetime: 10 });
    expect(
      storeVerdict(200, headers({ 'cache-control': 'max-age=10', 'other-cache-control': 'max-age=600' }), targeted),
    ).toMatchObject({ lifetime: 10 });
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
      expect(freshnessLifetime(headers({ expires, date: httpDate(NOW) }), withDefault), JSON.stringify(expires)).toBe(
        0,
      );
    }
  });

  it('treats an Expires that is not an HTTP-date, such as ISO 8601 or a bare year, as already expired (RFC 9111 §5.3)', () => {
    for (const expires of ['2099-01-01T00:00:00Z', '2099', '3000']) {
      expect(freshnessLifetime(headers({ expires, date: httpDate(NOW) }), withDefault), expires).toBe(0);
    }
  });

  it('treats two Expires field lines as stale (RFC 9111 §4.2.1)', () => {
    const h = new Headers([
      ['expires', httpDate(NOW + HOUR)],
      ['expires', httpDate(NOW + DAY)],
      ['date', httpDate(NOW)],
    ]);
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
    expect(freshnessLifetime(headers({ date: httpDate(NOW), 'last-modified': httpDate(NOW + HOUR) }), noDefault)).toBe(
      0,
    );
    expect(freshnessLifetime(headers({ date: httpDate(NOW), 'last-modified': 'yesterday' }), noDefault)).toBe(0);
  });

  it('does not use the heuristic when an explicit expiration time is present (RFC 9111 §4.2.2)', () => {
    const h = headers({
      expires: httpDate(NOW - HOUR),
      date: httpDate(NOW),
      'last-modified': httpDate(NOW - 30 * DAY),
    });
    expect(freshnessLifetime(h, noDefault)).toBe(0);
  });

  it('is 0 without any freshness information and without a default', () => {
    expect(freshnessLifetime(headers({}), noDefault)).toBe(0);
  });

  it('makes a response with an invalid s-maxage or max-age stale rather than using a weaker source (RFC 9111 §4.2.1)', () => {
    const later = { expires: httpDate(NOW + DAY), date: httpDate(NOW), 'last-modified': httpDate(NOW - 30 * DAY) };
    for (const cc of [
      'max-age=abc',
      'max-age=-1',
      'max-age=1.5',
      'max-age=',
      'max-age',
      "max-age='3600'",
      's-maxage=soon, max-age=60',
    ]) {
      expect(freshnessLifetime(headers({ 'cache-control': cc, ...later }), withDefault), cc).toBe(0);
    }
  });

  it('uses the first of two different max-age values (RFC 9111 §4.2.1)', () => {
    expect(freshnessLifetime(headers({ 'cache-control': 'max-age=60, max-age=600' }), noDefault)).toBe(60);
    expect(
      freshnessLifetime(
        new Headers([
          ['cache-control', 'max-age=600'],
          ['cache-control', 'max-age=60'],
        ]),
        noDefault,
      ),
    ).toBe(600);
  });

  it('reads a quoted max-age as its value, as recipients "ought to accept both forms" (RFC 9111 §5.2)', () => {
    expect(freshnessLifetime(headers({ 'cache-control': 'max-age="3600"' }), noDefault)).toBe(3600);
  });

  it("is not misled by max-age inside another directive's quoted argument", () => {
    expect(freshnessLifetime(headers({ 'cache-control': 'ext="max-age=3600", max-age=1' }), noDefault)).toBe(1);
    expect(freshnessLifetime(headers({ 'cache-control': 'max-age=1, ext="max-age=3600"' }), noDefault)).toBe(1);
  });

  it('measures Expires against a skewed Date, so the skew cancels out (RFC 9111 §4.2.1)', () => {
    expect(
      freshnessLifetime(headers({ date: httpDate(NOW + DAY), expires: httpDate(NOW + DAY + HOUR) }), noDefault),
    ).toBe(3600);
    expect(
      freshnessLifetime(headers({ date: httpDate(NOW - DAY), expires: httpDate(NOW - DAY + HOUR) }), noDefault),
    ).toBe(3600);
  });

  it('measures Expires from now when Date is not an HTTP-date', () => {
    expect(freshnessLifetime(headers({ date: 'yesterday', expires: httpDate(NOW + HOUR) }), noDefault)).toBe(3600);
  });

  it('takes the freshness of the first valid targeted field and ignores Expires (RFC 9213 §2.2)', () => {
    const targeted: FreshnessOptions = { ...noDefault, targeted: TIERCACHE_TARGETS };
    expect(
      freshnessLifetime(headers({ 'cache-control': 'max-age=60', 'cdn-cache-control': 'max-age=600' }), targeted),
    ).toBe(600);
    expect(freshnessLifetime(headers({ 'cdn-cache-control': 's-maxage=5, max-age=600' }), targeted)).toBe(5);
    expect(freshnessLifetime(headers({ 'cdn-cache-control': 'public', expires: httpDate(NOW + HOUR) }), targeted)).toBe(
      0,
    );
    expect(
      freshnessLifetime(headers({ 'cdn-cache-control': 'max-age=?0', expires: httpDate(NOW + HOUR) }), targeted),
    ).toBe(0);
    expect(
      freshnessLifetime(headers({ 'cdn-cache-control': 'max-age=1.5', 'cache-control': 'max-age=60' }), targeted),
    ).toBe(0);
    expect(freshnessLifetime(headers({ 'cdn-cache-control': '', expires: httpDate(NOW + HOUR) }), targeted)).toBe(3600);
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
    expect(
      correctedInitialAge(
        new Headers([
          ['age', '30'],
          ['age', '5'],
        ]),
        NOW,
        NOW,
      ),
    ).toBe(30);
  });

  it('ignores a list-based Age whose first member is invalid (RFC 9111 §5.1)', () => {
    expect(correctedInitialAge(headers({ age: 'abc, 20' }), NOW, NOW)).toBe(0);
    expect(correctedInitialAge(headers({ age: '-1, 20' }), NOW, NOW)).toBe(0);
  });

  it('clamps a huge Age to 2^31 seconds (RFC 9111 §1.2.2)', () => {
    expect(correctedInitialAge(headers({ age: '99999999999' }), NOW, NOW)).toBe(2 ** 31);
    expect(correctedInitialAge(headers({ age: '9'.repeat(400) }), NOW, NOW)).toBe(2 ** 31);
  });

  it('counts a Date behind our clock as apparent age (RFC 9111 §4.2.3)', () => {
    expect(correctedInitialAge(headers({ date: httpDate(NOW - DAY), age: '0' }), NOW, NOW)).toBe(86_400);
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
  unit: fc.oneof(
    fc.constant('\t'),
    fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c)),
  ),
  maxLength: 40,
});
const dateValue = fc
  .date({ noInvalidDate: true })
  .chain((d) => fc.constantFrom(d.toUTCString(), d.toISOString(), String(d.getTime()), d.toString()));
const ccValue = fc
  .array(
    fc
      .oneof(
        fc.constantFrom(
          'no-store',
          'private',
          'public',
          'no-cache',
          'max-age',
          's-maxage',
          'must-understand',
          'must-revalidate',
          'stale-if-error',
        ),
        rawValue,
      )
      .chain((name) =>
        fc.oneof(
          fc.constant(name),
          fc
            .oneof(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String), rawValue)
            .map((arg) => `${name}=${arg}`),
        ),
      ),
  )
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
      'cdn-cache-control': fc.oneof(ccValue, headerValue),
      'tiercache-cache-control': fc.oneof(ccValue, headerValue),
      etag: fc.constant('"v"'),
    },
    { requiredKeys: [] },
  )
  .map(
    (init) => new Headers(Object.entries(init).filter((entry): entry is [string, string] => entry[1] !== undefined)),
  );
const options = fc.record(
  {
    defaultTtl: fc.nat(),
    negativeTtl: fc.nat(),
    now: fc.integer({ min: -8.64e15, max: 8.64e15 }),
    staleDefaults: fc.record({ whileRevalidate: fc.nat(), ifError: fc.nat() }),
    targeted: fc.constantFrom<readonly string[]>([], TIERCACHE_TARGETS, ['cdn-cache-control']),
    request: fc.constantFrom(new Headers(), new Headers({ authorization: 'Bearer x' })),
  },
  { requiredKeys: ['now'] },
);

describe('freshness properties', () => {
  it('storeVerdict never throws, stores only final statuses and only with a finite lifetime, positive unless revalidated on every use', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }), responseHeaders, options, (status, h, opts) => {
        const verdict = storeVerdict(status, h, opts);
        if (verdict.store) {
          expect(Number.isFinite(verdict.lifetime)).toBe(true);
          // Zero only for no-cache: stored to be revalidated before every use.
          if (verdict.lifetime === 0) expect(verdict.stale.mustRevalidate).toBe(true);
          else expect(verdict.lifetime).toBeGreaterThan(0);
          for (const name of verdict.strip) expect(name).toMatch(/^[a-z0-9!#$%&'*+\-.^_`|~]+$/);
          // Never without what the stored bytes need (§5.2.2.4, §5.2.2.7).
          for (const name of ['content-encoding', 'content-type', 'etag', 'content-range'])
            expect(verdict.strip).not.toContain(name);
          expect(status === 206 || status === 304 || status < 200).toBe(false);
        } else {
          expect(verdict.reason.length).toBeGreaterThan(0);
        }
      }),
    );
  });

  it('whatever fields a qualified private or no-cache names, a stored copy keeps what its bytes need (RFC 9111 §5.2.2.4, §5.2.2.7)', () => {
    const field = fc.constantFrom(
      'Content-Encoding',
      'content-type',
      'ETag',
      'content-range',
      'x-user',
      'Set-Cookie',
      'cache-control',
      'vary',
      'last-modified',
    );
    const list = fc.uniqueArray(field, { minLength: 1, maxLength: 4 }).map((fields) => `"${fields.join(', ')}"`);
    const directive = fc
      .tuple(fc.constantFrom('private', 'no-cache'), list)
      .map(([name, fields]) => `${name}=${fields}`);
    fc.assert(
      fc.property(
        fc.array(directive, { minLength: 1, maxLength: 2 }),
        fc.constantFrom('max-age=60', 's-maxage=60', ''),
        (directives, freshness) => {
          const cc = [...directives, freshness].filter(Boolean).join(', ');
          const verdict = storeVerdict(
            200,
            headers({ 'cache-control': cc, etag: '"v"', 'content-type': 'text/plain', 'content-encoding': 'gzip' }),
            withDefault,
          );
          if (!verdict.store) return;
          for (const name of ['content-encoding', 'content-type', 'etag', 'content-range'])
            expect(verdict.strip, cc).not.toContain(name);
        },
      ),
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
