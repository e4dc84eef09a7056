// The isolate's pool of bytes held for answers of unknown length until they have ended (held-until-whole.ts), shared
// by every request of the isolate (module state: each tier is its own isolate, with its own pool).

const MIB = 1024 * 1024;

/**
 * What the bodies held until whole may hold in all, in one isolate: sixteen answers of HOLD_BYTES at once, or 256 of
 * 64 KiB. A deployed isolate has 128 MB (122 MiB), and this must fit beside what else it holds:
 * - the runtime and the code: about 20 MiB (bench:memory's baseline is 85 MB for two workerd isolates, the
 *   Cache API's local store and Miniflare's own workers in one process);
 * - the memory layer, at the edge: MEMORY_CACHE_SIZE, 32 MiB by default (shared/config/limits.ts);
 * - clients slower than the fill they read: READER_LAG (1 MiB) each at most, and only while one is behind
 *   (shared/tier/fill.ts); slices read ahead hold nothing in the isolate, they go through the caches
 *   (slice-reader/read-ahead.ts);
 * so 20 + 32 + 16 leaves about 54 MiB for streams in flight and clients behind. Without it, 250 chunked `no-store`
 * answers of 1 MB held at once added 214 MiB to workerd (issue 35).
 */
export const HELD_POOL_BYTES = 16 * MIB;

/** Bytes held for answers of unknown length, against a limit: each held body takes and gives back its own. */
export class HeldPool {
  readonly limit: number;
  private held = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Bytes held now, by every body of the pool. */
  get inUse(): number {
    return this.held;
  }

  /** `bytes` more for one body: false (and nothing taken) when that would hold more than the limit. */
  take(bytes: number): boolean {
    if (this.held + bytes > this.limit) return false;
    this.held += bytes;
    return true;
  }

  /** `bytes` a body took are no longer held. */
  giveBack(bytes: number): void {
    this.held = Math.max(0, this.held - bytes);
  }
}

/** This isolate's pool, shared by every body it holds until whole. */
export const isolateHeldPool = new HeldPool(HELD_POOL_BYTES);
