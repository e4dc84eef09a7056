// Methods other than GET, HEAD and OPTIONS, at either tier: to an origin whose traits pass them (a site's forms and
// APIs) forwarded through the next hop as they came, never cached; to one that takes none (S3), 405. A successful
// unsafe one removes what this tier stored for its target and for the same-host URLs its answer names in Location and
// Content-Location (RFC 9111 §4.4); the next tier does the same for its own entries.

import { CACHED_METHODS, type OriginTraits } from '../config/origin-traits.ts';
import { MethodNotAllowed } from '../http/errors.ts';
import { invalidatedUrls } from '../http/invalidation.ts';
import type { ForwardingTier, HopCall } from './ports.ts';
import { remove, type TierCache } from './tier-cache.ts';
import { withTierReport } from './tier-headers.ts';

/** A tier as pass-through sees it: what it forwards through, and where it keeps what an answer invalidates. */
export interface PassingTier extends ForwardingTier {
  /** The origin's traits: whether it takes other methods, and the target a URL names there. */
  traits: OriginTraits;
  /** This tier's cache, opened once the answer is in. */
  cache(): Promise<TierCache>;
  /**
   * The URL the answer to `call` is relative to: its Location and Content-Location resolve against it, and only those
   * on its host invalidate (RFC 9111 §4.4). The edge's is the client's URL, the shield's the origin's.
   */
  answeredFor(call: HopCall): URL;
  /** This tier's key of an invalidated URL; undefined for one that names no object here (never stored). */
  keyOf(url: URL): string | undefined;
}

/** The next hop's answer to `request` for `url`, or the 405; `started`: when this tier took it (Date.now). */
export async function passThrough(request: Request, url: URL, tier: PassingTier, started: number): Promise<Response> {
  const { traits, meter } = tier;
  if (!traits.passesOtherMethods) throw new MethodNotAllowed(request.method, CACHED_METHODS);
  const call: HopCall = { request, url, target: traits.target(url) };
  // Counted by its length, or as it passes when it declares none (a site answering chunked).
  const response = meter.fetchedAnswer(request.method, await tier.hop.passThrough(call), true);
  // RFC 9111 §4.4: a non-error answer to an unsafe method invalidates the target, and the Location / Content-Location
  // URLs it names on the same host.
  const cache = await tier.cache();
  const base = tier.answeredFor(call);
  for (const invalidated of invalidatedUrls(base, response.status, response.headers, request.method)) {
    const key = tier.keyOf(invalidated);
    if (key !== undefined) meter.hold(remove(cache, key).catch(() => false));
  }
  return withTierReport(response, tier.name, { fwd: 'method' }, Date.now() - started);
}
