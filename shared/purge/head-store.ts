// The purge list's head (purge-head.ts) as this isolate reads and writes it: read from the location's shared copy in
// the Cache API when one is recent enough, else from KV (and shared); written after each purge's batch, once a second at
// most, a refusal by KV's 1-write-a-second limit being covered by the write it lost to. I/O; the KV namespace, and when
// the isolate last wrote the head, are handed in (purge-store.ts keeps them). Where the Cache API does nothing (a
// *.workers.dev hostname, a Worker without a route: docs/deploying.md), every isolate reads KV itself: correct, just an
// operation per isolate per re-read rather than per location.

import {
  HEAD_KEY,
  type Head,
  headValue,
  headWriteDue,
  KV_WRITE_INTERVAL_MS,
  parseHead,
  parseShared,
  refusedAsTooFrequent,
  SHARE_MS,
  type SharedHead,
  sharedUsable,
  sharedValue,
} from './purge-head.ts';
import { RECORD_LIFETIME_MS } from './purge-rules.ts';

/** The part of a KV namespace the head uses (purge-kv.ts PurgeKv has it). */
export interface HeadKv {
  get(key: string): Promise<string | null>;
  put(key: string, value: string, options: { expirationTtl: number; metadata: unknown }): Promise<void>;
}

/** Where a location's isolates share their last read of the head; every failure of it reads as nothing shared. */
export interface HeadShare {
  match(): Promise<SharedHead | undefined>;
  put(shared: SharedHead): Promise<void>;
}

/** The Cache API's namespace and key of the shared read: a URL nothing else is kept under, never fetched. */
const SHARE_CACHE = 'tiercache-purge-head';
const SHARE_URL = 'https://purge-head.tiercache.internal/';
/** The head outlives every record it could announce. */
const HEAD_TTL_S = Math.ceil(RECORD_LIFETIME_MS / 1000);

/** What a head write did: the KV writes it made, and whether the head now says its time (it was written). */
export interface HeadWrite {
  writes: number;
  written: boolean;
}

/**
 * The head as of at most SHARE_MS ago: the location's shared read if it is usable (sharedUsable) and newer than the one
 * this isolate holds (`heldReadAt`), else read from KV at `now` (`counted` told first) and shared. Throws when KV cannot
 * be read.
 */
export async function readHead(
  kv: HeadKv,
  share: HeadShare | undefined,
  heldReadAt: number,
  now: number,
  counted: () => void,
): Promise<SharedHead> {
  const shared = await share?.match().catch(() => undefined);
  if (sharedUsable(shared, heldReadAt, now)) return shared;
  counted();
  const read = { head: parseHead(await kv.get(HEAD_KEY)), readAt: now };
  // Shared for the others of this location; a put that fails only costs them a read of their own.
  await share?.put(read).catch(() => undefined);
  return read;
}

/**
 * Rewrites the head after a batch recorded at `at`, unless this isolate wrote it (at `lastWritten`; undefined: never)
 * less than KV_WRITE_INTERVAL_MS before (headWriteDue). A write KV refuses as too frequent is covered by the one it
 * lost to (purge-head.ts HEAD_SETTLE_MS); one that fails otherwise is tried once more a write interval later, and
 * throws if that fails too, so the purge is answered as not recorded and asked again.
 */
export async function writeHead(kv: HeadKv, at: number, lastWritten: number | undefined): Promise<HeadWrite> {
  if (!headWriteDue(lastWritten, at)) return { writes: 0, written: false };
  for (let tries = 1; ; tries++) {
    try {
      await kv.put(HEAD_KEY, headValue(newHead(at)), { expirationTtl: HEAD_TTL_S, metadata: {} });
      return { writes: tries, written: true };
    } catch (error) {
      if (refusedAsTooFrequent(error)) return { writes: tries, written: false };
      if (tries >= 2) throw error;
      await new Promise((resolve) => setTimeout(resolve, KV_WRITE_INTERVAL_MS));
    }
  }
}

/**
 * The location's share through the Cache API (its own namespace), or undefined where there is no Cache API at all (the
 * tests' Node). Where it exists but keeps nothing (workers.dev), every match misses: each isolate reads KV itself.
 */
export function cacheHeadShare(): HeadShare | undefined {
  if (typeof caches === 'undefined') return undefined;
  return {
    async match() {
      const answer = await (await caches.open(SHARE_CACHE)).match(SHARE_URL);
      return answer === undefined ? undefined : parseShared(await answer.text());
    },
    async put(shared) {
      // Kept a little longer than it is taken (SHARE_MS): the reader judges its age by the time inside it.
      const maxAge = Math.ceil(SHARE_MS / 1000) + 1;
      const body = new Response(sharedValue(shared), { headers: { 'cache-control': `max-age=${maxAge}` } });
      await (await caches.open(SHARE_CACHE)).put(SHARE_URL, body);
    },
  };
}

function newHead(at: number): Head {
  return { at, id: crypto.randomUUID() };
}
