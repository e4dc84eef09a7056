// A Cache API namespace in a Map, for unit tests of what the edge keeps in its Cache API: it
// stores a body only once it has read all of it (a body that errors stores nothing), and counts lookups.

import type { TierCache } from '../../shared/tier-cache.ts';

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
      return entry && new Response(entry.body.byteLength === 0 ? null : entry.body.slice(0), { status: entry.status, headers: entry.headers });
    },
    async put(request: Request, response: Response) {
      const body = await response.arrayBuffer();
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
