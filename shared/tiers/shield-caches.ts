// Which cache the shield keeps its copies in: its two modes (docs/deploying.md "Two shield cache modes"), named as
// tiercache.config.ts names them. The shield's health answer and its Cache-Status member say which it has.

/**
 * `workers-cache`: Workers Cache fronts the shield's slices entrypoint, reached over the edge's service binding
 * (SHIELD_WORKERS_CACHE=on). `cache-api`: the shield's own Cache API alone, on a hostname of its own (no Workers
 * Cache: SHIELD_WORKERS_CACHE=off, as in the local stack).
 */
const SHIELD_CACHES = ['workers-cache', 'cache-api'] as const;
export type ShieldCache = (typeof SHIELD_CACHES)[number];

/** Whether `value` names one of the shield's caches (a value read off the wire). */
export function isShieldCache(value: unknown): value is ShieldCache {
  return SHIELD_CACHES.some((cache) => cache === value);
}

/** The shield's cache for its SHIELD_WORKERS_CACHE setting (shield/env.ts reads it). */
export function shieldCacheOf(workersCache: boolean): ShieldCache {
  return workersCache ? 'workers-cache' : 'cache-api';
}
