import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CacheStatusParams, cacheStatusMember, type ForwardReason } from '../../../shared/http/cache-status.ts';
import { type HopAnswer, hopMember, hopTimings, withHopReport, withUnasked } from '../../../shared/tier/hop-report.ts';
import { slicedReport } from '../../../shared/tier/tier-headers.ts';

const SHIELD = 'tiercache-shield';
/** A shield answer for `slices` slices with its member and timing. */
const answer = (member: CacheStatusParams | undefined, slices = 1, timing: string | null = null): HopAnswer => ({
  slices,
  member,
  timing,
});
const HIT: CacheStatusParams = { hit: true, ttl: 50, detail: 'slices 1/1' };
const PARTIAL: CacheStatusParams = { fwd: 'partial', ttl: 40, stored: true, detail: 'slices 0/1' };
const DISCOVERY: CacheStatusParams = { fwd: 'uri-miss', stored: true, detail: 'slices 0/1' };

describe('hopMember (RFC 9211 §2: the shield member of this request, folded from its answers)', () => {
  it('is undefined when nothing was asked of the shield: the stored member stands', () => {
    expect(hopMember({ answers: [], pending: 0 })).toBeUndefined();
  });

  it('is a hit only when every slice asked was answered from its store (§2.1)', () => {
    expect(hopMember({ answers: [answer(HIT), answer({ ...HIT, ttl: 20 })], pending: 0 })).toEqual({
      hit: true,
      ttl: 20,
      detail: 'slices 2/2',
    });
    // One still coming: not known to be a hit, nor to have gone forward.
    expect(hopMember({ answers: [answer(HIT), answer(HIT)], pending: 1 })).toEqual({
      ttl: 50,
      detail: 'slices 2/2 of 3',
    });
  });

  it("goes forward with the first forwarding answer's reason once any answer did (§2.2)", () => {
    expect(hopMember({ answers: [answer(HIT), answer(PARTIAL)], pending: 0 })).toEqual({
      fwd: 'partial',
      ttl: 40,
      stored: true,
      detail: 'slices 1/2',
    });
    expect(hopMember({ answers: [answer(DISCOVERY), answer(PARTIAL), answer(PARTIAL)], pending: 0 })).toEqual({
      fwd: 'uri-miss',
      ttl: 40,
      stored: true,
      detail: 'slices 0/3',
    });
  });

  it("keeps a revalidation's reason and status, and says no slices for an answer about the object alone", () => {
    const revalidated: CacheStatusParams = { fwd: 'stale', fwdStatus: 304, stored: true };
    expect(hopMember({ answers: [answer(revalidated, 0)], pending: 0 })).toEqual(revalidated);
    expect(hopMember({ answers: [answer(revalidated, 0), answer(HIT)], pending: 0 })).toEqual({
      ...revalidated,
      ttl: 50,
      detail: 'slices 1/1',
    });
  });

  it("says how many were asked when none was heard yet, and keeps an answer's own words", () => {
    expect(hopMember({ answers: [], pending: 4 })).toEqual({ detail: 'slices 0/0 of 4' });
    const stale: CacheStatusParams = { hit: true, ttl: -3, detail: 'stale-while-revalidate slices 1/1' };
    expect(hopMember({ answers: [answer(stale), answer(HIT)], pending: 0 })).toEqual({
      hit: true,
      ttl: -3,
      detail: 'stale-while-revalidate slices 2/2',
    });
  });

  it('is stored or collapsed when any answer was (§2.5, §2.6), and skips answers with no member', () => {
    expect(
      hopMember({ answers: [answer(undefined), answer({ ...PARTIAL, collapsed: true }), answer(HIT)], pending: 0 }),
    ).toEqual({ fwd: 'partial', ttl: 40, stored: true, collapsed: true, detail: 'slices 1/2 of 3' });
  });

  it("names the store the shield's answers name (its tiercache-store parameter)", () => {
    const store = { store: 'cache-api' };
    expect(hopMember({ answers: [answer({ ...HIT, ...store }), answer({ ...HIT, ...store })], pending: 0 })).toEqual({
      hit: true,
      ttl: 50,
      detail: 'slices 2/2',
      store: 'cache-api',
    });
    expect(hopMember({ answers: [answer(DISCOVERY), answer({ ...PARTIAL, ...store })], pending: 0 })?.store).toBe(
      'cache-api',
    );
  });

  it("folds one answer into the member it carries (the shield's own report of one slice request)", () => {
    const bases = fc.oneof(
      fc.record({ hit: fc.constant(true), ttl: fc.integer({ min: -100, max: 10_000 }) }),
      fc.record(
        {
          fwd: fc.constantFrom<ForwardReason>('uri-miss', 'vary-miss', 'stale', 'miss'),
          fwdStatus: fc.constantFrom(304, 502),
          stored: fc.boolean(),
        },
        { requiredKeys: ['fwd'] },
      ),
    );
    fc.assert(
      fc.property(bases, fc.nat(8), fc.nat(8), fc.nat(8), (base, a, b, c) => {
        const [hits, checked, total] = [a, a + b, a + b + c + 1];
        const member = slicedReport(base, { hits, checked, total, storing: true });
        const folded = hopMember({ answers: [answer(member, total)], pending: 0 });
        expect(cacheStatusMember(SHIELD, folded ?? {})).toBe(cacheStatusMember(SHIELD, member));
      }),
    );
  });
});

