// A table for a terminal: a title, a header, a rule and aligned columns, numbers to the right.
// Plain spaces only (no box drawing), so it survives copying into an issue or a chat; every
// cell printable (printable.ts), since hosts and keys are what clients sent.

import { printable } from './printable.ts';

export interface Column {
  title: string;
  align?: 'left' | 'right';
}

const GAP = '  ';

export function textTable(title: string, columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  const lines = [title];
  if (rows.length === 0) return [...lines, '  (none)'].join('\n');
  const cellsOf = rows.map((row) => row.map(printable));
  const widths = columns.map((column, i) =>
    Math.max(column.title.length, ...cellsOf.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    `${GAP}${columns
      .map((column, i) => {
        const cell = cells[i] ?? '';
        const width = widths[i] ?? 0;
        return column.align === 'right' ? cell.padStart(width) : cell.padEnd(width);
      })
      .join(GAP)
      .trimEnd()}`;
  lines.push(line(columns.map((column) => column.title)));
  lines.push(line(widths.map((width) => '-'.repeat(width))));
  for (const row of cellsOf) lines.push(line(row));
  return lines.join('\n');
}
