// Resident memory from /proc (Linux only): the processes this one started, found by parent pid,
// and their VmRSS. Miniflare spawns the runtime, the `workerd` binary, as a child of Node.

import { existsSync, readdirSync, readFileSync } from 'node:fs';

export const RUNTIME_NAME = 'workerd';

export function procAvailable(): boolean {
  return existsSync('/proc/self/status');
}

/**
 * Every live descendant of `root` (not `root` itself). /proc/<pid>/task/<tid>/children needs a
 * kernel built with CONFIG_PROC_CHILDREN, so the parent of every process is read from its stat.
 */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const parent = parentPid(pid);
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const found: number[] = [];
  const queue = [...(children.get(root) ?? [])];
  while (queue.length > 0 && found.length < 10_000) {
    const pid = queue.shift() ?? 0;
    found.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

/** The descendants of `root` running `name` (the kernel's `comm`, at most 15 characters). */
export function processesNamed(root: number, name: string): number[] {
  return descendants(root).filter((pid) => processName(pid) === name);
}

/** VmRSS in bytes; `undefined` once the process is gone (a zombie has no VmRSS line either). */
export function residentBytes(pid: number): number | undefined {
  const status = readProc(`/proc/${pid}/status`);
  const kib = status === undefined ? undefined : /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1];
  return kib === undefined ? undefined : Number(kib) * 1024;
}

function processName(pid: number): string | undefined {
  return readProc(`/proc/${pid}/comm`)?.trim();
}

/** /proc/<pid>/stat is "pid (comm) state ppid …"; comm may hold spaces and ")", so read after the last ")". */
function parentPid(pid: number): number | undefined {
  const stat = readProc(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  return Number.isInteger(ppid) ? ppid : undefined;
}

/** A process may end between listing /proc and reading its files: that is not an error. */
function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
