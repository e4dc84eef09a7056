import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CacheStatusParams, cacheStatusMember, type ForwardReason } from '../../../shared/http/cache-status.ts';
import { slicedReport } from '../../../shared/tier/tier-headers.ts';

/** A fresh manifest found in this tier's cache. */
const MANIFEST_HIT: CacheStatusParams = { hit: true, ttl: 3000 };

/** The Cache-Status member the edge would send for a report (RFC 9211 §2). */
function member(params: CacheStatusParams): string {
  return cacheStatusMember('tiercache-edge', params);
}

describe('slicedReport (RFC 9211 Cache-Status for a sliced object)', () => {
  it('is a hit when the manifest was fresh and every slice looked up was there (§2.1)', () => {
    expect(slicedReport(MANIFEST_HIT, { hits: 4, checked: 4, total: 4, storing: true })).toEqual({
      hit: true,
      ttl: 3000,
      detail: 'slices 4/4',
    });
    expect(member(slicedReport(MANIFEST_HIT, { hits: 4, checked: 4, total: 4, storing: true }))).toBe(
      'tiercache-edge; hit; ttl=3000; detail="slices 4/4"',
    );
  });

  it('says how many slices there were in all when it looked up only some of them', () => {
    expect(slicedReport(MANIFEST_HIT, { hits: 2, checked: 2, total: 40, storing: true })).toEqual({
      hit: true,
      ttl: 3000,
      detail: 'slices 2/2 of 40',
    });
  });

  it('leaves out "of N" when it looked up every slice the request needs', () => {
    expect(slicedReport(MANIFEST_HIT, { hits: 1, checked: 3, total: 3, storing: true }).detail).toBe('slices 1/3');
  });

  it('is fwd=partial, not a hit, on a manifest hit when some slice looked up was missing (§2.2)', () => {
    const report = slicedReport(MANIFEST_HIT, { hits: 1, checked: 3, total: 10, storing: true });
    expect(report).toEqual({ fwd: 'partial', ttl: 3000, stored: true, detail: 'slices 1/3 of 10' });
    expect(report.hit).toBeUndefined();
    expect(member(report)).toBe('tiercache-edge; fwd=partial; ttl=3000; stored; detail="slices 1/3 of 10"');
  });

  it('is fwd=partial when no slice looked up was there', () => {
    expect(slicedReport(MANIFEST_HIT, { hits: 0, checked: 2, total: 2, storing: true })).toEqual({
      fwd: 'partial',
      ttl: 3000,
      stored: true,
      detail: 'slices 0/2',
    });
  });

  it('keeps no ttl on a partial hit when the manifest had none', () => {
    expect(slicedReport({ hit: true }, { hits: 0, checked: 1, total: 1, storing: true })).toEqual({
      fwd: 'partial',
      stored: true,
      detail: 'slices 0/1',
    });
  });

  it('keeps the reason a miss went forward, and says stored when it fetched slices (§2.2, §2.5)', () => {
    for (const fwd of ['uri-miss', 'miss', 'stale', 'request', 'bypass'] satisfies ForwardReason[]) {
      expect(slicedReport({ fwd, fwdStatus: 206 }, { hits: 0, checked: 2, total: 8, storing: true }), fwd).toEqual({
        fwd,
        fwdStatus: 206,
        stored: true,
        detail: 'slices 0/2 of 8',
      });
    }
  });

  it('keeps stored on a miss whose manifest was stored, even when every slice was there', () => {
    expect(slicedReport({ fwd: 'stale', stored: true }, { hits: 3, checked: 3, total: 3, storing: true })).toEqual({
      fwd: 'stale',
      stored: true,
      detail: 'slices 3/3',
    });
  });

  it('does not say stored on a miss when every slice looked up was there and nothing else was stored', () => {
    expect(slicedReport({ fwd: 'uri-miss' }, { hits: 2, checked: 2, total: 2, storing: true })).toEqual({
      fwd: 'uri-miss',
      stored: false,
      detail: 'slices 2/2',
    });
    expect(member(slicedReport({ fwd: 'uri-miss' }, { hits: 2, checked: 2, total: 2, storing: true }))).toBe(
      'tiercache-edge; fwd=uri-miss; detail="slices 2/2"',
    );
  });

  it('RFC 9211 §2.5: never says stored for slices of an object that may not be stored (no-store, private)', () => {
    expect(slicedReport({ fwd: 'uri-miss', stored: false }, { hits: 0, checked: 1, total: 4, storing: false })).toEqual(
      { fwd: 'uri-miss', stored: false, detail: 'slices 0/1 of 4' },
    );
    expect(slicedReport({ hit: true }, { hits: 0, checked: 2, total: 2, storing: false })).toEqual({
      fwd: 'partial',
      stored: false,
      detail: 'slices 0/2',
    });
    fc.assert(
      fc.property(
        fc.nat(20),
        fc.nat(20),
        fc.constantFrom<ForwardReason>('uri-miss', 'miss', 'stale'),
        (hits, more, fwd) => {
          expect(slicedReport({ fwd }, { hits, checked: hits + more, total: hits + more, storing: false }).stored).toBe(
            false,
          );
        },
      ),
    );
  });

  it('reports "slices 0/0" when nothing was looked up', () => {
    expect(slicedReport({ fwd: 'miss' }, { hits: 0, checked: 0, total: 5, storing: true }).detail).toBe(
      'slices 0/0 of 5',
    );
  });

  it('is a hit exactly when the manifest hit and every slice looked up was there', () => {
    const counts = fc
      .integer({ min: 1, max: 50 })
      .chain((total) =>
        fc
          .integer({ min: 0, max: total })
          .chain((checked) => fc.integer({ min: 0, max: checked }).map((hits) => ({ total, checked, hits }))),
      );
    const base: fc.Arbitrary<CacheStatusParams> = fc.oneof(
      fc.record({ hit: fc.constant(true), ttl: fc.option(fc.integer({ min: -100, max: 10_000 }), { nil: undefined }) }),
      fc.record({ fwd: fc.constantFrom<ForwardReason>('uri-miss', 'miss', 'stale'), stored: fc.boolean() }),
    );
    fc.assert(
      fc.property(base, counts, (params, { total, checked, hits }) => {
        const report = slicedReport(params, { hits, checked, total, storing: true });
        expect(Boolean(report.hit)).toBe(Boolean(params.hit) && hits === checked);
        expect(report.detail).toBe(
          checked < total ? `slices ${hits}/${checked} of ${total}` : `slices ${hits}/${checked}`,
        );
        if (params.hit && hits < checked) expect(report.fwd).toBe('partial');
        if (!params.hit) expect(report.fwd).toBe(params.fwd);
      }),
    );
  });
});
