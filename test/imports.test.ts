// One import statement per module in each file: biome's import sorting merges value imports, and this
// catches the pair it leaves (`import type { A }` beside `import { b }` from the same module).

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url);

function sourceFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return listed.split('\n').filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
}

/** The modules `file` imports in more than one statement. */
function importedTwice(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const seen = new Set<string>();
  const twice: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const module = statement.moduleSpecifier.text;
    if (seen.has(module)) twice.push(`${file}: ${module}`);
    seen.add(module);
  }
  return twice;
}

describe('imports', () => {
  const files = sourceFiles();

  it('reads the source files', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it('no file imports one module in two statements', () => {
    expect(files.flatMap((file) => importedTwice(file, readFileSync(new URL(file, ROOT), 'utf8')))).toEqual([]);
  });
});
