// How the docs' link check reads Markdown: GitHub's heading anchors (github-slugger's rules)
// and the links of a document, code left out.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { headingAnchors, headingSlug, headingText, isExternal, linkTargets, withoutFences } from './markdown-links.ts';

describe('headingSlug', () => {
  it('lower-cases, drops punctuation and symbols, and turns each space into a hyphen, as GitHub anchors a heading', () => {
    expect(headingSlug('Partial content (RFC 9111 §3.3–3.4)')).toBe('partial-content-rfc-9111-3334');
    expect(headingSlug('Faults: what a client sees')).toBe('faults-what-a-client-sees');
    expect(headingSlug('Dashboards: Analytics Engine SQL')).toBe('dashboards-analytics-engine-sql');
    expect(headingSlug('Whole copies (edge)')).toBe('whole-copies-edge');
  });

  it('keeps hyphens, underscores and letters outside ASCII, and keeps each space (two spaces are two hyphens)', () => {
    expect(headingSlug('__tiercache/health')).toBe('__tiercachehealth');
    expect(headingSlug('Cache-Status per tier')).toBe('cache-status-per-tier');
    expect(headingSlug('Café  crème')).toBe('café--crème');
  });

  it('gives only letters, marks, digits, underscores and hyphens, and is its own fixed point', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (text) => {
        const slug = headingSlug(text);
        expect(slug).toMatch(/^[\p{L}\p{M}\p{N}\p{Pc}-]*$/u);
        expect(headingSlug(slug)).toBe(slug);
      }),
    );
  });
});

describe('headingText', () => {
  it('renders inline code as its content, a link as its text, and drops emphasis marks', () => {
    expect(headingText('The `/__tiercache/health` answer')).toBe('The /__tiercache/health answer');
    expect(headingText('See [the stats page](operating.md) **now**')).toBe('See the stats page now');
    expect(headingText('_Why_ it is snake_case')).toBe('Why it is snake_case');
  });
});

describe('headingAnchors', () => {
  it('anchors every heading in order and numbers a repeated one as GitHub does', () => {
    expect(headingAnchors('# Tests\n\n## Run\n\ntext\n\n## Run\n\n### Run\n')).toEqual([
      'tests',
      'run',
      'run-1',
      'run-2',
    ]);
  });

  it('finds no heading inside a fenced code block', () => {
    expect(headingAnchors('# Purge\n\n```sh\n# {"purged":[]}\n```\n\n~~~\n## not one\n~~~\n## Limits\n')).toEqual([
      'purge',
      'limits',
    ]);
  });

  it('never gives two headings the same anchor, whatever their text', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'a-1', 'A', 'b', 'a 1', 'a-1-1', '`a`'), { maxLength: 12 }),
        (titles) => {
          const anchors = headingAnchors(titles.map((title) => `## ${title}`).join('\n'));
          expect(anchors).toHaveLength(titles.length);
          expect(new Set(anchors).size).toBe(anchors.length);
        },
      ),
    );
  });
});

describe('linkTargets', () => {
  it('lists the targets of inline links and images, with or without a title or angle brackets', () => {
    const doc =
      'See [slices](slices.md#whole-copies-edge) and ![chart](<../bench/x y.svg> "a chart"), or [Cloudflare](https://developers.cloudflare.com/).';
    expect(linkTargets(doc)).toEqual([
      'slices.md#whole-copies-edge',
      '../bench/x y.svg',
      'https://developers.cloudflare.com/',
    ]);
  });

  it('takes nothing from fenced code or inline code, even across a line break', () => {
    const doc = 'Text `[not](a.md)` and ``x\n[nor](b.md) y``.\n\n```md\n[nor this](c.md)\n```\n[this](d.md)';
    expect(linkTargets(doc)).toEqual(['d.md']);
  });
});

describe('withoutFences and isExternal', () => {
  it('closes a fence only with a marker of the same kind, at least as long', () => {
    expect(withoutFences('a\n````\n```\nb\n````\nc')).toBe('a\nc');
  });

  it('calls a target with a scheme external, and a path or an anchor local', () => {
    expect([
      isExternal('https://x.example/'),
      isExternal('mailto:a@b'),
      isExternal('docs/storj.md'),
      isExternal('#purge'),
      isExternal('../LICENSE'),
    ]).toEqual([true, true, false, false, false]);
  });
});
