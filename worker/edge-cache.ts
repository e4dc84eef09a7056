// The edge's stored responses: its Cache API namespace with the isolate's memory layer in front (memory-cache.ts).

import type { Config } from '../shared/config/config.ts';
import { entryTags } from '../shared/purge/purge-rules.ts';
import { zoneCacheTags } from '../shared/purge/zone-tags.ts';
import { tagForPlatform } from '../shared/store/stored-entry.ts';
import type { TierCache } from '../shared/tier/tier-cache.ts';
import { tier } from '../shared/tiers/tiers.ts';
import { MemoryCache, memoryFronted } from './memory-cache.ts';

const memories = new WeakMap<Config, MemoryCache>();

/** This isolate's memory layer for `config`; undefined when MEMORY_CACHE_SIZE is 0. */
export function edgeMemory(config: Config): MemoryCache | undefined {
  if (config.memory.budget === 0) return undefined;
  let memory = memories.get(config);
  if (memory === undefined) {
    memory = new MemoryCache({ budget: config.memory.budget, maxObject: config.memory.maxObject });
    memories.set(config, memory);
  }
  return memory;
}

/**
 * Every read, store, purge and invalidation at the edge goes through here, so the memory layer never holds what the
 * Cache API has dropped.
 */
export async function edgeCache(config: Config): Promise<TierCache> {
  const cache = zoneTagged(await caches.open(tier('edge').cacheName));
  const memory = edgeMemory(config);
  return memory === undefined ? cache : memoryFronted(cache, memory);
}

/**
 * The edge's namespace with every entry put tagged for Cloudflare's zone purge (shared/purge/zone-tags.ts), whether
 * or not the platform purge is configured now: an entry stored before it is, is still found by it.
 */
export function zoneTagged(cache: TierCache): TierCache {
  return {
    match: (request) => cache.match(request),
    put(request, response) {
      tagForPlatform(response.headers, zoneCacheTags(request.url, entryTags(response.headers)));
      return cache.put(request, response);
    },
    delete: (request) => cache.delete(request),
  };
}
