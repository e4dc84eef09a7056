import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeHtml, htmlTable } from '../../../shared/stats/html.ts';

describe('escapeHtml', () => {
  it('turns the five characters that end text or an attribute into references', () => {
    expect(escapeHtml(`<script>alert("x" & 'y')</script>`)).toBe(
      '&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;',
    );
  });

  it('escapes an ampersand once, so a reference in the data stays text', () => {
    expect(escapeHtml('&amp;')).toBe('&amp;amp;');
  });

  it('leaves everything else as it is', () => {
    expect(escapeHtml('cdn.example.com:8443 /img/ünï cödé.png')).toBe('cdn.example.com:8443 /img/ünï cödé.png');
  });

  it('never lets a markup character through, and decodes back to the text', () => {
    const decode = (html: string): string =>
      html.replace(
        /&(lt|gt|quot|#39|amp);/g,
        (_, name: string) => ({ lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&' })[name] ?? '',
      );
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const escaped = escapeHtml(text);
        expect(escaped).not.toMatch(/[<>"']/);
        expect(escaped.replace(/&(lt|gt|quot|#39|amp);/g, '')).not.toContain('&');
        expect(decode(escaped)).toBe(text);
      }),
    );
  });
});

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
