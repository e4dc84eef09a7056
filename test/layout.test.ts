// The layout tree (docs/layout.md) says where everything is: it must match the tree itself.
// Every folder of the repository is a line of it, every folder it names exists, and every file
// it names is where it says (a file named on a folder's lines is in that folder).

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url);
const LAYOUT = readFileSync(new URL('docs/layout.md', ROOT), 'utf8');

/** The tree block: the first fenced block of docs/layout.md, after its title. */
function layoutBlock(): string[] {
  const section = LAYOUT.slice(LAYOUT.indexOf('# Layout\n'));
  const block = /\n```\n([\s\S]*?)\n```/.exec(section)?.[1] ?? '';
  return block.split('\n');
}

/** Each folder line (`shared/tier/   …`) with the text that follows it until the next folder line. */
function folderEntries(): Map<string, string> {
  const entries = new Map<string, string>();
  let current: string | undefined;
  for (const line of layoutBlock()) {
    const head = /^ {0,2}([a-z][\w.-]*(?:\/[\w<>.-]+)*\/)(?:…)?\s/.exec(`${line} `);
    if (head?.[1] !== undefined) {
      current = head[1];
      entries.set(current, `${entries.get(current) ?? ''} ${line.slice(head[0].length)}`);
    } else if (current !== undefined) {
      entries.set(current, `${entries.get(current) ?? ''} ${line}`);
    }
  }
  return entries;
}

/**
 * The repository's folders, as git tracks them (or will: untracked files not ignored count) (run results are one folder
 * per run, named by time).
 */
function trackedFolders(): Set<string> {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean);
  const folders = new Set<string>();
  for (const file of files) {
    for (let folder = dirname(file); folder !== '.'; folder = dirname(folder)) folders.add(`${folder}/`);
  }
  return new Set([...folders].filter((folder) => !/^bench\/results\/.+/.test(folder) && !folder.startsWith('.')));
}

function trackedFiles(): Set<string> {
  return new Set(
    execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean),
  );
}

describe('docs/layout.md, the layout tree', () => {
  const entries = folderEntries();
  // `test/shared/<room>/` stands for one folder per shared room.
  const named = new Set([...entries.keys()].filter((folder) => !folder.includes('<')));
  const rooms = [...trackedFolders()].filter((folder) => /^test\/shared\/[^/]+\/$/.test(folder));
  // Sub-folders named on their parent's line (`load/, report/, setup/`, `fixtures/`) count as lines of their own.
  const inline = [...entries].flatMap(([folder, text]) =>
    [...text.matchAll(/(?<![\w./<-])([a-z][\w-]*)\/(?=[,;)\s]|$)/g)].map((match) => `${folder}${match[1]}/`),
  );
  const covered = new Set([...named, ...rooms, ...inline, 'test/shared/', 'test/shield/']);

  it('has a line for every folder of the repository', () => {
    expect([...trackedFolders()].filter((folder) => !covered.has(folder))).toEqual([]);
  });

  it('names only folders that exist', () => {
    const folders = trackedFolders();
    expect([...named].filter((folder) => !folders.has(folder))).toEqual([]);
  });

  it('names, on each folder line, only files that are in that folder or below it (or at the root path given)', () => {
    const files = [...trackedFiles()];
    const missing: string[] = [];
    for (const [folder, text] of entries) {
      if (folder.includes('<')) continue;
      for (const [name] of text.matchAll(/(?<![*\w./-])[\w./-]*[\w-]\.(?:ts|lua|sh)\b/g)) {
        const found = name.includes('/')
          ? files.includes(name) || files.includes(`${folder}${name}`)
          : files.some((file) => file.startsWith(folder) && file.endsWith(`/${name}`));
        if (!found) missing.push(`${folder} ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
