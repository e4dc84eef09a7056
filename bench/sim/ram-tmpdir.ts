// Where a run's systems keep their caches: a directory in RAM (/dev/shm) where the machine has one. Miniflare keeps
// each process's Cache API (and Durable Object, KV) storage in SQLite files under os.tmpdir(), and SQLite fsyncs each
// put on the worker's own thread: on this shared disk one fsync took up to 115 ms (strace, bench/sim ttfb probe), a
// stall of every request the tier is serving. Cloudflare's cache does not block an isolate on a disk, nginx does not
// fsync its cache files and Varnish keeps malloc storage: on a RAM disk the local simulator's cost is its CPU alone,
// as the baselines' is.

import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

const RAM_DISK = '/dev/shm';

/**
 * Points this process's temporary directory (TMPDIR, what os.tmpdir() answers and Miniflare, nginx and Varnish take
 * their directories under) at a fresh directory on the RAM disk, removed at exit; unchanged, and undefined returned,
 * when TMPDIR is set already (the operator's choice) or there is no RAM disk.
 */
export function useRamTmpdir(): string | undefined {
  if (process.env.TMPDIR !== undefined && process.env.TMPDIR !== '') return undefined;
  if (!isDirectory(RAM_DISK)) return undefined;
  const directory = mkdtempSync(join(RAM_DISK, 'tiercache-sim-'));
  // Others may enter, as /tmp lets them: nginx and Varnish drop privileges when run as root (peers/daemon.ts).
  chmodSync(directory, 0o755);
  process.env.TMPDIR = directory;
  process.on('exit', () => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
