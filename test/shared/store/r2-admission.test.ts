// Whether an entry enters the R2 tier (shared/store/r2-admission.ts): the formula checked against itself over every
// input (never admitted where keeping it costs more than the egress it saves; always admitted past enough re-fetches),
// and at the published prices for the objects docs/costs.md names.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  admission,
  fetchesToPay,
  fetchSaving,
  keepingCost,
  lookupPays,
  MIN_SPAN_S,
  type Offer,
  type R2Prices,
} from '../../../shared/store/r2-admission.ts';
import { MAX_RETENTION_S } from '../../../shared/store/stored-entry.ts';

/** Storj's egress and R2's Standard storage and operations (shared/cost/prices.ts). */
const PUBLISHED: R2Prices = { egressPerTB: 7, storagePerGbMonth: 0.015, writePerMillion: 4.5, readPerMillion: 0.36 };
const NOW = Date.parse('2026-12-04T12:00:00Z');
const MiB = 1024 * 1024;
const HOUR_MS = 3_600_000;
const DAY_S = 86_400;

/** Prices to a thousandth of a cent's precision, from nothing to far above any published one. */
const price = (max: number): fc.Arbitrary<number> => fc.integer({ min: 0, max: max * 100_000 }).map((n) => n / 100_000);
const prices: fc.Arbitrary<R2Prices> = fc.record({
  egressPerTB: price(200),
  storagePerGbMonth: price(1),
  writePerMillion: price(50),
  readPerMillion: price(5),
});
const bytes = fc.integer({ min: 0, max: 5 * 1024 * MiB });
const offers: fc.Arbitrary<Offer> = fc.record({
  savedBytes: bytes,
  storedBytes: bytes,
  seen: fc.option(
    fc.record({
      fetches: fc.integer({ min: 1, max: 100_000 }),
      first: fc.integer({ min: NOW - 90 * DAY_S * 1000, max: NOW }),
    }),
    { nil: undefined },
  ),
  now: fc.constant(NOW),
  longestS: fc.double({ min: 0, max: MAX_RETENTION_S, noNaN: true }),
});

describe('admission under the cost policy', () => {
  it('never admits an entry whose keeping (a put, its bytes for its retention) costs what its saving does or more', () => {
    fc.assert(
      fc.property(offers, prices, (offer, at) => {
        const verdict = admission('cost', offer, at);
        if (!verdict.admit) return;
        const { seen } = offer;
        if (seen === undefined) throw new Error('admitted with nothing seen');
        // Recomputed from the formula's terms, apart from the function's own arithmetic.
        const spanS = Math.max(MIN_SPAN_S, Math.floor((offer.now - seen.first) / 1000));
        const rate = (seen.fetches - 1) / spanS;
        const saving = rate * verdict.retentionS * fetchSaving(offer.savedBytes, at);
        const cost =
          at.writePerMillion / 1e6 +
          (offer.storedBytes / 1e9) * at.storagePerGbMonth * (verdict.retentionS / (30 * DAY_S));
        expect(saving).toBeGreaterThan(cost * (1 - 1e-9));
        expect(verdict.savingUSD).toBeGreaterThan(verdict.costUSD);
        expect(verdict.costUSD).toBeCloseTo(keepingCost(offer.storedBytes, verdict.retentionS, at), 12);
        // Kept no longer than the rate was measured over, nor than the purge records vouch for it.
        expect(verdict.retentionS).toBeLessThanOrEqual(spanS);
        expect(verdict.retentionS).toBeLessThanOrEqual(offer.longestS);
        expect(verdict.retentionS).toBeGreaterThanOrEqual(1);
        expect(seen.fetches).toBeGreaterThanOrEqual(2);
      }),
      { numRuns: 2000 },
    );
  });

  it('always admits a slice re-fetched often enough: fetchesToPay times over its span, and any more', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 64 * 1024, max: 64 * MiB }),
        fc.integer({ min: MIN_SPAN_S, max: 30 * DAY_S }),
        fc.integer({ min: 0, max: 1000 }),
        prices,
        (size, spanS, extra, at) => {
          const needed = fetchesToPay(size, spanS, at);
          fc.pre(Number.isFinite(needed));
          const offer = (fetches: number): Offer => ({
            savedBytes: size,
            storedBytes: size,
            seen: { fetches, first: NOW - spanS * 1000 },
            now: NOW,
            longestS: MAX_RETENTION_S,
          });
          const verdict = admission('cost', offer(needed + extra), at);
          expect(verdict).toMatchObject({ admit: true, retentionS: spanS });
          // And the fewest that pay are the fewest: one fewer is refused (unless two, the least ever admitted).
          if (needed > 2) expect(admission('cost', offer(needed - 1), at).admit).toBe(false);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('never admits a first fetch, nor where an R2 read costs as much as the egress it replaces', () => {
    fc.assert(
      fc.property(offers, prices, (offer, at) => {
        const first = admission('cost', { ...offer, seen: offer.seen && { ...offer.seen, fetches: 1 } }, at);
        expect(first.admit).toBe(false);
        if (fetchSaving(offer.savedBytes, at) <= 0) expect(admission('cost', offer, at).admit).toBe(false);
      }),
    );
  });

  it('admits no fewer entries as they are fetched more often over the same span', () => {
    fc.assert(
      fc.property(offers, prices, fc.integer({ min: 1, max: 1000 }), (offer, at, more) => {
        fc.pre(offer.seen !== undefined);
        const seen = offer.seen as NonNullable<Offer['seen']>;
        const busier = { ...offer, seen: { ...seen, fetches: seen.fetches + more } };
        if (admission('cost', offer, at).admit) expect(admission('cost', busier, at).admit).toBe(true);
      }),
    );
  });
});

