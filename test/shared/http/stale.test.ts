import { describe, expect, it } from 'vitest';
import { parseCacheControl } from '../../../shared/http/cache-control.ts';
import {
  KEEP_FOR_REVALIDATION,
  retention,
  type StalePolicy,
  stalePolicy,
  staleUse,
  usableOnError,
  usableWhenDisconnected,
} from '../../../shared/http/stale.ts';
import { effectiveCacheControl, TIERCACHE_TARGETS } from '../../../shared/http/targeted-cache-control.ts';
import { RECORD_LIFETIME_MS } from '../../../shared/purge/purge-rules.ts';
import type { EntryMeta } from '../../../shared/store/stored-entry.ts';

const DEFAULTS = { whileRevalidate: 60, ifError: 86_400 };
const NOW = Date.parse('2026-09-01T12:00:00Z');
const policy = (value: string): StalePolicy => stalePolicy(parseCacheControl(value), DEFAULTS);
const FORBIDDEN: StalePolicy = { whileRevalidate: 0, ifError: 0, mustRevalidate: true };

/** An entry stored `secondsAgo` before NOW, with no age on arrival. */
function entry(secondsAgo: number, overrides: Partial<EntryMeta> = {}): EntryMeta {
  return {
    storedAt: NOW - secondsAgo * 1000,
    initialAge: 0,
    lifetime: 10,
    whileRevalidate: 5,
    ifError: 20,
    mustRevalidate: false,
    ...overrides,
  };
}

describe('stalePolicy', () => {
  it('serves stale while revalidating for the stale-while-revalidate the response gives (RFC 5861 §3)', () => {
    expect(policy('max-age=10, stale-while-revalidate=30')).toEqual({
      whileRevalidate: 30,
      ifError: 86_400,
      mustRevalidate: false,
    });
  });

  it('stands in for errors for the stale-if-error the response gives (RFC 5861 §4)', () => {
    expect(policy('max-age=10, stale-if-error=120')).toEqual({
      whileRevalidate: 60,
      ifError: 120,
      mustRevalidate: false,
    });
  });

  it('takes both windows from the response when it gives both, including zero', () => {
    expect(policy('stale-while-revalidate=0, stale-if-error=0')).toEqual({
      whileRevalidate: 0,
      ifError: 0,
      mustRevalidate: false,
    });
  });

  it('uses the configured defaults when the response says nothing about stale use', () => {
    expect(policy('max-age=10')).toEqual({ ...DEFAULTS, mustRevalidate: false });
    expect(stalePolicy(parseCacheControl(null), { whileRevalidate: 7, ifError: 8 })).toEqual({
      whileRevalidate: 7,
      ifError: 8,
      mustRevalidate: false,
    });
  });

  it('ignores a stale window with an invalid argument, so the default applies (RFC 5861 §3, §4: delta-seconds)', () => {
    expect(policy('stale-while-revalidate=soon, stale-if-error=-1')).toEqual({ ...DEFAULTS, mustRevalidate: false });
    for (const arg of ['', '1.5', '1e3', '+5', "'30'", '0x10']) {
      expect(policy(`stale-while-revalidate=${arg}, stale-if-error=${arg}`), arg).toEqual({
        ...DEFAULTS,
        mustRevalidate: false,
      });
    }
    expect(policy('stale-while-revalidate, stale-if-error')).toEqual({ ...DEFAULTS, mustRevalidate: false });
  });

  it('reads a quoted stale window as its value, as Cache-Control arguments may be quoted (RFC 9111 §5.2)', () => {
    expect(policy('stale-while-revalidate="30"')).toEqual({
      whileRevalidate: 30,
      ifError: 86_400,
      mustRevalidate: false,
    });
  });

  it('clamps a huge stale window to 2^31 seconds (RFC 9111 §1.2.2)', () => {
    expect(policy('stale-if-error=99999999999')).toEqual({
      whileRevalidate: 60,
      ifError: 2 ** 31,
      mustRevalidate: false,
    });
  });

  it('reads the windows and prohibitions of the effective (targeted) cache control it is given (RFC 9213 §2.2)', () => {
    const effective = (init: Record<string, string>) =>
      stalePolicy(effectiveCacheControl(new Headers(init), TIERCACHE_TARGETS).cc, DEFAULTS);
    expect(
      effective({ 'cache-control': 'must-revalidate', 'cdn-cache-control': 'max-age=10, stale-while-revalidate=30' }),
    ).toEqual({ whileRevalidate: 30, ifError: 86_400, mustRevalidate: false });
    expect(
      effective({ 'cache-control': 'stale-if-error=60', 'cdn-cache-control': 'max-age=10, must-revalidate' }),
    ).toEqual(FORBIDDEN);
    // A non-Integer window in a targeted field is not coerced (RFC 9213 §2.1): ignored, the default applies.
    expect(effective({ 'cdn-cache-control': 'max-age=10, stale-while-revalidate="30", stale-if-error=1.5' })).toEqual({
      ...DEFAULTS,
      mustRevalidate: false,
    });
  });

  it('forbids stale use for must-revalidate, even with stale windows (RFC 9111 §5.2.2.2)', () => {
    expect(policy('max-age=10, must-revalidate, stale-while-revalidate=30, stale-if-error=60')).toEqual(FORBIDDEN);
  });

  it('forbids stale use for proxy-revalidate in a shared cache (RFC 9111 §5.2.2.8)', () => {
    expect(policy('max-age=10, proxy-revalidate, stale-if-error=60')).toEqual(FORBIDDEN);
  });

  it('forbids stale use for s-maxage, which incorporates proxy-revalidate (RFC 9111 §5.2.2.10)', () => {
    expect(policy('s-maxage=10, stale-while-revalidate=30')).toEqual(FORBIDDEN);
  });

  it('forbids stale use for no-cache, validated before every use (RFC 9111 §5.2.2.4)', () => {
    expect(policy('no-cache, stale-if-error=60')).toEqual(FORBIDDEN);
    // An argument naming no valid field reads as unqualified no-cache.
    expect(policy('no-cache="", stale-if-error=60')).toEqual(FORBIDDEN);
  });

  it('allows stale use for a no-cache that names fields, which are never stored (RFC 9111 §5.2.2.4)', () => {
    expect(policy('no-cache="x-token", stale-if-error=60')).toEqual({
      whileRevalidate: 60,
      ifError: 60,
      mustRevalidate: false,
    });
  });

  it('recognises the forbidding directives whatever their case (RFC 9111 §5.2)', () => {
    expect(policy('Must-Revalidate')).toEqual(FORBIDDEN);
    expect(policy('S-MAXAGE=5')).toEqual(FORBIDDEN);
  });
});

