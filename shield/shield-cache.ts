// Where the shield keeps an object: its Cache API namespace, keyed by the origin resource (so
// a change of bucket or origin never reuses an entry).

import type { RequestTarget } from '../shared/request/request-target.ts';
import type { TierCache } from '../shared/tier/tier-cache.ts';
import { tier } from '../shared/tiers/tiers.ts';
import type { Origin } from './origin/origin.ts';

export function shieldCache(): Promise<TierCache> {
  return caches.open(tier('shield').cacheName);
}

/** The key of `target` at `origin` (with its bucket, for S3). */
export function shieldKey(origin: Origin, target: RequestTarget): string {
  return `${origin.keyPrefix}${target.path}${target.query}`;
}
