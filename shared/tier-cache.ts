// One tier's stored entries, over whatever Cache the tier hands in. Each tier opens its own
// namespace (tiercache-edge, tiercache-shield: never caches.default), so the tiers never
// answer for each other, locally or deployed. This module never reaches for the runtime
// itself: the Cache is a parameter, which keeps it usable from both tiers and from tests.
//
// A body is stored only when it is exactly what it claims. The platform cannot be trusted to
// refuse a body whose stream failed (the local Cache API keeps what arrived of it, under the
// length it was announced with), so every put is counted here: a short, long or broken body
// makes the entry unsound at once, it is deleted once the put settles, and until then no
// lookup in this isolate can see it. Entries record the length they were counted at, and a
// lookup that finds the platform's length disagreeing treats the entry as gone.

import { countedBody } from './counted-body.ts';
import { withLength } from './byte-stream.ts';
import { type EntryMeta, fromStoredHeaders, toStoredHeaders } from './stored-entry.ts';
import { responseAsIs } from './response-as-is.ts';

/** The part of the Workers Cache API a tier uses. */
export interface TierCache {
  match(request: Request): Promise<Response | undefined>;
  put(request: Request, response: Response): Promise<void>;
  delete(request: Request): Promise<boolean>;
}

export interface StoredEntry {
  status: number;
  headers: Headers;
  meta: EntryMeta;
  body: ReadableStream | null;
  /** The bytes the body holds, as counted when it was stored; undefined when unknown. */
  length: number | undefined;
  /** Which fill stored it (Storable.fill). */
  fill: number | undefined;
}

/** Keys whose latest put turned out inexact, until its leftovers are deleted (count of such puts). */
const unsound = new Map<string, number>();

/** Look up by key alone, so the platform never applies the client's Range or conditionals. */
export async function lookup(cache: TierCache, key: string): Promise<StoredEntry | undefined> {
  if (unsound.has(key)) return undefined;
  const found = await cache.match(new Request(key));
  if (found === undefined) return undefined;
  const unpacked = fromStoredHeaders(found.headers);
  if (unpacked === undefined) {
    await found.body?.cancel();
    return undefined;
  }
  const declared = found.headers.get('content-length');
  const { length, fill } = unpacked.body;
  if (length !== undefined && declared !== null && declared !== String(length)) {
    // Not the body that was counted in: never serve it, and do not meet it again.
    await found.body?.cancel();
    await remove(cache, key).catch(() => false);
    return undefined;
  }
  return { status: found.status, headers: unpacked.headers, meta: unpacked.meta, body: found.body, length, fill };
}

export interface Storable {
  status: number;
  headers: Headers;
  body: ReadableStream;
  meta: EntryMeta;
  /** Seconds the platform should keep the entry. */
  retention: number;
  /** Bytes the body must hold: its Content-Length, or the slice's; undefined = unknown (then only a clean end counts). */
  length: number | undefined;
  /** Names this fill, for a client that reads the rest of it back from the store (newFill). */
  fill?: number;
}

/** Stores `entry` if its body is exactly what it claims; true once it is stored so, false when nothing is kept. */
export async function store(cache: TierCache, key: string, entry: Storable): Promise<boolean> {
  let exact = false;
  let masked = false;
  const mask = (): void => {
    if (masked) return;
    masked = true;
    unsound.set(key, (unsound.get(key) ?? 0) + 1);
  };
  const counted = countedBody(entry.body, entry.length, { onExact: () => (exact = true), onInexact: mask });
  // A known length where there is one: the put then announces it, and a short body fails it.
  const body = entry.length === undefined ? counted : withLength(counted, entry.length);
  const headers = toStoredHeaders(entry.headers, entry.meta, entry.retention, { length: entry.length, fill: entry.fill });
  let put = true;
  try {
    await cache.put(new Request(key), responseAsIs(body, { status: entry.status, headers }));
  } catch {
    put = false;
  }
  if (put && exact) return true;
  mask();
  try {
    await remove(cache, key).catch(() => false);
  } finally {
    const left = (unsound.get(key) ?? 1) - 1;
    if (left > 0) unsound.set(key, left);
    else unsound.delete(key);
  }
  return false;
}

/** A name for one fill of an entry, unlike any other this isolate makes. */
export function newFill(): number {
  const [high = 0, low = 0] = crypto.getRandomValues(new Uint32Array(2));
  return (high % 2 ** 21) * 2 ** 32 + low;
}

export function remove(cache: TierCache, key: string): Promise<boolean> {
  return cache.delete(new Request(key));
}

/** Whether a put of `key` was found inexact and its leftovers are not yet deleted (tests). */
export function isUnsound(key: string): boolean {
  return unsound.has(key);
}
