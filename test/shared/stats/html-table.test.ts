import { describe, expect, it } from 'vitest';
import { htmlTable } from '../../../shared/stats/html-table.ts';

describe('htmlTable', () => {
  it('heads its columns and classes its cells by kind', () => {
    const html = htmlTable({
      caption: 'Hosts',
      columns: [{ title: 'host', kind: 'key' }, { title: 'requests', kind: 'number' }, { title: 'note' }],
      rows: [['a.example', '3', 'x']],
      empty: 'none',
    });
    expect(html).toBe(
      '<div class="card scroll"><table><caption>Hosts</caption><thead><tr><th scope="col" class="key">host</th><th scope="col" class="number">requests</th><th scope="col">note</th></tr></thead>' +
        '<tbody><tr><td class="key">a.example</td><td class="number">3</td><td>x</td></tr></tbody></table></div>',
    );
  });

  it('escapes every cell, the caption and the titles', () => {
    const html = htmlTable({ caption: '<c>', columns: [{ title: '<t>' }], rows: [['<script>x</script>']], empty: '' });
    expect(html).not.toMatch(/<c>|<t>|<script>/);
    expect(html).toContain('<td>&lt;script&gt;x&lt;/script&gt;</td>');
  });

  it('says its sentence instead of an empty table', () => {
    expect(htmlTable({ caption: 'Errors', columns: [{ title: 'cause' }], rows: [], empty: 'No errors <yet>.' })).toBe(
      '<div class="card"><h3>Errors</h3><p class="note">No errors &lt;yet&gt;.</p></div>',
    );
  });
});
