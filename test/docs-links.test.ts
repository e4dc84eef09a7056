// The README is the front page and docs/ the reference: every relative link in them resolves in
// the tree this test runs in. A link names a file that is there, and its #anchor a heading of
// that file as GitHub anchors it (markdown-links.ts); docs/README.md, the table of contents,
// links every document in docs/.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { headingAnchors, isExternal, linkTargets } from './markdown-links.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const DOCUMENTS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

interface Link {
  from: string;
  target: string;
  /** The file it names, from the root ('' for the document itself). */
  file: string;
  anchor: string | undefined;
}

function links(document: string): Link[] {
  const text = readFileSync(join(ROOT, document), 'utf8');
  return linkTargets(text)
    .filter((target) => !isExternal(target))
    .map((target) => {
      const [path = '', anchor] = target.split('#', 2);
      const file =
        path === '' ? document : normalize(relative(ROOT, join(ROOT, dirname(document), decodeURIComponent(path))));
      return {
        from: document,
        target,
        file,
        anchor: anchor === undefined || anchor === '' ? undefined : decodeURIComponent(anchor),
      };
    });
}

const ALL = DOCUMENTS.flatMap(links);
const anchorsOf = new Map<string, string[]>();
function anchors(file: string): string[] {
  let found = anchorsOf.get(file);
  if (found === undefined) {
    found = headingAnchors(readFileSync(join(ROOT, file), 'utf8'));
    anchorsOf.set(file, found);
  }
  return found;
}

describe('the README and docs/ links', () => {
  it('reads links from the README and every document in docs/', () => {
    expect(DOCUMENTS).toContain('docs/README.md');
    expect(ALL.filter((link) => link.from === 'README.md').length).toBeGreaterThan(10);
  });

  it('name only files that are in the tree (or are being written on another branch)', () => {
    const missing = ALL.filter((link) => !existsSync(join(ROOT, link.file)));
    expect(missing.map((link) => `${link.from} → ${link.target}`)).toEqual([]);
  });

  it('point an #anchor only at a heading of the Markdown file it names', () => {
    const broken = ALL.filter((link) => link.anchor !== undefined && existsSync(join(ROOT, link.file))).filter(
      (link) =>
        !link.file.endsWith('.md') ||
        statSync(join(ROOT, link.file)).isDirectory() ||
        !anchors(link.file).includes(link.anchor ?? ''),
    );
    expect(broken.map((link) => `${link.from} → ${link.target}`)).toEqual([]);
  });

  it('include a table of contents, docs/README.md, that links every document in docs/', () => {
    const listed = new Set(links('docs/README.md').map((link) => link.file));
    const unlisted = DOCUMENTS.filter(
      (document) => document.startsWith('docs/') && document !== 'docs/README.md' && !listed.has(document),
    );
    expect(unlisted).toEqual([]);
  });
});
