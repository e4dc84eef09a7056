// CPU time from /proc (Linux only): user + system time a process has used, in seconds. Counting
// what the runtime spends per request is steadier on a shared machine than requests per second.

import { readFileSync } from 'node:fs';

/** Kernel clock ticks per second: 100 on every Linux this runs on (USER_HZ). */
const TICKS_PER_SECOND = 100;

/** utime + stime of `pid` in seconds; undefined once the process is gone. */
export function cpuSeconds(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid … utime stime …": utime and stime are fields 14 and 15; comm may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks / TICKS_PER_SECOND : undefined;
}

/** The sum over `pids` (processes gone count 0). */
export function totalCpuSeconds(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0);
}
