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
