// Printing for a terminal. Hosts, keys and error bodies are what clients and servers sent: every cell and every quoted
// answer passes through printable(), control characters (an escape sequence could rewrite the screen) as `\xNN`.

export function printable(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f-\u009f]/g,
    (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}

export interface Column {
  title: string;
  align?: 'left' | 'right';
}

const GAP = '  ';

/** A title, a header, a rule and aligned columns, numbers to the right; plain spaces, to survive a copy into a chat. */
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
