// Where the shield keeps an object: its Cache API namespace, keyed by the origin resource (so
// a change of bucket or origin never reuses an entry).

import type { RequestTarget } from '../shared/request/request-target.ts';
import type { TierCache } from '../shared/tier/tier-cache.ts';
import { tier } from '../shared/tiers/tiers.ts';
import type { Origin } from './origin/origin.ts';
import { originRelative } from './origin/origin-url.ts';

export function shieldCache(): Promise<TierCache> {
  return caches.open(tier('shield').cacheName);
}

/** The key of `target` at `origin` (with its bucket, for S3). */
export function shieldKey(origin: Origin, target: RequestTarget): string {
  return `${origin.keyPrefix}${target.path}${target.query}`;
}

/**
 * The key of an origin URL an unsafe method invalidates (RFC 9111 §4.4: its target, or a Location on the origin's
 * host), its path taken without the origin URL's base path, as the shield's keys name it.
 */
export function invalidatedShieldKey(origin: Origin, url: URL): string {
  const invalidated = origin.traits.target(url);
  return shieldKey(origin, { ...invalidated, path: originRelative(origin.config, invalidated.path) });
}
