// `node bench/charts-check.ts`: draws a sample bar chart and line chart (titles and names with
// XML specials in them), writes them to /tmp/tiercache-{bar,line}.svg, and checks each is
// well-formed enough for a browser: balanced tags, quoted attributes, only the five predefined
// entities, one <svg> root. Exits 1 when one is not; a chart that throws fails it too.

import { writeFile } from 'node:fs/promises';
import { barChart, lineChart } from './charts.ts';
import { describeError } from './report.ts';

const TAG = /^<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>/;
const ENTITY = /^&(?:amp|lt|gt|quot|apos);/;

await main();

function samples(): Record<string, string> {
  return {
    '/tmp/tiercache-bar.svg': barChart({
      title: 'Requests/s by cache state <edge & shield>',
      unit: 'req/s',
      groups: [
        { label: 'edge hit', bars: [{ series: 'wrk', value: 24332 }, { series: 'node-http', value: 9120 }] },
        { label: 'shield hit', bars: [{ series: 'wrk', value: 8410 }, { series: 'node-http', value: 4050.5 }] },
        { label: 'origin "cold"', bars: [{ series: 'wrk', value: 1210 }, { series: 'node-http', value: 980 }] },
      ],
    }),
    '/tmp/tiercache-line.svg': lineChart({
      title: "p99 latency vs connections (Cache-Status 'hit')",
      xLabel: 'connections',
      yLabel: 'p99 latency (ms)',
      logX: true,
      series: [
        { name: 'edge hit', points: [1, 2, 5, 10, 20, 50, 100, 200].map((x) => ({ x, y: 0.4 + x * 0.05 })) },
        { name: 'shield hit', points: [1, 2, 5, 10, 20, 50, 100, 200].map((x) => ({ x, y: 1.2 + x * 0.12 })) },
        { name: 'miss & origin', points: [1, 10, 100, 200].map((x) => ({ x, y: 6 + x * 0.3 })) },
      ],
    }),
  };
}

async function main(): Promise<void> {
  let failed = 0;
  try {
    for (const [path, svg] of Object.entries(samples())) {
      await writeFile(path, svg);
      const problem = wellFormedProblem(svg);
      console.log(`${problem ? 'FAIL' : 'ok  '} ${path} (${svg.length} characters)${problem ? `: ${problem}` : ''}`);
      if (problem) failed++;
    }
    for (const [what, draw] of [
      ['NaN value', () => barChart({ title: 't', unit: 'u', groups: [{ label: 'g', bars: [{ series: 's', value: Number.NaN }] }] })],
      ['log x of 0', () => lineChart({ title: 't', xLabel: 'x', yLabel: 'y', logX: true, series: [{ name: 's', points: [{ x: 0, y: 1 }] }] })],
    ] as const) {
      const threw = (() => {
        try {
          draw();
          return false;
        } catch (error) {
          return error instanceof RangeError;
        }
      })();
      console.log(`${threw ? 'ok  ' : 'FAIL'} a ${what} is refused with a RangeError`);
      if (!threw) failed++;
    }
    const empty = [barChart({ title: 'empty', unit: 'u', groups: [] }), lineChart({ title: 'empty', xLabel: 'x', yLabel: 'y', logX: true, series: [] })];
    const emptyProblem = empty.map(wellFormedProblem).find(Boolean);
    console.log(`${emptyProblem ? 'FAIL' : 'ok  '} charts without data are drawn${emptyProblem ? `: ${emptyProblem}` : ''}`);
    if (emptyProblem || empty.some((svg) => svg.includes('NaN'))) failed++;
  } catch (error) {
    console.error(`charts-check threw: ${describeError(error)}`);
    failed++;
  }
  console.log(failed === 0 ? 'charts-check: PASS' : `charts-check: ${failed} FAILED`);
  process.exitCode = failed === 0 ? 0 : 1;
}

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
      if (open.length === 0 && rest.trim().length > 0 && !/^\s/.test(rest)) return `text outside the root: ${rest.slice(0, 20)}`;
      rest = rest.slice(Math.max(1, rest.search(/[<&]/) === -1 ? rest.length : rest.search(/[<&]/)));
    }
  }
  if (open.length > 0) return `unclosed <${open.join('>, <')}>`;
  if (roots !== 1 || !xml.includes('<svg xmlns="http://www.w3.org/2000/svg"')) return 'not one <svg> root in the SVG namespace';
  return undefined;
}
