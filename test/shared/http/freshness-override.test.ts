// A rule's override of the origin's freshness (shared/http/freshness.ts `override`, docs/rules.md): it overrides RFC
// 9111 §4.2.1 (how long), never §3 (whether), nor the directives that forbid serving stale (§4.2.4).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type FreshnessOptions, hasExplicitFreshness, storeVerdict } from '../../../shared/http/freshness.ts';
import { TIERCACHE_TARGETS } from '../../../shared/http/targeted-cache-control.ts';

const NOW = Date.parse('2026-09-01T12:00:00Z');
const DEFAULTS = { whileRevalidate: 60, ifError: 86_400 };
const overriding = (lifetime: number, extra: Partial<NonNullable<FreshnessOptions['override']>> = {}) =>
  ({
    defaultTtl: 3600,
    negativeTtl: 30,
    now: NOW,
    staleDefaults: DEFAULTS,
    targeted: TIERCACHE_TARGETS,
    override: { lifetime, ...extra },
  }) satisfies FreshnessOptions;

describe('storeVerdict with an override', () => {
  it('replaces the answer’s max-age, s-maxage, Expires and targeted freshness with the rule’s lifetime', () => {
    const answers: Record<string, string>[] = [
      { 'cache-control': 'max-age=0' },
      { 'cache-control': 'max-age=5, s-maxage=10' },
      { expires: 'Thu, 01 Jan 1970 00:00:00 GMT' },
      { 'cdn-cache-control': 'max-age=1' },
      {},
    ];
    for (const headers of answers) {
      const verdict = storeVerdict(200, new Headers(headers), overriding(600));
      expect(verdict, JSON.stringify(headers)).toMatchObject({ store: true, lifetime: 600 });
    }
  });

  it('decides how long, never whether: no-store, private, Set-Cookie and Vary: * still keep it out', () => {
    const refused: Record<string, string>[] = [
      { 'cache-control': 'no-store' },
      { 'cache-control': 'private, max-age=600' },
      { 'set-cookie': 'a=1' },
      { vary: '*' },
    ];
    for (const headers of refused) {
      expect(storeVerdict(200, new Headers(headers), overriding(600)).store, JSON.stringify(headers)).toBe(false);
    }
  });

  it('keeps no-cache revalidated on every use (RFC 9111 §5.2.2.4)', () => {
    const verdict = storeVerdict(200, new Headers({ 'cache-control': 'no-cache', etag: '"a"' }), overriding(600));
    expect(verdict).toMatchObject({ store: true, lifetime: 0, stale: { mustRevalidate: true } });
  });

  it('gives the rule’s stale windows over the answer’s own, unless must-revalidate forbids stale use', () => {
    const cc = { 'cache-control': 'max-age=5, stale-while-revalidate=1, stale-if-error=2' };
    expect(storeVerdict(200, new Headers(cc), overriding(600, { staleWhileRevalidate: 30 }))).toMatchObject({
      stale: { whileRevalidate: 30, ifError: 2, mustRevalidate: false },
    });
    const strict = { 'cache-control': 'max-age=5, must-revalidate' };
    expect(storeVerdict(200, new Headers(strict), overriding(600, { staleWhileRevalidate: 30 }))).toMatchObject({
      lifetime: 600,
      stale: { whileRevalidate: 0, ifError: 0, mustRevalidate: true },
    });
  });

  it('leaves a 4xx/5xx to its own freshness and NEGATIVE_TTL', () => {
    expect(storeVerdict(404, new Headers(), overriding(600))).toMatchObject({ store: true, lifetime: 30 });
    expect(storeVerdict(404, new Headers({ 'cache-control': 'max-age=5' }), overriding(600))).toMatchObject({
      lifetime: 5,
    });
  });

  it('stores nothing for a lifetime of 0, and nothing §3 refuses (a 302 without freshness)', () => {
    expect(storeVerdict(200, new Headers(), overriding(0)).store).toBe(false);
    expect(storeVerdict(302, new Headers(), overriding(600)).store).toBe(false);
  });

  it('never stores an answer the same options without the override would refuse (a property)', () => {
    const directive = fc.constantFrom(
      'no-store',
      'private',
      'no-cache',
      'max-age=0',
      'max-age=60',
      'public',
      's-maxage=5',
    );
    fc.assert(
      fc.property(
        fc.subarray(['no-store', 'private', 'no-cache', 'max-age=0', 'max-age=60', 'public']),
        directive,
        fc.nat(10_000),
        (cc, extra, lifetime) => {
          const headers = new Headers({ 'cache-control': [...cc, extra].join(', '), etag: '"e"' });
          const { override: _, ...plain } = overriding(lifetime);
          if (!storeVerdict(200, headers, plain).store && storeVerdict(200, headers, overriding(lifetime)).store) {
            // Only a lifetime the origin gave as 0 may be lengthened into storing.
            expect(headers.get('cache-control')).toMatch(/max-age=0|s-maxage/);
          }
        },
      ),
    );
  });
});

describe('hasExplicitFreshness', () => {
  it('is true for s-maxage, max-age, Expires or a targeted field’s, and false otherwise', () => {
    expect(hasExplicitFreshness(new Headers({ 'cache-control': 'max-age=1' }))).toBe(true);
    expect(hasExplicitFreshness(new Headers({ expires: 'soon' }))).toBe(true);
    expect(hasExplicitFreshness(new Headers({ 'cdn-cache-control': 'max-age=1' }), TIERCACHE_TARGETS)).toBe(true);
    expect(hasExplicitFreshness(new Headers({ 'cache-control': 'public' }))).toBe(false);
    expect(hasExplicitFreshness(new Headers())).toBe(false);
  });
});
