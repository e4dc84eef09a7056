// One tier's stored entries, over whatever Cache the tier hands in. Each tier opens its own
// namespace (tiercache-edge, tiercache-shield: never caches.default), so the tiers never
// answer for each other, locally or deployed. This module never reaches for the runtime
// itself: the Cache is a parameter, which keeps it usable from both tiers and from tests.

import { type EntryMeta, fromStoredHeaders, toStoredHeaders } from './stored-entry.ts';

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
}

/** Look up by key alone, so the platform never applies the client's Range or conditionals. */
export async function lookup(cache: TierCache, key: string): Promise<StoredEntry | undefined> {
  const found = await cache.match(new Request(key));
  if (found === undefined) return undefined;
  const unpacked = fromStoredHeaders(found.headers);
  if (unpacked === undefined) {
    await found.body?.cancel();
    return undefined;
  }
  return { status: found.status, headers: unpacked.headers, meta: unpacked.meta, body: found.body };
}

export interface Storable {
  status: number;
  headers: Headers;
  body: ReadableStream;
  meta: EntryMeta;
  /** Seconds the platform should keep the entry. */
  retention: number;
}

export function store(cache: TierCache, key: string, entry: Storable): Promise<void> {
  const headers = toStoredHeaders(entry.headers, entry.meta, entry.retention);
  return cache.put(new Request(key), new Response(entry.body, { status: entry.status, headers }));
}

export function remove(cache: TierCache, key: string): Promise<boolean> {
  return cache.delete(new Request(key));
}
