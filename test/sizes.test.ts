// Files are sized by concept (../shared/STYLE.md §8), with a sanity bound: a product file over 400
// lines or a function over 80 (what is deployed, the local stack and the CLI) is reported. One that
// grows past them is most likely two concepts: name one and move it, or say why it is still one in a
// comment that starts `One concept:` (at the file's head, or in the comment above the function).

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url);
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;

function productFiles(): string[] {
  const listed = execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', 'worker', 'shield', 'shared', 'local', 'cli'],
    { cwd: ROOT, encoding: 'utf8' },
  );
  return listed.split('\n').filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
}

const REASON = /\/\/ One concept: \S/;

/** Whether the comment lines just above `line` (0-based) give the reason a long function is one concept. */
function reasonAbove(lines: string[], line: number): boolean {
  for (let at = line - 1; at >= 0 && /^\s*(\/\/|\/\*\*|\*)/.test(lines[at] ?? ''); at--) {
    if (REASON.test(lines[at] ?? '')) return true;
  }
  return false;
}

/** Whether the file's head comment gives the reason a long file is one concept. */
function reasonAtHead(text: string): boolean {
  const head = text.split('\n').findIndex((line) => !line.startsWith('//'));
  return text
    .split('\n')
    .slice(0, head)
    .some((line) => REASON.test(line));
}

function lineCount(text: string): number {
  return text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
}

/** Every function-like node longer than the bound: `file:line name (lines)`. */
function longFunctions(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const lines = text.split('\n');
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (end - start + 1 > MAX_FUNCTION_LINES && !reasonAbove(lines, start))
        found.push(`${file}:${start + 1} ${node.name?.getText() ?? '(anonymous)'} (${end - start + 1} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('house sizes', () => {
  const files = productFiles().map((file) => ({ file, text: readFileSync(new URL(file, ROOT), 'utf8') }));

  it('reads the product files', () => {
    expect(files.length).toBeGreaterThan(50);
  });

  it(`no product file is over ${MAX_FILE_LINES} lines`, () => {
    expect(
      files
        .filter(({ text }) => lineCount(text) > MAX_FILE_LINES && !reasonAtHead(text))
        .map(({ file, text }) => `${file} (${lineCount(text)} lines)`),
    ).toEqual([]);
  });

  it(`no function is over ${MAX_FUNCTION_LINES} lines`, () => {
    expect(files.flatMap(({ file, text }) => longFunctions(file, text))).toEqual([]);
  });
});
