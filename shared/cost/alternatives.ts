// What a Storj user pays today without tiercache (docs/costs.md): every byte from the origin, or Cloudflare's cache in
// front of it (a linkshare URL or the S3 gateway behind a proxied hostname), and what each can serve from a cache.

import type { CostEstimate } from './cost-model.ts';

/**
 * Cloudflare's largest cacheable file on Free, Pro and Business: "Free, Pro and Business customers have a limit of
 * 512 MB" (Enterprise: "the default maximum cacheable file size is 5 GB"). A larger object is never cached: every
 * byte of it comes from the origin.
 */
export const CLOUDFLARE_CACHEABLE_LIMIT = {
  label: '512 MB',
  source: 'https://developers.cloudflare.com/cache/concepts/default-cache-behavior/#cacheable-size-limits',
} as const;

/** A month with Cloudflare's cache in front of the origin. */
export interface CloudflareCacheTraffic {
  /** Body bytes sent to clients. */
  servedBytes: number;
  /** Share of them from objects over CLOUDFLARE_CACHEABLE_LIMIT (0–1). */
  overLimitShare: number;
  /** Share of the rest a location answers from its own cache (Cloudflare's cache is per data center). */
  locationHitRatio: number;
  /** Share of a location's misses its upper tier holds (Tiered Cache); 0 when Tiered Cache is off. */
  upperTierHitRatio: number;
}

/** One way of serving the month: what it costs, what the origin sends, what it serves from a cache. */
interface AlternativeMonth {
  /** USD a month, all in. */
  usd: number;
  /** What Cloudflare charges for it (0 for the CDN's cache: "Cloudflare does not charge for bandwidth"). */
  platformUSD: number;
  originBytes: number;
  originEgressUSD: number;
  /** What it can serve from a cache, in a phrase. */
  cached: string;
}

export interface Comparison {
  storjAlone: AlternativeMonth;
  cloudflareCache: AlternativeMonth;
  tiercache: AlternativeMonth;
  /** What tiercache saves against each (negative: what it costs more). */
  savedUSD: { storjAlone: number; cloudflareCache: number };
}

/**
 * The bytes the origin sends with Cloudflare's cache in front: every byte of an object over the cacheable limit, and
 * of the rest what both a location and its upper tier miss.
 */
export function cloudflareCacheOriginBytes(month: CloudflareCacheTraffic): number {
  const over = ratio(month.overLimitShare);
  const missed = (1 - ratio(month.locationHitRatio)) * (1 - ratio(month.upperTierHitRatio));
  return Math.max(0, month.servedBytes) * (over + (1 - over) * missed);
}

/** tiercache's month (its estimate) beside the origin alone and Cloudflare's cache in front, at `pricePerTB`. */
export function compareAlternatives(
  tiercache: CostEstimate,
  cdn: CloudflareCacheTraffic & { pricePerTB: number; tieredCache: boolean },
): Comparison {
  const egress = (bytes: number): number => (bytes / 1e12) * cdn.pricePerTB;
  const originOnly = (originBytes: number, cached: string): AlternativeMonth => ({
    usd: egress(originBytes),
    platformUSD: 0,
    originBytes,
    originEgressUSD: egress(originBytes),
    cached,
  });
  const storjAlone = originOnly(tiercache.usage.servedBytes, 'nothing');
  const cloudflareCache = originOnly(
    cloudflareCacheOriginBytes(cdn),
    `objects up to ${CLOUDFLARE_CACHEABLE_LIMIT.label}, ${cdn.tieredCache ? 'at each location and its upper tier' : 'at each location on its own'}`,
  );
  return {
    storjAlone,
    cloudflareCache,
    tiercache: {
      usd: tiercache.totalUSD,
      platformUSD: tiercache.platformUSD,
      originBytes: tiercache.usage.originBytes,
      originEgressUSD: tiercache.originEgressUSD,
      cached: 'objects of any size, large ones as slices',
    },
    savedUSD: {
      storjAlone: storjAlone.usd - tiercache.totalUSD,
      cloudflareCache: cloudflareCache.usd - tiercache.totalUSD,
    },
  };
}

/** What the stats count that bounds Cloudflare's cache in front (they do not know an object's size). */
export interface CountedEgress {
  servedBytes: number;
  /** What tiercache's shield fetched from the origin. */
  originBytes: number;
  /** Bytes of the edge's sliced answers: objects of at least a slice, the only ones that can be over 512 MB. */
  slicedServedBytes: number;
  pricePerTB: number;
}

/**
 * Cloudflare's cache in front, estimated from counts: at least tiercache's own origin egress (every object under
 * 512 MB, a location and its upper tier hitting as tiercache's tiers do), at most that plus every byte of the sliced
 * answers (every sliced object over 512 MB, each of its bytes from the origin), never more than every byte sent.
 */
export function cloudflareCacheBounds(counted: CountedEgress): { lowUSD: number; highUSD: number } {
  const served = Math.max(0, counted.servedBytes);
  const low = Math.min(served, Math.max(0, counted.originBytes));
  const high = Math.min(served, low + Math.max(0, counted.slicedServedBytes));
  const usd = (bytes: number): number => (bytes / 1e12) * Math.max(0, counted.pricePerTB);
  return { lowUSD: usd(low), highUSD: usd(high) };
}

function ratio(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}
