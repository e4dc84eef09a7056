// The edge's hottest small objects, kept in the isolate's own memory in front of its Cache API namespace: a layer
// of the TierCache the edge already reads through, not a cache of its own.

import { VARY_INDEX_HEADER } from '../shared/http/vary.ts';
import { isManifest, SLICE_HEADER } from '../shared/slices/object-meta.ts';
import { type EntryMeta, fromStoredHeaders } from '../shared/store/stored-entry.ts';
import { responseAsIs } from '../shared/streams/response-as-is.ts';
import type { TierCache } from '../shared/tier/tier-cache.ts';

export interface MemoryLimits {
  /** Bytes of bodies and headers kept in all. */
  budget: number;
  /** The largest body kept. */
  maxObject: number;
}

/** A stored response, as the Cache API holds it and unpacked once for hits that need no parsing. */
export interface MemoryEntry {
  status: number;
  /** The stored headers (shared/store/stored-entry.ts envelope). */
  stored: Headers;
  /** A Blob: workerd answers with one without copying it into each response (a Uint8Array is copied). */
  body: Blob;
  /** The origin's headers and this tier's timing, from the envelope. */
  headers: Headers;
  meta: EntryMeta;
  /** A whole 200 (not a sliced object's manifest): answerable straight from memory. */
  whole: boolean;
  /** Bytes counted against the budget. */
  cost: number;
  /** Used since the eviction sweep last passed it (CLOCK: cheaper on a hit than moving it in the LRU order). */
  referenced: boolean;
  /** The purge list this entry was last checked against (worker/memory-hit.ts). */
  purgeChecked?: unknown;
}

/** What an entry costs besides its body: a generous flat estimate of its headers and bookkeeping. */
const ENTRY_OVERHEAD = 2048;

/**
 * A fixed budget of small objects in the isolate (Varnish keeps everything in memory; Workers give an isolate 128 MB).
 * On this runtime a Cache API lookup costs more than the rest of a hit together (bench/layers: a naive caches.default
 * worker runs at ~0.2× one answering from a Map). Eviction keeps `budget` bytes with the CLOCK approximation of
 * least-recently-used: a hit only sets a flag.
 */
export class MemoryCache {
  readonly #entries = new Map<string, MemoryEntry>();
  #bytes = 0;

  readonly limits: MemoryLimits;

  constructor(limits: MemoryLimits) {
    this.limits = limits;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Whether a body of `length` bytes may be kept at all. */
  admits(length: number): boolean {
    return length <= this.limits.maxObject && length + ENTRY_OVERHEAD <= this.limits.budget;
  }

  get(key: string): MemoryEntry | undefined {
    const entry = this.#entries.get(key);
    if (entry !== undefined) entry.referenced = true;
    return entry;
  }

  /** Keeps the stored response `stored` + `body` under `key`; false when it is not kept. */
  set(key: string, status: number, stored: Headers, body: Blob): boolean {
    this.delete(key);
    if (!this.admits(body.size) || !isObjectEntry(stored)) return false;
    const unpacked = fromStoredHeaders(stored);
    if (unpacked === undefined) return false;
    // A whole 200: not a manifest (readable or not), not another status the platform keeps as a 200 (a 204).
    const whole = status === 200 && unpacked.body.status === undefined && !isManifest(unpacked.headers);
    const entry: MemoryEntry = {
      status,
      stored,
      body,
      headers: unpacked.headers,
      meta: unpacked.meta,
      whole,
      cost: body.size + ENTRY_OVERHEAD,
      referenced: false,
    };
    this.#bytes += entry.cost;
    this.#evict();
    this.#entries.set(key, entry);
    return true;
  }

  /**
   * Until the budget holds (the entry being added is counted, not yet listed): the oldest
   * entry goes unless used since the sweep last passed it, which sends it to the back instead.
   * Map iteration is insertion order, so the front is the oldest; no entry is passed twice
   * before one is evicted.
   */
  #evict(): void {
    while (this.#bytes > this.limits.budget) {
      const next = this.#entries.entries().next();
      if (next.done === true) return;
      const [key, entry] = next.value;
      this.#entries.delete(key);
      if (entry.referenced) {
        entry.referenced = false;
        this.#entries.set(key, entry);
      } else {
        this.#bytes -= entry.cost;
      }
    }
  }

  delete(key: string): boolean {
    const entry = this.#entries.get(key);
    if (entry === undefined) return false;
    this.#entries.delete(key);
    this.#bytes -= entry.cost;
    return true;
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }
}

/**
 * `cache` with `memory` in front: lookups are answered from memory when they can be, and
 * small stored responses found in `cache` are copied into it; puts and deletes go to `cache`
 * and drop the copy. Keys are the lookup requests' URLs.
 *
 * An entry is the Cache API's stored response, copied on a hit, so freshness, stale use, purge, Vary and ranges are
 * decided by the same code over the same stored metadata; and since every put or delete drops the copy (refilled
 * from the Cache API on the next hit), memory never holds a version the Cache API no longer has.
 */
export function memoryFronted(cache: TierCache, memory: MemoryCache): TierCache {
  return {
    async match(request) {
      const key = request.url;
      const held = memory.get(key);
      if (held !== undefined) return storedResponse(held.status, held.stored, held.body);
      const found = await cache.match(request);
      if (found === undefined) return undefined;
      const length = Number(found.headers.get('content-length') ?? Number.NaN);
      // Decided before the body is read: what is not held passes through as the runtime's own stream.
      if (!Number.isSafeInteger(length) || !memory.admits(length) || !isObjectEntry(found.headers)) return found;
      const body = new Blob([await found.arrayBuffer()]);
      // Counted as it is taken in: a stored body that is not the length it was stored at is no entry.
      const counted = fromStoredHeaders(found.headers)?.body.length;
      if (counted !== undefined && body.size !== counted) {
        await cache.delete(request).catch(() => false);
        return undefined;
      }
      const stored = new Headers(found.headers);
      memory.set(key, found.status, stored, body);
      return storedResponse(found.status, stored, body);
    },
    async put(request, response) {
      memory.delete(request.url);
      try {
        await cache.put(request, response);
      } finally {
        // A lookup racing the put may have copied the entry being replaced.
        memory.delete(request.url);
      }
    },
    async delete(request) {
      const held = memory.delete(request.url);
      return (await cache.delete(request)) || held;
    },
  };
}

/**
 * Whether stored headers are an object's own entry (a whole response, a manifest, a variant of one that varies), not
 * a slice (or a sliced object's whole copy) nor a Vary index: only those are held. The others the hot path can never
 * answer; a slice is as large as the biggest object held, so it would evict many hot small ones and be copied whole
 * out of the Cache API on every read-back, and a Vary index at the object's key only turns the hot path away.
 */
function isObjectEntry(stored: Headers): boolean {
  return !stored.has(SLICE_HEADER) && !stored.has(VARY_INDEX_HEADER);
}

function storedResponse(status: number, stored: Headers, body: Blob): Response {
  return responseAsIs(body.size === 0 ? null : body, { status, headers: stored });
}
