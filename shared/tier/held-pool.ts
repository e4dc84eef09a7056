// The isolate's pool of bytes held for answers of unknown length until they have ended and been read out
// (held-until-whole.ts), shared by every request of the isolate (module state: each tier is its own isolate, with its
// own pool), and the share of it one body holds.

const MIB = 1024 * 1024;

/**
 * What the bodies held until whole may hold in all, in one isolate: sixteen answers of HOLD_BYTES at once, or 256 of
 * 64 KiB. A deployed isolate has 128 MB (122 MiB), and this must fit beside what else it holds:
 * - the memory layer, at the edge: MEMORY_CACHE_SIZE, 32 MiB by default (shared/config/limits.ts);
 * - clients slower than the fill they read: READER_LAG (1 MiB) each at most, and only while one is behind
 *   (shared/tier/fill.ts); slices read ahead hold nothing in the isolate, they go through the caches
 *   (slice-reader/read-ahead.ts), and a slice being read holds what its reader has not taken, within READER_LAG;
 * - the code, its heap and the streams in flight;
 * so 32 + 16 leaves about 74 MiB for code, streams and clients behind (74 of them at once). Without it, 250 chunked
 * `no-store` answers of 1 MB held at once added 214 MiB to workerd (an independent review's reproduction); bench:held-memory measures it: 266 MB
 * over what as many requests cost alone before the pool, 17 MB with it.
 */
export const HELD_POOL_BYTES = 16 * MIB;

/**
 * A share that has moved no byte for this long is taken to be lost, and no longer counted. A request whose client
 * left may be ended by the runtime without running another line of it (workerd aborts `request.signal` only before
 * the head goes out), so the bytes its body held would otherwise be counted for good and the pool shrink with every
 * such client. Longer than the silence a live body is let have (ORIGIN_IDLE_TIMEOUT_MS, 10 s by default), and than a
 * live client takes to read one chunk (256 KiB) at 5 KB/s.
 */
export const STALLED_SHARE_MS = 60_000;

/** Bytes held for answers of unknown length, against a limit: each held body takes and gives back its own share. */
export class HeldPool {
  readonly limit: number;
  private readonly now: () => number;
  private readonly shares = new Set<HeldShare>();
  private held = 0;

  constructor(limit: number, now: () => number = Date.now) {
    this.limit = limit;
    this.now = now;
  }

  /** Bytes held now, by every body of the pool. */
  get inUse(): number {
    return this.held;
  }

  /** A share for one body, holding nothing yet. */
  share(): HeldShare {
    return new HeldShare(this);
  }

  /** @internal `bytes` more for `share`: false (and nothing taken) when that would hold more than the limit. */
  grant(share: HeldShare, bytes: number): boolean {
    if (this.held + bytes > this.limit) this.forgetStalled();
    if (this.held + bytes > this.limit) return false;
    this.held += bytes;
    this.shares.add(share);
    share.touched = this.now();
    return true;
  }

  /** @internal `share` holds `bytes` fewer (made no byte held when that is all it held). */
  release(share: HeldShare, bytes: number): void {
    if (!this.shares.has(share)) return;
    this.held -= bytes;
    share.touched = this.now();
    if (share.bytes === 0) this.shares.delete(share);
  }

  /** Shares that have moved no byte for STALLED_SHARE_MS are no longer counted. */
  private forgetStalled(): void {
    const before = this.now() - STALLED_SHARE_MS;
    for (const share of this.shares) {
      if (share.touched > before) continue;
      this.shares.delete(share);
      this.held -= share.bytes;
      share.forgotten();
    }
  }
}

/** What one body holds of the pool: taken as its bytes come, given back as they go out (or are dropped). */
export class HeldShare {
  private readonly pool: HeldPool;
  /** Bytes held. */
  bytes = 0;
  /** When a byte last moved (the pool's clock). */
  touched = 0;

  constructor(pool: HeldPool) {
    this.pool = pool;
  }

  /** `bytes` more: false (and nothing taken) when the pool has no room for them. */
  take(bytes: number): boolean {
    if (!this.pool.grant(this, bytes)) return false;
    this.bytes += bytes;
    return true;
  }

  /** `bytes` of those taken are no longer held. */
  giveBack(bytes: number): void {
    const back = Math.min(bytes, this.bytes);
    this.bytes -= back;
    this.pool.release(this, back);
  }

  /** Everything taken is no longer held. */
  drop(): void {
    this.giveBack(this.bytes);
  }

  /** @internal The pool stopped counting it (stalled): what it still holds is no longer the pool's. */
  forgotten(): void {
    this.bytes = 0;
  }
}

/** This isolate's pool, shared by every body it holds until whole. */
export const isolateHeldPool = new HeldPool(HELD_POOL_BYTES);