describe('admission of every entry (R2_TIER_ADMIT=all)', () => {
  it('admits whatever may still be kept, for all the time left, seen or not', () => {
    fc.assert(
      fc.property(offers, prices, (offer, at) => {
        const verdict = admission('all', offer, at);
        if (offer.longestS < 1) expect(verdict.admit).toBe(false);
        else expect(verdict).toMatchObject({ admit: true, retentionS: Math.floor(offer.longestS) });
      }),
    );
  });
});

describe('whether a lookup pays for its get', () => {
  const seen = fc.option(
    fc.record(
      { fetches: fc.integer({ min: 1, max: 1000 }), first: fc.constant(NOW), bytes: bytes },
      { requiredKeys: ['fetches', 'first'] },
    ),
    { nil: undefined },
  );

  it('looks up every entry where every entry may be kept, and every slice', () => {
    fc.assert(
      fc.property(prices, seen, fc.boolean(), (at, what, slice) => {
        expect(lookupPays('all', { slice, seen: what }, at)).toBe(true);
        expect(lookupPays('cost', { slice: true, seen: what }, at)).toBe(true);
      }),
    );
  });

  it('under `cost`, never looks up an object the policy could not have kept, and any other it has seen', () => {
    fc.assert(
      fc.property(prices, seen, (at, what) => {
        const looked = lookupPays('cost', { slice: false, seen: what }, at);
        // Never seen fetched here: this isolate has not admitted it (n ≥ 2 first).
        if (what === undefined) {
          expect(looked).toBe(false);
          return;
        }
        if (what.bytes === undefined) {
          expect(looked).toBe(true);
          return;
        }
        expect(looked).toBe(fetchSaving(what.bytes, at) > 0);
        // Not looked up: no history, however hot, would have admitted it.
        const hottest = { fetches: 100_000, first: NOW - 30 * DAY_S * 1000 };
        const offer = {
          savedBytes: what.bytes,
          storedBytes: what.bytes,
          seen: hottest,
          now: NOW,
          longestS: MAX_RETENTION_S,
        };
        if (!looked) expect(admission('cost', offer, at).admit).toBe(false);
      }),
    );
  });

  it('at the published prices: a 20 kB object is never looked up, one of 200 kB once seen', () => {
    const seenOf = (size: number) => ({ fetches: 1, first: NOW, bytes: size });
    expect(lookupPays('cost', { slice: false, seen: seenOf(20_000) }, PUBLISHED)).toBe(false);
    expect(lookupPays('cost', { slice: false, seen: seenOf(200_000) }, PUBLISHED)).toBe(true);
    expect(lookupPays('cost', { slice: false, seen: undefined }, PUBLISHED)).toBe(false);
  });
});

describe('at the published prices', () => {
  const slice = 8 * MiB;
  const offer = (fetches: number, overMs: number, size = slice): Offer => ({
    savedBytes: size,
    storedBytes: size,
    seen: { fetches, first: NOW - overMs },
    now: NOW,
    longestS: MAX_RETENTION_S,
  });

  it('keeps a hot slice (fetched 30 times in a day) for the day it was measured over', () => {
    const verdict = admission('cost', offer(30, 24 * HOUR_MS), PUBLISHED);
    expect(verdict).toMatchObject({ admit: true, retentionS: DAY_S });
    if (!verdict.admit) return;
    // 29 fetches of 8 MiB at $7/TB, less 29 reads; against one put and 8 MiB for a day.
    expect(verdict.savingUSD).toBeCloseTo(29 * ((slice * 7) / 1e12 - 0.36e-6), 12);
    expect(verdict.costUSD).toBeCloseTo(4.5e-6 + ((slice / 1e9) * 0.015) / 30, 12);
  });

  it('keeps a warm slice (fetched 3 times in a week) for the week', () => {
    expect(admission('cost', offer(3, 7 * 24 * HOUR_MS), PUBLISHED)).toMatchObject({
      admit: true,
      retentionS: 7 * DAY_S,
    });
  });

  it('keeps no one-off slice (fetched once), and no small object fetched twice in a day', () => {
    expect(admission('cost', offer(1, 0), PUBLISHED).admit).toBe(false);
    // 20 kB: each fetch saves $1.4e-7 of egress, less than the $3.6e-7 read that would replace it.
    expect(admission('cost', offer(2, 24 * HOUR_MS, 20_000), PUBLISHED)).toEqual({
      admit: false,
      why: 'an R2 read costs more than the egress it saves',
    });
  });

  it('needs a slice of 8 MiB fetched twice in its span, a 256 kB object five times in a day', () => {
    expect(fetchesToPay(slice, DAY_S, PUBLISHED)).toBe(2);
    // Each fetch of 256 kB saves $1.43e-6 (egress less a read): the $4.50e-6 put takes more than three of them.
    expect(fetchesToPay(256_000, DAY_S, PUBLISHED)).toBe(5);
  });
});
