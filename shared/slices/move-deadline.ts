// How long the runtime may take to move a slice by itself (a native put, tier-cache.ts storeNatively):
// the tier's silence bound plus the slice's time at a floor rate no working link falls under.

/** Slower than this, a link is taken for stalled: 1 MiB/s, a 4G phone's worst. */
export const FLOOR_BYTES_PER_SEC = 1024 * 1024;

/**
 * Milliseconds a native move of `length` bytes may take, given the tier's silence bound `idleMs`.
 * Bytes the runtime moves pass no JavaScript, so no silence watch can see them stall: the whole
 * move is bounded instead. A move past it is given up, and the slice is read the way that can see
 * every byte (a fill, with its silence bound and its healing).
 */
export function moveDeadlineMs(length: number, idleMs: number): number {
  return idleMs + Math.ceil((Math.max(0, length) / FLOOR_BYTES_PER_SEC) * 1000);
}
