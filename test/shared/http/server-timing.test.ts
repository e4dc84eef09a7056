import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendServerTiming, serverTimingMetric, type TierMetric } from '../../../shared/http/server-timing.ts';
import { TIER_NAMES } from '../../../shared/tiers/tiers.ts';

describe('serverTimingMetric', () => {
  it('names the tier and gives its duration in milliseconds as dur (W3C Server Timing)', () => {
    expect(serverTimingMetric('edge', 12)).toBe('edge;dur=12');
    expect(serverTimingMetric('shield', 3.5)).toBe('shield;dur=3.5');
    expect(serverTimingMetric('origin', 250)).toBe('origin;dur=250');
  });

  it('rounds the duration to a tenth of a millisecond', () => {
    expect(serverTimingMetric('edge', 1.26)).toBe('edge;dur=1.3');
    expect(serverTimingMetric('edge', 1.04)).toBe('edge;dur=1');
    expect(serverTimingMetric('edge', 0.04)).toBe('edge;dur=0');
  });

  it('never reports a negative duration, as a clock step back could otherwise produce', () => {
    expect(serverTimingMetric('edge', -5)).toBe('edge;dur=0');
    expect(serverTimingMetric('edge', -0.01)).toBe('edge;dur=0');
  });
});

describe('appendServerTiming', () => {
  it('is our metric alone when there is no existing field', () => {
    expect(appendServerTiming(null, 'edge;dur=1')).toBe('edge;dur=1');
    expect(appendServerTiming('', 'edge;dur=1')).toBe('edge;dur=1');
    expect(appendServerTiming('  ', 'edge;dur=1')).toBe('edge;dur=1');
  });

  it('puts our metric after those of the hops behind us', () => {
    const fromShield = appendServerTiming('origin;dur=80', 'shield;dur=95');
    expect(appendServerTiming(fromShield, 'edge;dur=101.5')).toBe('origin;dur=80, shield;dur=95, edge;dur=101.5');
  });

  it("keeps the origin's own metrics as they were", () => {
    expect(appendServerTiming(' db;dur=53, app;desc="render";dur=47.2 ', 'shield;dur=120')).toBe(
      'db;dur=53, app;desc="render";dur=47.2, shield;dur=120',
    );
  });
});

describe('Server-Timing properties', () => {
  it('always writes name;dur=<non-negative decimal with at most one fractional digit>', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<TierMetric>(...TIER_NAMES, 'origin'),
        fc.double({ min: -1e6, max: 1e9, noNaN: true }),
        (name, ms) => {
          expect(serverTimingMetric(name, ms)).toMatch(new RegExp(`^${name};dur=\\d+(\\.\\d)?$`));
        },
      ),
    );
  });
});