describe('retention', () => {
  it('keeps an entry for its freshness left plus the keep window when its stale windows are shorter', () => {
    expect(retention(100, 40, { whileRevalidate: 60, ifError: 120, mustRevalidate: false })).toBe(
      60 + KEEP_FOR_REVALIDATION,
    );
  });

  it('keeps an entry for its freshness left plus its longest stale window when that is past the keep window', () => {
    expect(retention(100, 0, { whileRevalidate: 60, ifError: 86_400, mustRevalidate: false })).toBe(100 + 86_400);
    expect(retention(100, 0, { whileRevalidate: 10_000, ifError: 0, mustRevalidate: false })).toBe(100 + 10_000);
  });

  it('keeps an entry that forbids stale use for the keep window, so it can still be revalidated with a 304', () => {
    expect(retention(10, 0, FORBIDDEN)).toBe(10 + KEEP_FOR_REVALIDATION);
  });

  it('keeps an entry for at least one second, even when it arrived far older than every window', () => {
    expect(retention(0, 1_000_000, FORBIDDEN)).toBe(1);
  });

  it('keeps an entry no longer than a purge record lives: past that, no purge list can vouch for it', () => {
    const year = 31_536_000;
    expect(retention(year, 0, { whileRevalidate: 60, ifError: 86_400, mustRevalidate: false })).toBe(
      RECORD_LIFETIME_MS / 1000,
    );
    expect(retention(RECORD_LIFETIME_MS / 1000 - KEEP_FOR_REVALIDATION - 1, 0, FORBIDDEN)).toBe(
      RECORD_LIFETIME_MS / 1000 - 1,
    );
  });
});

