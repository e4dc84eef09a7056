// What a Storj user has today against tiercache (shared/cost/alternatives.ts, docs/costs.md): the origin alone, and
// Cloudflare's cache in front of it (nothing over 512 MB cached, each location its own cache unless Tiered Cache).

import { describe, expect, it } from 'vitest';
import {
  CLOUDFLARE_CACHEABLE_LIMIT,
  cloudflareCacheBounds,
  cloudflareCacheOriginBytes,
  compareAlternatives,
} from '../../../shared/cost/alternatives.ts';
import type { CostEstimate } from '../../../shared/cost/cost-model.ts';
import { PUBLISHED_PRICES } from '../../../shared/cost/prices.ts';
import { DEPLOYED_INTERVALS, EXAMPLE_MIXES, mixComparison } from '../../../shared/cost/traffic-mix.ts';

const TB = 1e12;

describe('cloudflareCacheOriginBytes', () => {
  // 10 TB sent, a quarter of it from objects over 512 MB; the rest hits 90 % at each location and the upper tier
  // holds half of what a location misses: 2.5 TB + 7.5 TB × 0.1 × 0.5 = 2.875 TB from the origin.
  const month = { servedBytes: 10 * TB, overLimitShare: 0.25, locationHitRatio: 0.9, upperTierHitRatio: 0.5 };

  it('sends every byte of an object over the cacheable limit from the origin, and the misses of both tiers for the rest', () => {
    expect(cloudflareCacheOriginBytes(month)).toBeCloseTo(2.875 * TB, 0);
  });

  it('without Tiered Cache every location misses on its own: 2.5 TB + 7.5 TB × 0.1 = 3.25 TB', () => {
    expect(cloudflareCacheOriginBytes({ ...month, upperTierHitRatio: 0 })).toBeCloseTo(3.25 * TB, 0);
  });

  it('with every object over the limit is the origin alone, and with nothing over it and every request a hit is nothing', () => {
    expect(cloudflareCacheOriginBytes({ ...month, overLimitShare: 1 })).toBeCloseTo(10 * TB, 0);
    expect(cloudflareCacheOriginBytes({ ...month, overLimitShare: 0, locationHitRatio: 1 })).toBe(0);
  });

  it('takes a ratio outside 0..1 at its nearest bound, and a ratio that is no number as 0', () => {
    expect(cloudflareCacheOriginBytes({ ...month, overLimitShare: 2 })).toBeCloseTo(10 * TB, 0);
    expect(cloudflareCacheOriginBytes({ ...month, overLimitShare: Number.NaN, upperTierHitRatio: -1 })).toBeCloseTo(
      TB,
      0,
    );
  });
});

describe('CLOUDFLARE_CACHEABLE_LIMIT', () => {
  it("is Cloudflare's documented 512 MB on Free, Pro and Business, with its page", () => {
    expect(CLOUDFLARE_CACHEABLE_LIMIT.label).toBe('512 MB');
    expect(CLOUDFLARE_CACHEABLE_LIMIT.source).toBe(
      'https://developers.cloudflare.com/cache/concepts/default-cache-behavior/#cacheable-size-limits',
    );
  });
});

