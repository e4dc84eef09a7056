// The layout tree (docs/layout.md) says where everything is: it must match the tree itself.
// Every folder of the repository is a line of it, every folder it names exists, and every file
// it names is where it says (a file named on a folder's lines is in that folder). And its picture (the mermaid block)
// holds: every source file is in one of its rooms, and every import from one room into another is an arrow of it.

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

/** The picture: the mermaid block of docs/layout.md, its rooms by path and the arrows between them. */
function picture(): { rooms: Map<string, string>; groups: Map<string, string[]>; arrows: Set<string> } {
  const block = /```mermaid\n([\s\S]*?)\n```/.exec(LAYOUT)?.[1] ?? '';
  const rooms = new Map<string, string>();
  const groups = new Map<string, string[]>();
  const arrows = new Set<string>();
  let group: string | undefined;
  for (const line of block.split('\n').map((text) => text.trim())) {
    const opened = /^subgraph (\w+)\[/.exec(line);
    if (opened?.[1] !== undefined) {
      group = opened[1];
      groups.set(group, []);
      continue;
    }
    if (line === 'end') group = undefined;
    // A room: id["path/ and words"], one node per path prefix ("test/, bench/" names two).
    const node = /^(\w+)\["([^"]+)"\]$/.exec(line);
    if (node?.[1] !== undefined && node[2] !== undefined) {
      for (const path of node[2].match(/[a-z][\w-]*(?:\/[\w-]+)*\//g) ?? []) rooms.set(path, node[1]);
      if (group !== undefined) groups.get(group)?.push(node[1]);
      continue;
    }
    // An arrow, labelled or not, solid or dotted, to one node or several (a & b).
    const arrow = /^(\w+)\s+(?:--?>|-\.->|-- "[^"]*" -->|-\. "[^"]*" \.->)\s+(.+)$/.exec(line);
    if (arrow?.[1] !== undefined && arrow[2] !== undefined)
      for (const to of arrow[2].split('&')) arrows.add(`${arrow[1]}->${to.trim()}`);
  }
  return { rooms, groups, arrows };
}

describe('docs/layout.md, the picture', () => {
  const { rooms, groups, arrows } = picture();
  /** The room a file is in: the longest path of the picture it lies below. */
  const roomOf = (file: string): string | undefined =>
    [...rooms.keys()]
      .filter((path) => file.startsWith(path))
      .sort((a, b) => b.length - a.length)
      .map((path) => rooms.get(path))[0];
  /** Whether `from` may import `to`: an arrow between them, or to or from a group either is in, or one group. */
  const allowed = (from: string, to: string): boolean => {
    const within = (node: string): string[] => [
      node,
      ...[...groups].filter(([, members]) => members.includes(node)).map(([name]) => name),
    ];
    if ([...groups.values()].some((members) => members.includes(from) && members.includes(to))) return true;
    return within(from).some((a) => within(to).some((b) => arrows.has(`${a}->${b}`)));
  };

  it('has a room for every source folder of the product, the local stack, the CLI and the conformance run', () => {
    const folders = [...trackedFiles()].filter((file) =>
      /^(worker|shield|shared|local|cli|conformance)\/.*\.ts$/.test(file),
    );
    expect(folders.filter((file) => roomOf(file) === undefined)).toEqual([]);
  });

  it('draws an arrow for every import from one room into another (the arrows hold)', () => {
    const crossings = new Set<string>();
    for (const file of [...trackedFiles()].filter((name) =>
      /^(worker|shield|shared|local|cli|conformance)\/.*\.ts$/.test(name),
    )) {
      const from = roomOf(file);
      const text = readFileSync(new URL(file, ROOT), 'utf8');
      for (const [, spec] of text.matchAll(/^(?:import|export)[^;]*?from '(\.[^']+)';/gms)) {
        const target = new URL(spec ?? '', new URL(file, ROOT)).pathname.slice(new URL(ROOT).pathname.length);
        const to = roomOf(target);
        if (from !== undefined && to !== undefined && from !== to && !allowed(from, to))
          crossings.add(`${from} -> ${to} (${file} imports ${target})`);
      }
    }
    expect([...crossings]).toEqual([]);
  });
});
