// Where the shield keeps an object: its Cache API namespace, keyed by the origin resource (so
// a change of bucket or origin never reuses an entry).

import type { Config } from '../shared/config/config.ts';
import type { RequestTarget } from '../shared/request/request-target.ts';
import type { TierCache } from '../shared/tier/tier-cache.ts';
import { tier } from '../shared/tiers/tiers.ts';
import { originBasePath } from './origin/origin-url.ts';

export function shieldCache(): Promise<TierCache> {
  return caches.open(tier('shield').cacheName);
}

/** The key of `target` at the origin `config` names (with its bucket, for S3). */
export function shieldKey(config: Config, target: RequestTarget): string {
  const bucket = config.s3 === undefined ? '' : `/${config.s3.bucket}`;
  return `${config.originUrl.origin}${originBasePath(config.originUrl)}${bucket}${target.path}${target.query}`;
}
