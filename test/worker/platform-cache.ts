// A Cache API namespace in a Map, for unit tests of what the edge keeps in its Cache API, and
// as careless as the local one: a body whose stream errors part-way is stored anyway, with
// whatever arrived of it (so a test proves that our code, not the platform, keeps it out).
// It counts lookups.

import type { TierCache } from '../../shared/tier/tier-cache.ts';
import { concat } from '../streams.ts';

export interface PlatformCache extends TierCache {
  entries: Map<string, { status: number; headers: Headers; body: ArrayBuffer }>;
  lookups: number;
}

export function platformCache(): PlatformCache {
  const entries = new Map<string, { status: number; headers: Headers; body: ArrayBuffer }>();
  const cache: PlatformCache = {
    entries,
    lookups: 0,
    async match(request: Request) {
      cache.lookups++;
      const entry = entries.get(request.url);
      return (
        entry &&
        new Response(entry.body.byteLength === 0 ? null : entry.body.slice(0), {
          status: entry.status,
          headers: entry.headers,
        })
      );
    },
    async put(request: Request, response: Response) {
      const chunks: Uint8Array[] = [];
      const reader = response.body?.getReader();
      try {
        for (let read = await reader?.read(); read !== undefined && !read.done; read = await reader?.read())
          chunks.push(read.value);
      } catch {
        // Kept anyway, as the local Cache API keeps it.
      }
      const body = concat(chunks).slice().buffer as ArrayBuffer;
      const headers = new Headers(response.headers);
      headers.set('content-length', String(body.byteLength));
      entries.set(request.url, { status: response.status, headers, body });
    },
    async delete(request: Request) {
      return entries.delete(request.url);
    },
  };
  return cache;
}
