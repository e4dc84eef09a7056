// `npm run cost -- --scale` (docs/costs.md, "At scale"): the grid of shared/cost/scale-model.ts as a table, a line per
// isolates × requests a second, what it costs before and after the purge head and the stats shards and which limit binds first.

import type { CostEstimate } from '../shared/cost/cost-model.ts';
import type { RefreshDesign } from '../shared/cost/refresh-design.ts';
import type { LimitLoad, ScalePoint, ScaleScenario } from '../shared/cost/scale-model.ts';
import { formatBytes, formatRatio } from '../shared/stats/format.ts';
import { costTable, type TableFormat } from './cost-tables.ts';

/** Whole dollars with thousands separators: the grid's months run from tens to hundreds of thousands. */
export function usdWhole(usd: number): string {
  return `$${Math.round(usd).toLocaleString('en-US')}`;
}

/** The limit a point is nearest (or past): its name and its load, `2.1× over` past it, `23 %` of it below. */
function bindsFirst(limits: readonly LimitLoad[]): string {
  const first = limits[0];
  if (first === undefined) return 'none';
  return first.load >= 1
    ? `${first.name}: ${first.load.toFixed(1)}× over`
    : `${first.name} at ${Math.round(first.load * 100)} %`;
}

/** The line of a month's bill that costs most, and what. */
function largestLine(estimate: CostEstimate): string {
  const line = [...estimate.lines].sort((a, b) => b.usd - a.usd)[0];
  return line === undefined || line.usd <= 0 ? 'none' : `${line.item} ${usdWhole(line.usd)}`;
}

const usdOf = (estimate: CostEstimate, prefix: string): number =>
  estimate.lines.filter((line) => line.item.startsWith(prefix)).reduce((sum, line) => sum + line.usd, 0);

/** The grid: a line per scenario, for each design its KV and stats-object dollars, its month, and the limit first hit. */
export function renderScale(
  grid: readonly { scenario: ScaleScenario; points: readonly ScalePoint[] }[],
  designs: readonly RefreshDesign[],
  format: TableFormat,
): string {
  const first = grid[0]?.points[0];
  const mix = first === undefined ? '' : describeScaleMix(first);
  const perDesign = designs.flatMap((design) => [
    { title: `${design.name}: KV`, align: 'right' as const },
    { title: `${design.name}: stats DO`, align: 'right' as const },
    { title: `${design.name}: a month`, align: 'right' as const },
    { title: `${design.name}: binds first` },
  ]);
  const last = designs[designs.length - 1]?.name ?? '';
  const rows = grid.map(({ scenario, points }) => {
    const cells = points.flatMap((point) => [
      usdWhole(usdOf(point.estimate, 'KV ')),
      usdWhole(usdOf(point.estimate, 'Durable Object ')),
      usdWhole(point.estimate.platformUSD),
      bindsFirst(point.limits),
    ]);
    const lastPoint = points[points.length - 1];
    return [
      scenario.isolates.toLocaleString('en-US'),
      scenario.requestsPerSecond.toLocaleString('en-US'),
      scenario.locations.toLocaleString('en-US'),
      scenario.shieldIsolates.toLocaleString('en-US'),
      usdWhole(points[0]?.estimate.lines.find((line) => line.item === 'Workers requests')?.usd ?? 0),
      ...cells,
      lastPoint === undefined ? '' : largestLine(lastPoint.estimate),
    ];
  });
  return costTable(
    format,
    `At scale, USD a month on Workers Paid (allowances and subscription in); ${mix}`,
    [
      { title: 'edge isolates', align: 'right' },
      { title: 'requests/s', align: 'right' },
      { title: 'locations', align: 'right' },
      { title: 'shield isolates', align: 'right' },
      { title: 'Workers requests', align: 'right' },
      ...perDesign,
      { title: `largest line, ${last}` },
    ],
    rows,
  );
}

function describeScaleMix(point: ScalePoint): string {
  const { scenario, estimate } = point;
  const requests = estimate.usage.workersRequests;
  const perRequest = requests > 0 ? estimate.usage.servedBytes / requests : 0;
  return [
    `${formatBytes(perRequest)} responses`,
    `${formatRatio(1 - estimate.usage.originBytes / Math.max(1, estimate.usage.servedBytes))} of bytes from a cache`,
    `${scenario.purgesPerMonth.toLocaleString('en-US')} purges a month`,
    `prices read ${estimate.pricesReadAt}`,
  ].join(', ');
}
