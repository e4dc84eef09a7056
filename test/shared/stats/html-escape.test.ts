import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../../shared/stats/html-escape.ts';

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
