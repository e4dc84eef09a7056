import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineChart, niceCeiling } from '../../../shared/stats/stats-page-charts.ts';

const spec = (values: readonly number[][], labels?: readonly string[]) => ({
  id: 'c',
  title: 'Requests per minute',
  labels: labels ?? values[0]?.map((_, i) => `m${i}`) ?? [],
  series: values.map((series, i) => ({ name: `s${i}`, tone: i === 0 ? 'edge' : 'shield', values: series })),
  format: (value: number) => String(value),
});

/** Every number of every coordinate attribute and path. */
function coordinates(svg: string): number[] {
  const attributes = [...svg.matchAll(/ (?:x|y|x1|x2|y1|y2)="([^"]*)"/g)].map((match) => Number(match[1]));
  const paths = [...svg.matchAll(/ d="([^"]*)"/g)].flatMap((match) =>
    match[1]!
      .split(/[MLZ,]/)
      .filter(Boolean)
      .map(Number),
  );
  return [...attributes, ...paths];
}

describe('niceCeiling', () => {
  it('rounds up to 1, 2 or 5 times a power of ten', () => {
    expect([0, 0.3, 1, 1.01, 3, 7, 10, 11, 380, 2e9, 9.3e9].map(niceCeiling)).toEqual([
      1, 0.5, 1, 2, 5, 10, 10, 20, 500, 2e9, 1e10,
    ]);
    expect(niceCeiling(Number.NaN)).toBe(1);
    expect(niceCeiling(-5)).toBe(1);
  });

  it('is at least the value and at most 2.5 times it', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-6, max: 1e18, noNaN: true }), (value) => {
        const top = niceCeiling(value);
        expect(top).toBeGreaterThanOrEqual(value * (1 - 1e-9));
        expect(top).toBeLessThanOrEqual(value * 2.5 * (1 + 1e-9));
        const mantissa = top / 10 ** Math.floor(Math.log10(top) + 1e-9);
        expect([1, 2, 5].some((step) => Math.abs(mantissa - step) < 1e-9)).toBe(true);
      }),
    );
  });
});

describe('lineChart', () => {
  it('is an SVG image named by its title and described in words (peak and its minute)', () => {
    const svg = lineChart(
      spec([
        [1, 5, 2],
        [0, 1, 0],
      ]),
    );
    expect(svg).toMatch(/^<svg class="chart" viewBox="0 0 400 180" role="img" aria-labelledby="c-title c-desc"/);
    expect(svg).toContain('<title id="c-title">Requests per minute</title>');
    expect(svg).toContain(
      '<desc id="c-desc">Requests per minute, m0 to m2. s0: 8 in all, at most 5 (m1); s1: 1 in all, at most 1 (m1).</desc>',
    );
    expect(svg.endsWith('</svg>')).toBe(true);
  });

  it('draws one area and one line per series, in its tone', () => {
    const svg = lineChart(
      spec([
        [1, 2],
        [3, 4],
      ]),
    );
    expect(svg.match(/class="area tone-edge"/g)).toHaveLength(1);
    expect(svg.match(/class="line tone-shield"/g)).toHaveLength(1);
  });

  it('labels the y axis at 0, half and the top, and the x axis at first, middle and last', () => {
    const svg = lineChart(spec([[0, 3, 7, 1, 2]]));
    const labels = [...svg.matchAll(/<text class="axis"[^>]*>([^<]*)<\/text>/g)].map((match) => match[1]);
    expect(labels).toEqual(['0', '5', '10', 'm0', 'm2', 'm4']);
  });

  it('escapes its title, labels, names and tones', () => {
    const svg = lineChart({
      ...spec([[1]], ['<b>']),
      title: '<script>x</script>',
      series: [{ name: '"n"', tone: '"><x', values: [1] }],
    });
    expect(svg).not.toMatch(/<script|<b>|<x/);
    expect(svg).toContain('&lt;script&gt;');
  });

  it('keeps every point inside its box, whatever the values (none, negative, huge, not numbers)', () => {
    const value = fc.oneof(fc.double({ noNaN: false }), fc.integer({ min: 0, max: 2 ** 50 }));
    fc.assert(
      fc.property(fc.array(fc.array(value, { maxLength: 70 }), { maxLength: 3 }), (values) => {
        const svg = lineChart(
          spec(
            values,
            Array.from({ length: Math.max(0, ...values.map((series) => series.length)) }, (_, i) => `m${i}`),
          ),
        );
        for (const coordinate of coordinates(svg)) {
          expect(Number.isFinite(coordinate)).toBe(true);
          expect(coordinate >= 0 && coordinate <= 400).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });
});
