// `npm run cost` as tables (docs/costs.md): one month's bill line by line and what it comes to
// against the origin's egress alone, or the example mixes side by side; as text for a terminal
// or as the Markdown of docs/costs.md. Pure: estimates in, text out.

import type { CostEstimate } from '../shared/cost/cost-model.ts';
import type { TrafficMix } from '../shared/cost/traffic-mix.ts';
import { formatAmount, formatBytes, formatRatio, formatUsd } from '../shared/stats/format.ts';
import { type Column, textTable } from './command.ts';

export type TableFormat = 'text' | 'markdown';

/** A mix's month: its bill, then the totals. */
export function renderEstimate(mix: TrafficMix, estimate: CostEstimate, format: TableFormat): string {
  const title = `${describeMix(mix)}; prices read ${estimate.pricesReadAt}${estimate.allowances ? '' : ", without the plan's allowances"}`;
  const bill = table(
    format,
    title,
    [
      { title: 'item' },
      { title: "a month's use", align: 'right' },
      { title: 'included', align: 'right' },
      { title: 'USD', align: 'right' },
    ],
    estimate.lines.map((line) => [
      line.item,
      `${formatAmount(line.quantity)} ${line.unit}`,
      formatAmount(line.included),
      formatUsd(line.usd),
    ]),
  );
  const totals = table(
    format,
    "Against the origin's egress alone",
    [{ title: '' }, { title: 'USD a month', align: 'right' }],
    [
      ['Workers Paid subscription', formatUsd(estimate.subscriptionUSD)],
      ['Workers Paid, all lines', formatUsd(estimate.platformUSD)],
      ['origin egress behind tiercache', formatUsd(estimate.originEgressUSD)],
      ['with tiercache', formatUsd(estimate.totalUSD)],
      ['origin egress alone', formatUsd(estimate.egressAloneUSD)],
      [estimate.savedUSD >= 0 ? 'saved' : 'costs more than egress alone', formatUsd(Math.abs(estimate.savedUSD))],
    ],
  );
  return `${bill}\n\n${totals}`;
}

/** The examples side by side: what each uses of the lines that vary, and what it comes to. */
export function renderExamples(
  examples: readonly { mix: TrafficMix; estimate: CostEstimate }[],
  format: TableFormat,
): string {
  const line = (estimate: CostEstimate, item: string): number =>
    estimate.lines.find((one) => one.item === item)?.quantity ?? 0;
  return table(
    format,
    `Three example months; prices read ${examples[0]?.estimate.pricesReadAt ?? ''}`,
    [
      { title: 'mix' },
      { title: 'edge requests', align: 'right' },
      { title: 'Workers CPU ms', align: 'right' },
      { title: 'DO requests', align: 'right' },
      { title: 'KV list requests', align: 'right' },
      { title: 'Workers Paid', align: 'right' },
      { title: 'origin egress', align: 'right' },
      { title: 'with tiercache', align: 'right' },
      { title: 'egress alone', align: 'right' },
      { title: 'saved', align: 'right' },
    ],
    examples.map(({ mix, estimate }) => [
      mix.name,
      formatAmount(estimate.usage.workersRequests),
      formatAmount(estimate.usage.cpuMs.edge + estimate.usage.cpuMs.shield),
      formatAmount(line(estimate, 'Durable Object requests')),
      formatAmount(line(estimate, 'KV list requests')),
      formatUsd(estimate.platformUSD),
      formatUsd(estimate.originEgressUSD),
      formatUsd(estimate.totalUSD),
      formatUsd(estimate.egressAloneUSD),
      estimate.savedUSD >= 0 ? formatUsd(estimate.savedUSD) : `−${formatUsd(-estimate.savedUSD)}`,
    ]),
  );
}

/** What a mix says, in a line. */
export function describeMix(mix: TrafficMix): string {
  const parts = [
    `${formatBytes(mix.bytesPerMonth)} a month in ${formatBytes(mix.responseBytes)} responses`,
    `edge hit ratio ${formatRatio(mix.edgeHitRatio)} (${formatRatio(mix.memoryShare)} of hits from memory)`,
    `shield ${formatRatio(mix.shieldHitRatio)} of the edge's misses`,
    mix.sliceBytes === undefined ? 'cached whole' : `${formatBytes(mix.sliceBytes)} slices`,
    `${mix.isolates.edge} edge and ${mix.isolates.shield} shield isolates`,
  ];
  return parts.join(', ');
}

function table(
  format: TableFormat,
  title: string,
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
): string {
  if (format === 'text') return textTable(title, columns, rows);
  const cell = (text: string): string => text.replaceAll('|', '\\|');
  const line = (cells: readonly string[]): string => `| ${cells.map(cell).join(' | ')} |`;
  return [
    `**${title}**`,
    '',
    line(columns.map((column) => column.title)),
    `|${columns.map((column) => (column.align === 'right' ? '---:' : '---')).join('|')}|`,
    ...rows.map(line),
  ].join('\n');
}