describe('hopTimings (one Server-Timing metric per name for the slices this request caused)', () => {
  it('keeps the longest dur and counts the slices in desc', () => {
    const cold = 'origin;dur=80;desc="1 slice", shield-slice;dur=82, shield;dur=85';
    const other = 'origin;dur=95;desc="1 slice", shield-slice;dur=96, shield;dur=97';
    expect(hopTimings([answer(PARTIAL, 1, cold), answer(PARTIAL, 1, other)])).toBe(
      'origin;dur=95;desc="2 slices", shield-slice;dur=96;desc="2 slices", shield;dur=97;desc="2 slices"',
    );
  });

  it("keeps the hops' order whichever answer named a metric first", () => {
    const hit = 'shield-slice;dur=2, shield;dur=3';
    const cold = 'origin;dur=80;desc="1 slice", shield-slice;dur=82, shield;dur=85';
    expect(hopTimings([answer(HIT, 1, hit), answer(PARTIAL, 1, cold)])).toBe(
      'origin;dur=80;desc="1 slice", shield-slice;dur=82;desc="2 slices", shield;dur=85;desc="2 slices"',
    );
  });

  it('gives no dur for an origin asked and not yet answered, and no desc for answers about the object alone', () => {
    expect(hopTimings([answer(PARTIAL, 1, 'origin;desc="1 slice", shield;dur=6')])).toBe(
      'origin;desc="1 slice", shield;dur=6;desc="1 slice"',
    );
    expect(hopTimings([answer(undefined, 0, 'origin;dur=5')])).toBe('origin;dur=5');
    expect(hopTimings([])).toBe('');
  });
});

describe('withHopReport', () => {
  it("replaces the shield's stored member in place, keeping those behind it, and sets the hop's metrics", () => {
    const headers = new Headers({ 'cache-status': `Origin-CDN; hit, ${SHIELD}; fwd=uri-miss; stored` });
    withHopReport(headers, { answers: [answer(PARTIAL, 1, 'origin;dur=7')], pending: 0 }, SHIELD);
    expect(headers.get('cache-status')).toBe(
      `Origin-CDN; hit, ${SHIELD}; fwd=partial; ttl=40; stored; detail="slices 0/1"`,
    );
    expect(headers.get('server-timing')).toBe('origin;dur=7;desc="1 slice"');
  });

  it('leaves the stored member when nothing was asked', () => {
    const headers = new Headers({ 'cache-status': `${SHIELD}; fwd=uri-miss; stored` });
    withHopReport(headers, { answers: [], pending: 0 }, SHIELD);
    expect(headers.get('cache-status')).toBe(`${SHIELD}; fwd=uri-miss; stored`);
    expect(headers.has('server-timing')).toBe(false);
  });
});

describe('withUnasked', () => {
  it('counts the slices missed here and not asked yet as still coming, never fewer than were asked', () => {
    const answer = { slices: 1, member: { fwd: 'partial' as const, stored: true }, timing: null };
    expect(withUnasked({ answers: [], pending: 0 }, 2)).toEqual({ answers: [], pending: 2 });
    expect(withUnasked({ answers: [answer], pending: 1 }, 3)).toEqual({ answers: [answer], pending: 2 });
    expect(withUnasked({ answers: [answer], pending: 1 }, 1)).toEqual({ answers: [answer], pending: 1 });
    // Nothing was asked and nothing missed: the stored member stands.
    expect(hopMember(withUnasked({ answers: [], pending: 0 }, 0))).toBeUndefined();
    expect(hopMember(withUnasked({ answers: [], pending: 0 }, 2))).toEqual({ detail: 'slices 0/0 of 2' });
  });
});
