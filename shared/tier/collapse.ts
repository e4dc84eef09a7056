// Request collapsing within one isolate: when several requests miss the same entry at once, the first (the leader)
// goes upstream and the others wait until it has stored what it got, then read that (Varnish's waiting list).

export interface Claim {
  /** True for the request that must fetch; false for one that waited for another. */
  leader: boolean;
  /** Whether this request waited for a leader. */
  collapsed: boolean;
  /** The leader calls this once the entry is stored, or it knows it will not be. */
  release(): void;
}

const fills = new Map<string, Promise<void>>();
/** Requests of the isolate waiting for a fill of each key: its clients too, though they read what it stores. */
const waiting = new Map<string, number>();

/**
 * The entry for `key`: waits for a fill already under way, if any, and reads what it stored;
 * on a miss, returns the claim making the caller the one to fill it. `missed` says the caller
 * has just looked it up and found nothing, so that is not asked again when no fill is under way.
 * A waiter never waits longer than `maxWait`: if the leader stores nothing (not storable, failed), the waiters go
 * upstream themselves.
 */
export async function claimOrWait<T>(
  key: string,
  lookup: () => Promise<T | undefined>,
  maxWait: number,
  missed = false,
): Promise<{ found: T; collapsed: boolean } | { found: undefined; claim: Claim }> {
  let collapsed = false;
  const deadline = Date.now() + maxWait;
  for (let round = 0; ; round++) {
    const pending = fills.get(key);
    if (pending !== undefined && Date.now() < deadline) {
      collapsed = true;
      waiting.set(key, (waiting.get(key) ?? 0) + 1);
      // However many rounds it takes, a waiter waits at most `maxWait` in all.
      await Promise.race([
        pending,
        new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now()))),
      ]).finally(() => {
        const left = (waiting.get(key) ?? 1) - 1;
        if (left > 0) waiting.set(key, left);
        else waiting.delete(key);
      });
    }
    if (pending !== undefined || !missed || round > 0) {
      const found = await lookup();
      if (found !== undefined) return { found, collapsed };
    }
    // Claim only if nobody did while we looked; past the deadline or a few rounds, go upstream regardless.
    if (!fills.has(key) || round >= 2 || Date.now() >= deadline)
      return { found: undefined, claim: claim(key, collapsed) };
  }
}

/** Makes the caller the one filling `key` (it already holds what it will store). */
export function claim(key: string, collapsed = false): Claim {
  let release: () => void = () => undefined;
  const fill = new Promise<void>((resolve) => (release = resolve));
  fills.set(key, fill);
  return {
    leader: true,
    collapsed,
    release: () => {
      if (fills.get(key) === fill) fills.delete(key);
      release();
    },
  };
}

/**
 * Whether another request of the isolate waits for the fill of `key`: a fill whose own client left goes on for it
 * (fill.ts), as it would for a client reading it.
 */
export function isAwaited(key: string): boolean {
  return waiting.has(key);
}

/** Whether a fill of `key` is under way (for tests and reporting). */
export function isFilling(key: string): boolean {
  return fills.has(key);
}
