import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  appendServerTiming,
  formatTimingMetric,
  parseServerTiming,
  serverTimingMetric,
  type TierMetric,
} from '../../../shared/http/server-timing.ts';
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

describe('parseServerTiming and formatTimingMetric', () => {
  it('reads name, dur and desc of each metric, in order', () => {
    expect(parseServerTiming('origin;dur=80;desc="1 slice", shield-slice;dur=8.5, cache')).toEqual([
      { name: 'origin', dur: 80, desc: '1 slice' },
      { name: 'shield-slice', dur: 8.5 },
      { name: 'cache' },
    ]);
  });

  it('is lenient as the W3C processing model: the first of a parameter counts, a bad dur and a bad name are dropped', () => {
    expect(parseServerTiming('a;dur=1;dur=2;desc=x;desc=y, b;dur=soon, "c";dur=3, d ; DUR = 4')).toEqual([
      { name: 'a', dur: 1, desc: 'x' },
      { name: 'b' },
      { name: 'd', dur: 4 },
    ]);
    expect(parseServerTiming(null)).toEqual([]);
    expect(parseServerTiming('app;desc="a, b; \\"c\\""')).toEqual([{ name: 'app', desc: 'a, b; "c"' }]);
  });

  it('writes what it reads back', () => {
    const metric = fc.record(
      {
        name: fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/),
        dur: fc.integer({ min: 0, max: 1e6 }).map((n) => n / 10),
        desc: fc.string({ unit: fc.constantFrom('a', ' ', ',', ';', '"', '\\', '=', '1') }),
      },
      { requiredKeys: ['name'] },
    );
    fc.assert(
      fc.property(fc.array(metric, { maxLength: 5 }), (metrics) => {
        const field = metrics.map(formatTimingMetric).join(', ');
        expect(parseServerTiming(field)).toEqual(metrics);
      }),
    );
  });
});
