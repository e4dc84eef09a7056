// The stats page's cards are made of two things: big numbers with a label under each, and a
// list of terms and their values. Every string is escaped here: values come from the data.

import { escapeHtml } from './html-escape.ts';

export function bigNumber(value: string, label: string): string {
  return `<div class="big"><span class="value">${escapeHtml(value)}</span><span class="label">${escapeHtml(label)}</span></div>`;
}

export function factList(rows: readonly (readonly [string, string])[]): string {
  return `<dl>${rows.map(([term, value]) => `<dt>${escapeHtml(term)}</dt><dd>${escapeHtml(value)}</dd>`).join('')}</dl>`;
}
