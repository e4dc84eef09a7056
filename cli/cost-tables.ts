// `npm run cost`'s tables (docs/costs.md): one table as text for a terminal or as the Markdown of docs/costs.md, and
// a month against what a Storj user has without tiercache (shared/cost/alternatives.ts).

import type { Comparison } from '../shared/cost/alternatives.ts';
import { formatBytes, formatUsd } from '../shared/stats/format.ts';
import { type Column, textTable } from './print.ts';

/** The tables as text for a terminal, or as the Markdown of docs/costs.md. */
export type TableFormat = 'text' | 'markdown';

/** A titled table: aligned columns of text, or a Markdown table under a bold title. */
export function costTable(
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

/**
 * The month three ways, a column each: the origin alone, Cloudflare's cache in front, tiercache; what each costs, what
 * of it Cloudflare charges, what the origin sends, what each serves from a cache, and what tiercache saves against each.
 */
export function renderComparison(
  name: string,
  comparison: Comparison,
  tieredCache: boolean,
  format: TableFormat,
): string {
  const ways = [comparison.storjAlone, comparison.cloudflareCache, comparison.tiercache];
  return costTable(
    format,
    `${name}: against what a Storj user has (Cloudflare's cache: Tiered Cache ${tieredCache ? 'on' : 'off'})`,
    [{ title: '' }, { title: 'Storj alone' }, { title: "Cloudflare's cache in front" }, { title: 'tiercache' }],
    [
      ['a month', ...ways.map((way) => formatUsd(way.usd))],
      ['Cloudflare charges', ...ways.map((way) => formatUsd(way.platformUSD))],
      ['origin egress', ...ways.map((way) => formatBytes(way.originBytes))],
      ['served from a cache', ...ways.map((way) => way.cached)],
      [
        'tiercache saves',
        signedUsd(comparison.savedUSD.storjAlone),
        signedUsd(comparison.savedUSD.cloudflareCache),
        '',
      ],
    ],
  );
}

/** USD, a saving that is a cost marked with a minus sign. */
export function signedUsd(usd: number): string {
  return usd >= 0 ? formatUsd(usd) : `−${formatUsd(-usd)}`;
}
