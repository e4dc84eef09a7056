import { describe, expect, it } from 'vitest';
import { PUBLISHED_PRICES } from '../../../shared/cost/prices.ts';
import {
  DEPLOYED_INTERVALS,
  EXAMPLE_MIXES,
  mixCost,
  mixTraffic,
  type TrafficMix,
} from '../../../shared/cost/traffic-mix.ts';
import { REFRESH_MS } from '../../../shared/purge/purge-store.ts';

const MIB = 1024 * 1024;
const TEN_TB = EXAMPLE_MIXES.find((mix) => mix.name.startsWith('10 TB'));
if (TEN_TB === undefined) throw new Error('the 10 TB example is gone');

const line = (estimate: ReturnType<typeof mixCost>, item: string) => estimate.lines.find((one) => one.item === item);

describe('DEPLOYED_INTERVALS', () => {
  it("are the flush interval every deployment starts with (5 s) and the purge list's re-read interval", () => {
    expect(DEPLOYED_INTERVALS).toEqual({ flushMs: 5_000, refreshMs: REFRESH_MS });
  });
});

describe('mixTraffic', () => {
  it('turns bytes and a response size into requests, hits at each tier, and the bytes the origin sends', () => {
    const traffic = mixTraffic({ ...TEN_TB, edgeHitRatio: 0.9, memoryShare: 0.5, shieldHitRatio: 0.5 });
    expect(
      traffic.edge.memoryHits.requests + traffic.edge.cacheHits.requests + traffic.edge.misses.requests,
    ).toBeCloseTo(10_000_000, 3);
    expect(traffic.edge.memoryHits.requests).toBeCloseTo(4_500_000, 3);
    expect(traffic.edge.misses.requests).toBeCloseTo(1_000_000, 3);
    expect(traffic.shield.hits.requests).toBeCloseTo(500_000, 3);
    expect(traffic.originBytes).toBeCloseTo(5e11, 0);
  });

  it("asks the shield for whole slices: a 16 MiB range of 8 MiB slices is two shield requests, each a slice's bytes", () => {
    const mix: TrafficMix = {
      ...TEN_TB,
      bytesPerMonth: 16 * MIB * 1000,
      responseBytes: 16 * MIB,
      edgeHitRatio: 0,
      shieldHitRatio: 0,
      sliceBytes: 8 * MIB,
    };
    const traffic = mixTraffic(mix);
    expect(traffic.shield.misses.requests).toBeCloseTo(2_000, 6);
    expect(traffic.sliceRequests).toBeCloseTo(2_000, 6);
    expect(traffic.originBytes).toBeCloseTo(2_000 * 8 * MIB, 0);
    expect(traffic.slicedShare).toBe(1);
  });
});

describe('what 10 TB a month of 1 MB objects at a 95 % hit ratio costs, against Storj egress alone', () => {
  const estimate = mixCost(TEN_TB, PUBLISHED_PRICES, DEPLOYED_INTERVALS);

  it('Storj alone sends every byte: 10 TB at $7 per TB is $70.00; behind tiercache it sends 5 % of them, $3.50', () => {
    expect(estimate.egressAloneUSD).toBeCloseTo(70, 9);
    expect(estimate.originEgressUSD).toBeCloseTo(3.5, 9);
  });

  it('its 10 million requests and their CPU time fit the Workers Paid allowances: the $5 subscription covers them', () => {
    expect(estimate.usage.workersRequests).toBeCloseTo(10_000_000, 3);
    expect(line(estimate, 'Workers requests')?.usd).toBe(0);
    expect(estimate.usage.cpuMs.edge + estimate.usage.cpuMs.shield).toBeLessThan(30_000_000);
    expect((line(estimate, 'Workers CPU, edge')?.usd ?? 0) + (line(estimate, 'Workers CPU, shield')?.usd ?? 0)).toBe(0);
    expect(estimate.subscriptionUSD).toBe(5);
  });

  it('the largest line is the purge list each isolate lists from KV once a minute while it serves (the safety list): one list request per request at most', () => {
    const lists = line(estimate, 'KV list requests');
    expect(lists?.quantity).toBeLessThanOrEqual(estimate.usage.workersRequests + 500_000);
    for (const other of estimate.lines) expect(lists?.usd ?? 0).toBeGreaterThanOrEqual(other.usd);
    // At most every request's list past the first million: (10.5M − 1M) × $5 per million.
    expect(lists?.usd ?? 0).toBeLessThanOrEqual(47.5);
  });

  // Model input changed (the purge head key): the purge list is priced as the code on main reads it, a head get per re-read
  // and a list once a minute per isolate, no longer a list per re-read ($49 and $21 before).
  it('costs less in all than Storj egress alone: about $21 a month against $70, saving about $49', () => {
    expect(estimate.totalUSD).toBeLessThan(estimate.egressAloneUSD);
    expect(estimate.totalUSD).toBeCloseTo(estimate.platformUSD + 3.5, 9);
    expect(Math.round(estimate.totalUSD)).toBe(21);
    expect(Math.round(estimate.savedUSD)).toBe(49);
  });

  it('costs more the more isolates the requests spread over, and saves most when they share a few', () => {
    const spread = (edge: number) =>
      mixCost({ ...TEN_TB, isolates: { ...TEN_TB.isolates, edge } }, PUBLISHED_PRICES, DEPLOYED_INTERVALS).totalUSD;
    expect(spread(10)).toBeLessThan(spread(100));
    expect(spread(100)).toBeLessThan(spread(1_000));
    expect(spread(1_000)).toBeLessThan(estimate.egressAloneUSD);
  });
});

