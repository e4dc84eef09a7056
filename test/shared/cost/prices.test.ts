import { describe, expect, it } from 'vitest';
import { PRICES_READ_AT, PUBLISHED_PRICES } from '../../../shared/cost/prices.ts';

describe('PUBLISHED_PRICES', () => {
  it("names the page each price was read from, on Cloudflare's or Storj's documentation, and the day it was read", () => {
    expect(PRICES_READ_AT).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const [name, price] of Object.entries(PUBLISHED_PRICES)) {
      if (typeof price === 'string') continue;
      expect(price.source, name).toMatch(/^https:\/\/(developers\.cloudflare\.com|storj\.dev)\//);
    }
  });

  it('holds the Workers Paid allowances and prices as published', () => {
    const p = PUBLISHED_PRICES;
    expect(p.subscription.usdPerMonth).toBe(5);
    expect([p.workersRequests.includedPerMonth, p.workersRequests.usd]).toEqual([10e6, 0.3]);
    expect([p.workersCpuMs.includedPerMonth, p.workersCpuMs.usd]).toEqual([30e6, 0.02]);
    expect([p.durableObjectRequests.includedPerMonth, p.durableObjectRequests.usd]).toEqual([1e6, 0.15]);
    expect([p.kvListRequests.includedPerMonth, p.kvListRequests.usd]).toEqual([1e6, 5]);
    expect([p.kvReadRequests.includedPerMonth, p.kvReadRequests.usd]).toEqual([10e6, 0.5]);
    expect([p.kvWriteRequests.includedPerMonth, p.kvWriteRequests.usd]).toEqual([1e6, 5]);
    expect([p.analyticsDataPoints.includedPerMonth, p.analyticsDataPoints.usd]).toEqual([10e6, 0.25]);
    expect(p.originEgressPerTB.usd).toBe(7);
  });
});
