// The R2 tier's settings (shared/config/r2-tier-config.ts), as parseConfig reads them.

import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../shared/config/config.ts';

const base = { ORIGIN_KIND: 'http', ORIGIN_URL: 'http://127.0.0.1:8080' } as const;

describe('the R2 tier settings', () => {
  it("defaults: admitted where it pays, at R2's published prices, a put a second", () => {
    expect(parseConfig(base).r2Tier).toEqual({
      admit: 'cost',
      storagePerGbMonth: 0.015,
      writePerMillion: 4.5,
      readPerMillion: 0.36,
      writesPerHour: 3600,
    });
  });

  it('reads every setting given', () => {
    expect(
      parseConfig({
        ...base,
        R2_TIER_ADMIT: 'all',
        R2_STORAGE_PRICE_PER_GB_MONTH: '0.01',
        R2_WRITE_PRICE_PER_MILLION: '9',
        R2_READ_PRICE_PER_MILLION: '0.9',
        R2_WRITES_PER_HOUR: '0',
      }).r2Tier,
    ).toEqual({ admit: 'all', storagePerGbMonth: 0.01, writePerMillion: 9, readPerMillion: 0.9, writesPerHour: 0 });
  });

  it('refuses an admission it does not know and a price or budget that is no number, naming the setting', () => {
    expect(() => parseConfig({ ...base, R2_TIER_ADMIT: 'some' })).toThrow(/R2_TIER_ADMIT/);
    for (const value of ['$0.015', '-1', 'cheap'])
      expect(() => parseConfig({ ...base, R2_STORAGE_PRICE_PER_GB_MONTH: value })).toThrow(
        /R2_STORAGE_PRICE_PER_GB_MONTH/,
      );
    expect(() => parseConfig({ ...base, R2_WRITE_PRICE_PER_MILLION: '4,5' })).toThrow(/R2_WRITE_PRICE_PER_MILLION/);
    expect(() => parseConfig({ ...base, R2_READ_PRICE_PER_MILLION: 'free' })).toThrow(/R2_READ_PRICE_PER_MILLION/);
    expect(() => parseConfig({ ...base, R2_WRITES_PER_HOUR: '1.5' })).toThrow(/R2_WRITES_PER_HOUR/);
  });
});
