// Where a local workerd keeps what Miniflare stores for it (the Cache API, KV, Durable Objects): a directory in memory
// when the machine has one. Pure: the caller says what the machine offers.

/** The setting that names the directory instead (a disk, to keep large caches out of memory). */
export const STORE_DIR_VARIABLE = 'TIERCACHE_STORE_DIR';
/** Linux's tmpfs for everyone: memory, where fsync returns at once. */
export const MEMORY_DIR = '/dev/shm';

/**
 * The directory each Miniflare's store directory is made in. Miniflare keeps the Cache API's, KV's and Durable
 * Objects' entries in SQLite databases (bodies in files beside them), and SQLite syncs each commit to disk: workerd does
 * it on its one thread, so while the disk is busy (another process writing, here every tier's fills at once) a sync
 * takes up to ~0.4 s and every request of that process, both tiers' included, waits for it with the CPU idle. The store
 * is thrown away when the stack stops, so nothing is lost by keeping it in memory, where a sync costs nothing.
 * `TIERCACHE_STORE_DIR` wins when set; then MEMORY_DIR when it is a writable directory; else the temporary directory.
 */
export function storeRoot(
  env: Readonly<Record<string, string | undefined>>,
  writableDirectory: (path: string) => boolean,
  temporary: string,
): string {
  const chosen = env[STORE_DIR_VARIABLE];
  if (chosen !== undefined && chosen !== '') return chosen;
  return writableDirectory(MEMORY_DIR) ? MEMORY_DIR : temporary;
}
