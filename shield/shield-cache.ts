// Where the shield keeps an object: its Cache API namespace, keyed by the origin resource (so
// a change of bucket or origin never reuses an entry).

import { HttpError } from '../shared/http/errors.ts';
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
 * host), its path taken without the origin URL's base path, as the shield's keys name it. A URL that names no object
 * here (a read of it would be refused) was never stored: no key, and the answer that named it goes on, as at the edge.
 */
export function invalidatedShieldKey(origin: Origin, url: URL): string | undefined {
  let invalidated: RequestTarget;
  try {
    invalidated = origin.traits.target(url);
  } catch (error) {
    if (error instanceof HttpError) return undefined;
    throw error;
  }
  return shieldKey(origin, { ...invalidated, path: originRelative(origin.config, invalidated.path) });
}
