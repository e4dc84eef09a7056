// The edge's stored responses: its Cache API namespace with the isolate's memory layer in front (memory-cache.ts).

import type { Config } from '../shared/config/config.ts';
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
  const cache = await caches.open(tier('edge').cacheName);
  const memory = edgeMemory(config);
  return memory === undefined ? cache : memoryFronted(cache, memory);
}
