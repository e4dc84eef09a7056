// The HTML the stats page is built of: text escaped (hosts, keys and reasons are what clients sent), big
// numbers with their labels, lists of facts, and tables; every string from the data goes through escapeHtml.

/** The five characters that can end a text run or a quoted attribute (HTML Living Standard §13.1.2.6, §13.2.5). */
const REFERENCES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

interface TableColumn {
  title: string;
  /**
   * `number`: right-aligned figures; `key`: monospace, wrapped anywhere (paths, hosts); `time`: never wrapped; else
   * text.
   */
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

/** Text as HTML, in text and in attribute values alike: the five markup characters as character references. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => REFERENCES[char] ?? char);
}

/** A big number with its label under it (the cards' lead figures). */
export function bigNumber(value: string, label: string): string {
  return `<div class="big"><span class="value">${escapeHtml(value)}</span><span class="label">${escapeHtml(label)}</span></div>`;
}

/** A list of terms and their values. */
export function factList(rows: readonly (readonly [string, string])[]): string {
  return `<dl>${rows.map(([term, value]) => `<dt>${escapeHtml(term)}</dt><dd>${escapeHtml(value)}</dd>`).join('')}</dl>`;
}

/**
 * A table: a caption, headed columns, one row per item, every cell escaped (cells are text, never markup),
 * and a sentence in place of an empty table. Wide tables scroll inside their box rather than widen a phone's page.
 */
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