describe('staleUse', () => {
  it('answers fresh while the current age is below the lifetime (RFC 9111 §4.2)', () => {
    expect(staleUse(entry(0), NOW)).toBe('fresh');
    expect(staleUse(entry(9.999), NOW)).toBe('fresh');
  });

  it('counts the age the response had on arrival (RFC 9111 §4.2.3)', () => {
    expect(staleUse(entry(2, { initialAge: 7 }), NOW)).toBe('fresh');
    expect(staleUse(entry(3, { initialAge: 7 }), NOW)).toBe('serve-stale-and-refresh');
  });

  it('serves stale and refreshes once stale but within stale-while-revalidate (RFC 5861 §3)', () => {
    expect(staleUse(entry(10), NOW)).toBe('serve-stale-and-refresh');
    expect(staleUse(entry(14.9), NOW)).toBe('serve-stale-and-refresh');
  });

  it('revalidates first once past stale-while-revalidate (RFC 9111 §4.3)', () => {
    expect(staleUse(entry(15), NOW)).toBe('revalidate');
    expect(staleUse(entry(1000), NOW)).toBe('revalidate');
  });

  it('revalidates a stale entry that forbids stale use, whatever its window (RFC 9111 §5.2.2.2)', () => {
    expect(staleUse(entry(11, { mustRevalidate: true }), NOW)).toBe('revalidate');
  });

  it('revalidates a no-cache entry (lifetime 0) before every use (RFC 9111 §5.2.2.4)', () => {
    expect(staleUse(entry(0, { lifetime: 0, mustRevalidate: true, whileRevalidate: 0, ifError: 0 }), NOW)).toBe(
      'revalidate',
    );
  });

  it('revalidates instead of serving stale when the request must not be answered stale', () => {
    expect(staleUse(entry(11), NOW, true)).toBe('revalidate');
  });

  it('still answers a fresh entry from cache when the request must not be answered stale', () => {
    expect(staleUse(entry(1), NOW, true)).toBe('fresh');
  });
});

describe('usableOnError', () => {
  it('lets a stale entry stand in for an origin error within stale-if-error (RFC 5861 §4)', () => {
    expect(usableOnError(entry(11), NOW)).toBe(true);
    expect(usableOnError(entry(29.9), NOW)).toBe(true);
  });

  it('does not let a stale entry stand in past stale-if-error', () => {
    expect(usableOnError(entry(30), NOW)).toBe(false);
    expect(usableOnError(entry(3600), NOW)).toBe(false);
  });

  it('never lets an entry that forbids stale use stand in, not even on error (RFC 9111 §5.2.2.2)', () => {
    expect(usableOnError(entry(11, { mustRevalidate: true }), NOW)).toBe(false);
  });

  it('lets a still-fresh entry stand in for an error', () => {
    expect(usableOnError(entry(1), NOW)).toBe(true);
  });

  it('never lets an entry stand in when stale-if-error is 0 and it is stale', () => {
    expect(usableOnError(entry(10, { ifError: 0 }), NOW)).toBe(false);
  });
});

describe('usableWhenDisconnected (RFC 9111 §4.2.4)', () => {
  it('lets a stale entry answer when the origin cannot be reached, past its stale windows', () => {
    expect(usableWhenDisconnected(entry(11), NOW)).toBe(true);
    expect(usableWhenDisconnected(entry(10 + KEEP_FOR_REVALIDATION - 1, { ifError: 0, whileRevalidate: 0 }), NOW)).toBe(
      true,
    );
  });

  it('lets a fresh entry answer too', () => {
    expect(usableWhenDisconnected(entry(1), NOW)).toBe(true);
  });

  it('never lets an entry that forbids stale use answer, not even disconnected (must-revalidate, proxy-revalidate, s-maxage, no-cache)', () => {
    for (const cc of ['max-age=10, must-revalidate', 'max-age=10, proxy-revalidate', 's-maxage=10', 'no-cache']) {
      const { mustRevalidate } = policy(cc);
      expect(usableWhenDisconnected(entry(11, { mustRevalidate }), NOW), cc).toBe(false);
    }
  });
});
