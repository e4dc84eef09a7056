import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatAmount,
  formatBytes,
  formatCompact,
  formatCount,
  formatMinute,
  formatMs,
  formatRatio,
  formatTime,
  formatUsd,
  NONE,
} from '../../../shared/stats/format.ts';

const UNITS = { B: 1, kB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12, PB: 1e15, EB: 1e18 } as const;

describe('formatBytes', () => {
  it('says bytes in SI units (1 kB = 1000 B), three significant digits', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(1000)).toBe('1.00 kB');
    expect(formatBytes(1024)).toBe('1.02 kB');
    expect(formatBytes(12_345)).toBe('12.3 kB');
    expect(formatBytes(123_456_789)).toBe('123 MB');
    expect(formatBytes(7.27e9)).toBe('7.27 GB');
    expect(formatBytes(1e12)).toBe('1.00 TB');
  });

  it('moves up a unit rather than say 1000 of one', () => {
    expect(formatBytes(999_600)).toBe('1.00 MB');
    expect(formatBytes(9_996)).toBe('10.0 kB');
    expect(formatBytes(99_960)).toBe('100 kB');
  });

  it('is a dash for what is no number', () => {
    expect(formatBytes(Number.NaN)).toBe(NONE);
    expect(formatBytes(Number.POSITIVE_INFINITY)).toBe(NONE);
  });

  it('reads back within rounding of what it was given, below 1000 of its unit', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (bytes) => {
        const match = /^(\d+(?:\.\d+)?) (B|kB|MB|GB|TB|PB|EB)$/.exec(formatBytes(bytes));
        expect(match).not.toBeNull();
        const value = Number(match![1]);
        expect(value).toBeLessThan(1000);
        const back = value * UNITS[match![2] as keyof typeof UNITS];
        expect(Math.abs(back - bytes)).toBeLessThanOrEqual(Math.max(0.5, bytes * 0.0051));
      }),
    );
  });
});

describe('formatRatio, formatMs, formatCount, formatUsd', () => {
  it('says ratios as percentages, one decimal; nothing to divide is a dash', () => {
    expect(formatRatio(0.973)).toBe('97.3%');
    expect(formatRatio(1)).toBe('100.0%');
    expect(formatRatio(0)).toBe('0.0%');
    expect(formatRatio(null)).toBe(NONE);
    expect(formatRatio(Number.NaN)).toBe(NONE);
  });

  it('says every ratio from 0 to 1 as a percentage from 0.0% to 100.0%, rounded down (never "100.0%" unless it is)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), (ratio) => {
        const text = formatRatio(ratio);
        expect(text).toMatch(/^\d{1,3}\.\d%$/);
        const said = Number.parseFloat(text);
        expect(said).toBeLessThanOrEqual(ratio * 100 + 1e-9);
        expect(ratio * 100 - said).toBeLessThan(0.1 + 1e-9);
        if (ratio < 1) expect(text).not.toBe('100.0%');
      }),
    );
    expect(formatRatio(0.9996)).toBe('99.9%');
    expect(formatRatio(1)).toBe('100.0%');
  });

  it('says milliseconds with one decimal', () => {
    expect(formatMs(16.6957)).toBe('16.7 ms');
    expect(formatMs(null)).toBe(NONE);
  });

  it('groups counts by thousands, the same everywhere', () => {
    expect(formatCount(1_234_567)).toBe('1,234,567');
    expect(formatCount(0)).toBe('0');
    expect(formatCount(Number.NaN)).toBe(NONE);
  });

  it('says dollars in cents once there are any, else to a hundredth of a cent', () => {
    expect(formatUsd(28)).toBe('$28.00');
    expect(formatUsd(0.0509)).toBe('$0.0509');
    expect(formatUsd(0)).toBe('$0.0000');
    expect(formatUsd(Number.NaN)).toBe(NONE);
  });
});

describe('formatAmount, formatCompact', () => {
  it('says an amount in whole units with separators, a small fraction (GB, GB-s) to two decimals', () => {
    expect([
      formatAmount(0),
      formatAmount(12_345_678.4),
      formatAmount(31.384),
      formatAmount(0.5),
      formatAmount(250),
    ]).toEqual(['0', '12,345,678', '31.38', '0.50', '250']);
    expect(formatAmount(Number.NaN)).toBe(NONE);
  });

  it('shortens what a phone has no room for: k, M and bn with one decimal, never "1000k"', () => {
    expect([
      formatCompact(9_999),
      formatCompact(10_000),
      formatCompact(14_083_920),
      formatCompact(25e9),
      formatCompact(999_960),
      formatCompact(17.51),
    ]).toEqual(['9,999', '10k', '14.1 M', '25 bn', '1 M', '17.51']);
    expect(formatCompact(Number.POSITIVE_INFINITY)).toBe(NONE);
  });
});

describe('formatTime, formatMinute', () => {
  it('says a time to the second in UTC, and its minute as HH:MM', () => {
    expect(formatTime('2026-02-03T14:37:21.000Z')).toBe('2026-02-03 14:37:21Z');
    expect(formatTime(Date.parse('2026-02-03T14:37:21.999Z'))).toBe('2026-02-03 14:37:21Z');
    expect(formatMinute('2026-02-03T14:37:00.000Z')).toBe('14:37');
  });

  it('leaves text that is no time as it is', () => {
    expect(formatTime('soon')).toBe('soon');
    expect(formatMinute('soon')).toBe('soon');
  });
});
