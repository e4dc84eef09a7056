// The report's SVG charts (bench/report/charts.ts), drawn from sample data whose titles and names
// hold XML specials: each must be well-formed enough for a browser (balanced tags, quoted
// attributes, only the five predefined entities, one <svg> root); a number that cannot be
// drawn is refused with a RangeError; a chart without data is still drawn.
import { describe, expect, it } from 'vitest';
import { barChart, lineChart } from '../../../bench/report/charts.ts';

const TAG = /^<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>/;
const ENTITY = /^&(?:amp|lt|gt|quot|apos);/;

const bar = () =>
  barChart({
    title: 'Requests/s by cache state <edge & shield>',
    unit: 'req/s',
    groups: [
      {
        label: 'edge hit',
        bars: [
          { series: 'wrk', value: 24332 },
          { series: 'node-http', value: 9120 },
        ],
      },
      {
        label: 'shield hit',
        bars: [
          { series: 'wrk', value: 8410 },
          { series: 'node-http', value: 4050.5 },
        ],
      },
      {
        label: 'origin "cold"',
        bars: [
          { series: 'wrk', value: 1210 },
          { series: 'node-http', value: 980 },
        ],
      },
    ],
  });

const line = () =>
  lineChart({
    title: "p99 latency vs connections (Cache-Status 'hit')",
    xLabel: 'connections',
    yLabel: 'p99 latency (ms)',
    logX: true,
    series: [
      { name: 'edge hit', points: [1, 2, 5, 10, 20, 50, 100, 200].map((x) => ({ x, y: 0.4 + x * 0.05 })) },
      { name: 'shield hit', points: [1, 2, 5, 10, 20, 50, 100, 200].map((x) => ({ x, y: 1.2 + x * 0.12 })) },
      { name: 'miss & origin', points: [1, 10, 100, 200].map((x) => ({ x, y: 6 + x * 0.3 })) },
    ],
  });

describe('charts', () => {
  it('draws a bar chart and a line chart with XML specials in their text as well-formed SVG', () => {
    for (const svg of [bar(), line()]) expect(wellFormedProblem(svg)).toBeUndefined();
    expect(bar()).toContain('Requests/s by cache state &lt;edge &amp; shield&gt;');
    expect(bar()).toContain('origin &quot;cold&quot;');
    expect(line()).toContain('Cache-Status &apos;hit&apos;');
  });

  it('refuses a NaN value and a log-scale x of 0 with a RangeError', () => {
    expect(() =>
      barChart({ title: 't', unit: 'u', groups: [{ label: 'g', bars: [{ series: 's', value: Number.NaN }] }] }),
    ).toThrow(RangeError);
    expect(() =>
      lineChart({
        title: 't',
        xLabel: 'x',
        yLabel: 'y',
        logX: true,
        series: [{ name: 's', points: [{ x: 0, y: 1 }] }],
      }),
    ).toThrow(RangeError);
  });

  it('draws charts without data, with no NaN in them', () => {
    for (const svg of [
      barChart({ title: 'empty', unit: 'u', groups: [] }),
      lineChart({ title: 'empty', xLabel: 'x', yLabel: 'y', logX: true, series: [] }),
    ]) {
      expect(wellFormedProblem(svg)).toBeUndefined();
      expect(svg).not.toContain('NaN');
    }
  });

  it('has a checker that does catch what it looks for', () => {
    expect(wellFormedProblem('<svg xmlns="http://www.w3.org/2000/svg"><g></svg>')).toMatch(/closes a tag/);
    expect(wellFormedProblem('<svg xmlns="http://www.w3.org/2000/svg">a & b</svg>')).toMatch(/entity/);
    expect(
      wellFormedProblem('<svg xmlns="http://www.w3.org/2000/svg"></svg><svg xmlns="http://www.w3.org/2000/svg"></svg>'),
    ).toMatch(/second root/);
    expect(wellFormedProblem('<svg xmlns="http://www.w3.org/2000/svg"><rect x=1/></svg>')).toMatch(/malformed tag/);
  });
});

/** Why `xml` is not a well-formed single-rooted <svg> document, or undefined when it is. */
function wellFormedProblem(xml: string): string | undefined {
  const open: string[] = [];
  let roots = 0;
  let rest = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  while (rest.length > 0) {
    if (rest.startsWith('<')) {
      const tag = TAG.exec(rest);
      if (!tag) return `a malformed tag at …${rest.slice(0, 40)}`;
      const [whole, closing, name = '', , selfClosing] = tag;
      if (closing && selfClosing) return `</${name}/> is neither closing nor self-closing`;
      if (closing && open.pop() !== name) return `</${name}> closes a tag that is not the open one`;
      if (!closing && open.length === 0 && ++roots > 1) return `a second root element <${name}>`;
      if (!closing && !selfClosing) open.push(name);
      if (!closing && open.length === 0 && !selfClosing) return `<${name}> outside the root`;
      rest = rest.slice(whole.length);
    } else if (rest.startsWith('&')) {
      const entity = ENTITY.exec(rest);
      if (!entity) return `an unknown or unescaped entity at …${rest.slice(0, 20)}`;
      rest = rest.slice(entity[0].length);
    } else {
      if (open.length === 0 && rest.trim().length > 0 && !/^\s/.test(rest))
        return `text outside the root: ${rest.slice(0, 20)}`;
      rest = rest.slice(Math.max(1, rest.search(/[<&]/) === -1 ? rest.length : rest.search(/[<&]/)));
    }
  }
  if (open.length > 0) return `unclosed <${open.join('>, <')}>`;
  if (roots !== 1 || !xml.includes('<svg xmlns="http://www.w3.org/2000/svg"'))
    return 'not one <svg> root in the SVG namespace';
  return undefined;
}