describe('EXAMPLE_MIXES', () => {
  it('a small static site costs more on Workers than its egress would: there tiercache is for speed, not money', () => {
    const site = EXAMPLE_MIXES[0];
    if (site === undefined) throw new Error('no static site example');
    const estimate = mixCost(site, PUBLISHED_PRICES, DEPLOYED_INTERVALS);
    expect(estimate.egressAloneUSD).toBeLessThan(1);
    expect(estimate.savedUSD).toBeLessThan(0);
  });

  it('video of large sliced objects saves most of its egress: bytes per request are what pays for the platform', () => {
    const video = EXAMPLE_MIXES[2];
    if (video === undefined) throw new Error('no video example');
    const estimate = mixCost(video, PUBLISHED_PRICES, DEPLOYED_INTERVALS);
    expect(estimate.savedUSD / estimate.egressAloneUSD).toBeGreaterThan(0.9);
  });
});

describe('a month with the R2 tier behind the shield', () => {
  /** 100 TB of 16 MiB ranges of 8 MiB slices; the shield's Cache API keeps 30 % of what the edge misses. */
  const evicting: TrafficMix = {
    ...TEN_TB,
    bytesPerMonth: 100e12,
    responseBytes: 16 * MIB,
    edgeHitRatio: 0.9,
    shieldHitRatio: 0.3,
    sliceBytes: 8 * MIB,
  };
  const withR2: TrafficMix = { ...evicting, r2: { hitRatio: 0.7, storedBytes: 1e12, writeShare: 0.3 } };

  it("answers its share of the shield's misses: the origin sends only the rest", () => {
    const without = mixTraffic(evicting);
    const traffic = mixTraffic(withR2);
    expect(traffic.originBytes).toBeCloseTo(without.originBytes * 0.3, -3);
    expect(traffic.r2?.hits.bytes).toBeCloseTo(without.originBytes * 0.7, -3);
    // A slice's lookup is its manifest's get and its own.
    expect(traffic.r2?.lookups).toBeCloseTo(without.shield.misses.requests * 2, 3);
    expect(traffic.r2?.writes).toBeCloseTo(without.shield.misses.requests * 0.3 * 0.3, 3);
  });

  it('prices its storage, puts and lists, and gets, each with R2 free allowance; none of its lines without it', () => {
    const estimate = mixCost(withR2, PUBLISHED_PRICES, DEPLOYED_INTERVALS);
    const storage = line(estimate, 'R2 storage');
    expect(storage).toMatchObject({ quantity: 1000, included: 10, unit: 'GB-months' });
    expect(storage?.usd).toBeCloseTo(990 * 0.015, 6);
    // Its puts, and a list a minute from each of the 4 shield isolates: 43,200 each in a month.
    const classA = line(estimate, 'R2 Class A operations');
    expect(classA?.quantity).toBeCloseTo((mixTraffic(withR2).r2?.writes ?? 0) + 4 * 43_200, 3);
    expect(line(estimate, 'R2 Class B operations')?.included).toBe(10_000_000);
    const without = mixCost(evicting, PUBLISHED_PRICES, DEPLOYED_INTERVALS);
    expect(without.lines.filter((one) => one.item.startsWith('R2 '))).toEqual([]);
  });

  it('pays where the Cache API forgets what is asked again: less egress than the storage it adds', () => {
    const without = mixCost(evicting, PUBLISHED_PRICES, DEPLOYED_INTERVALS);
    const estimate = mixCost(withR2, PUBLISHED_PRICES, DEPLOYED_INTERVALS);
    expect(estimate.totalUSD).toBeLessThan(without.totalUSD - 15);
  });

  it('does not pay where little is asked again: keeping 2 TB to save a few hundred GB of egress', () => {
    const video = EXAMPLE_MIXES[2] as TrafficMix;
    const without = mixCost(video, PUBLISHED_PRICES, DEPLOYED_INTERVALS);
    const estimate = mixCost(
      { ...video, r2: { hitRatio: 0.6, storedBytes: 2e12, writeShare: 0.3 } },
      PUBLISHED_PRICES,
      DEPLOYED_INTERVALS,
    );
    expect(estimate.totalUSD).toBeGreaterThan(without.totalUSD + 20);
  });
});
