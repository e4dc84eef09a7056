// What a tier's next hop must do, whatever it is (the edge's is the shield: worker/shield-hop.ts; the shield's is the
// origin: shield/origin/origin-hop.ts): answer the read path's asks for one object, forward what a tier sends on as it
// came, take a purge, say how it is. And the decorators every read's asks pass through, applied here once.

import { meteredUpstream, type RequestMeter } from '../observe/request-meter.ts';
import type { PurgeRecord } from '../purge/purge-rules.ts';
import type { RequestTarget } from '../request/request-target.ts';
import type { AppliedRules } from '../rules/rules.ts';
import { type HealingPolicy, healingUpstream } from './healing-upstream.ts';
import { type HopLog, loggedUpstream } from './hop-log.ts';
import type { HopCalls, Upstream } from './ports.ts';

/** What this tier tells its next hop of the purges it applied to the object (shared/purge/: the newest of each). */
export interface PurgeWatermarks {
  purgedAt?: () => number | undefined;
  softPurgedAt?: () => number | undefined;
}

/** One read of one object, as this tier asks its next hop for it. */
export interface ReadAsk {
  /** What the request names at the origin. */
  target: RequestTarget;
  /** The client's host: it picks the shield's bucket (HOST_BUCKETS). */
  host: string;
  /** The client's end-to-end headers, for an origin that is sent them (a site); absent for S3. */
  client: Headers | undefined;
  /** The purges this tier applied to the object, for the next tier to apply too. */
  watermarks: PurgeWatermarks;
  /** Hears each answer's head as it arrives (hop-log.ts): what the next hop did for this request. */
  hops: HopLog;
  /**
   * The rules matching the request at this tier (shared/rules/), for a tier behind it in the same isolate to read the
   * object by (tier-hop.ts); absent: none (a hop that reads no rules of its own: the origin, the shield over HTTP).
   */
  rules?: AppliedRules | undefined;
}

/**
 * A tier's next hop. `Health` is what it says of itself when asked (the shield: its answer to the edge; the origin:
 * its probe's finding), which the tier's own health answer reports.
 */
export interface NextHop<Health = unknown> extends HopCalls {
  /** Its Cache-Status member name (RFC 9211 §2), which a HopLog reads from its answers; undefined: the origin. */
  member: string | undefined;
  /** The read path's asks for one object, undecorated: `hopUpstream` stacks the decorators over it. */
  object(ask: ReadAsk): Upstream;
  /** How a body it cut part-way is healed, and how long a silence inside it may last. */
  healing: HealingPolicy;
  /** Whether an answer of its came from the origin (the request's record counts those bytes as the origin's). */
  fromOrigin(response: Response): boolean;
  /**
   * Told of a purge this tier recorded and applied to its own cache, to apply to its own; resolves once it has
   * (a next hop that did not confirm rejects with the HttpError a client gets). The origin keeps nothing: no-op.
   */
  purge(records: readonly PurgeRecord[]): Promise<void>;
  /** How it is: never rejects (a hop that does not answer is a finding too). */
  health(): Promise<Health>;
}

/**
 * `next`'s asks for one read, as every tier stacks them: each answer's head heard by `ask.hops`, its bytes counted on
 * `meter`, and its spans healing within `next.healing`.
 */
export function hopUpstream(next: NextHop, ask: ReadAsk, meter: RequestMeter): Upstream {
  return healingUpstream(
    meteredUpstream(loggedUpstream(next.object(ask), ask.hops), meter, (response) => next.fromOrigin(response)),
    next.healing,
  );
}
