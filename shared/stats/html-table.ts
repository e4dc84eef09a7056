// A table of the stats page: a caption, headed columns, one row per item, every cell escaped
// here (cells are text from the data, never markup), and a sentence in place of an empty
// table. Wide tables scroll inside their box rather than widen the page on a phone.

import { escapeHtml } from './html-escape.ts';

export interface TableColumn {
  title: string;
  /** `number`: right-aligned figures; `key`: monospace, wrapped anywhere (paths, hosts); `time`: never wrapped; else text. */
  kind?: 'text' | 'number' | 'key' | 'time';
}

export interface TableSpec {
  caption: string;
  columns: readonly TableColumn[];
  /** Plain text, one string per column. */
  rows: readonly (readonly string[])[];
  /** Said instead of the table when there are no rows. */
  empty: string;
}

export function htmlTable(spec: TableSpec): string {
  if (spec.rows.length === 0) {
    return `<div class="card"><h3>${escapeHtml(spec.caption)}</h3><p class="note">${escapeHtml(spec.empty)}</p></div>`;
  }
  const classOf = (column: TableColumn | undefined): string =>
    column?.kind === undefined || column.kind === 'text' ? '' : ` class="${column.kind}"`;
  const head = spec.columns
    .map((column) => `<th scope="col"${classOf(column)}>${escapeHtml(column.title)}</th>`)
    .join('');
  const body = spec.rows
    .map(
      (row) =>
        `<tr>${row.map((cell, index) => `<td${classOf(spec.columns[index])}>${escapeHtml(cell)}</td>`).join('')}</tr>`,
    )
    .join('');
  return `<div class="card scroll"><table><caption>${escapeHtml(spec.caption)}</caption><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
}