describe('compareAlternatives', () => {
  // A tiercache month for the same 10 TB, as the model priced it before the purge head key: $45.45 of Workers Paid
  // and 0.5 TB from the origin (a fixed input: these tests are of the comparison, not of the month).
  const estimate = {
    usage: { servedBytes: 10 * TB, originBytes: 0.5 * TB },
    platformUSD: 45.45,
    originEgressUSD: 3.5,
    totalUSD: 48.95,
  } as unknown as CostEstimate;
  const comparison = compareAlternatives(estimate, {
    servedBytes: 10 * TB,
    overLimitShare: 0.25,
    locationHitRatio: 0.9,
    upperTierHitRatio: 0.5,
    pricePerTB: 7,
    tieredCache: true,
  });

  it('prices the origin alone at every byte sent: 10 TB at $7 is $70.00, nothing cached', () => {
    expect(comparison.storjAlone).toMatchObject({ originBytes: 10 * TB, platformUSD: 0, cached: 'nothing' });
    expect(comparison.storjAlone.usd).toBeCloseTo(70, 9);
  });

  it("prices Cloudflare's cache in front at its origin egress alone (its CDN charges no bandwidth): 2.875 TB is $20.125", () => {
    expect(comparison.cloudflareCache.platformUSD).toBe(0);
    expect(comparison.cloudflareCache.originBytes).toBeCloseTo(2.875 * TB, 0);
    expect(comparison.cloudflareCache.usd).toBeCloseTo(20.125, 9);
    expect(comparison.cloudflareCache.cached).toBe('objects up to 512 MB, at each location and its upper tier');
  });

  it('prices tiercache as its estimate does, caching objects of any size', () => {
    expect(comparison.tiercache).toEqual({
      usd: 48.95,
      platformUSD: 45.45,
      originBytes: 0.5 * TB,
      originEgressUSD: 3.5,
      cached: 'objects of any size, large ones as slices',
    });
  });

  it('says what tiercache saves against each: $21.05 against the origin alone, −$28.825 against the cache in front', () => {
    expect(comparison.savedUSD.storjAlone).toBeCloseTo(21.05, 9);
    expect(comparison.savedUSD.cloudflareCache).toBeCloseTo(20.125 - 48.95, 9);
  });

  it("names each location's own cache alone without Tiered Cache", () => {
    const alone = compareAlternatives(estimate, {
      servedBytes: 10 * TB,
      overLimitShare: 0.25,
      locationHitRatio: 0.9,
      upperTierHitRatio: 0,
      pricePerTB: 7,
      tieredCache: false,
    });
    expect(alone.cloudflareCache.cached).toBe('objects up to 512 MB, at each location on its own');
    expect(alone.cloudflareCache.usd).toBeCloseTo(22.75, 9);
  });
});

describe('mixComparison', () => {
  const [site, tenTb, video] = EXAMPLE_MIXES;
  if (site === undefined || tenTb === undefined || video === undefined) throw new Error('three examples');

  it("gives Cloudflare's cache the mix's edge hit ratio at each location, and the shield's as its upper tier's", () => {
    const { comparison } = mixComparison(video, PUBLISHED_PRICES, DEPLOYED_INTERVALS);
    const expected = 50 * TB * (video.overCacheLimitShare + (1 - video.overCacheLimitShare) * 0.1 * 0.2);
    expect(comparison.cloudflareCache.originBytes).toBeCloseTo(expected, 0);
  });

  it('with Tiered Cache off gives every location its own misses', () => {
    const { comparison } = mixComparison(tenTb, PUBLISHED_PRICES, DEPLOYED_INTERVALS, { tieredCache: false });
    expect(comparison.cloudflareCache.originBytes).toBeCloseTo(10 * TB * 0.05, 0);
  });

  it('the 10 TB month of 1 MB objects: the cache in front pays what tiercache pays the origin, so tiercache costs its Workers bill more', () => {
    const { estimate, comparison } = mixComparison(tenTb, PUBLISHED_PRICES, DEPLOYED_INTERVALS);
    expect(comparison.cloudflareCache.usd).toBeCloseTo(estimate.originEgressUSD, 9);
    expect(comparison.savedUSD.cloudflareCache).toBeCloseTo(-estimate.platformUSD, 9);
  });

  it('the video month: objects over 512 MB make the cache in front pay most of the egress, and tiercache saves against it', () => {
    const { comparison } = mixComparison(video, PUBLISHED_PRICES, DEPLOYED_INTERVALS);
    expect(video.overCacheLimitShare).toBeGreaterThan(0.5);
    expect(comparison.savedUSD.cloudflareCache).toBeGreaterThan(100);
  });
});

describe('cloudflareCacheBounds', () => {
  // What the stats know: 10 TB sent, 1 TB of it from the origin, 3 TB of it in sliced answers (objects of at least a
  // slice: some may be over 512 MB, none of the rest is).
  const counted = { servedBytes: 10 * TB, originBytes: TB, slicedServedBytes: 3 * TB, pricePerTB: 7 };

  it("is at least what tiercache's origin egress is (every object under 512 MB, hitting as tiercache's tiers do)", () => {
    expect(cloudflareCacheBounds(counted).lowUSD).toBeCloseTo(7, 9);
  });

  it('is at most that plus every byte of the sliced answers (every sliced object over 512 MB): 4 TB at $7', () => {
    expect(cloudflareCacheBounds(counted).highUSD).toBeCloseTo(28, 9);
  });

  it('is never more than every byte sent, nor a negative amount', () => {
    expect(cloudflareCacheBounds({ ...counted, slicedServedBytes: 20 * TB }).highUSD).toBeCloseTo(70, 9);
    expect(cloudflareCacheBounds({ ...counted, originBytes: -1, slicedServedBytes: -1 })).toEqual({
      lowUSD: 0,
      highUSD: 0,
    });
  });
});
