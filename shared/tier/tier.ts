// A tier, assembled: what every tier does with a request, written once over what the tier hands it (its name, its
// cache, its clock, its purge list, its meter) and what it makes of the request (an ObjectRoute: the object's key, the
// rules that match it, its next hop). The edge (worker/edge-tier.ts) and the shield (shield/shield-tier.ts) keep only
// what is theirs and their adapters; a third tier is one more adapter.

import type { Clock } from '../clock/clock.ts';
import type { Config } from '../config/config.ts';
import type { RequestMeter } from '../observe/request-meter.ts';
import type { PurgeKv } from '../purge/purge-kv.ts';
import { directDeletes, type PurgeList, type PurgeListState, type PurgeRecord } from '../purge/purge-rules.ts';
import { isolatePurges } from '../purge/purge-store.ts';
import type { RequestFacts } from '../request/request-facts.ts';
import type { RequestTarget } from '../request/request-target.ts';
import { ruleDecidedFreshness, ruleDetail } from '../rules/rule-freshness.ts';
import type { AppliedRules } from '../rules/rules.ts';
import type { TierName } from '../tiers/tiers.ts';
import { bypassed } from './bypass.ts';
import { HopLog } from './hop-log.ts';
import { hopUpstream, type NextHop, type PurgeWatermarks } from './next-hop.ts';
import { headObject } from './object-head.ts';
import { type PassingTier, passThrough } from './pass-through.ts';
import { type HopCalls, type ObjectRead, readPolicy } from './ports.ts';
import { remove, type TierCache } from './tier-cache.ts';
import { withRuleDetail } from './tier-headers.ts';

/** What a tier is made of, for one request. */
export interface TierParts {
  name: TierName;
  /** Its cache, opened when a flow needs it. */
  cache(): Promise<TierCache>;
  /** The clock freshness and purges are judged by (shared/clock/clock.ts). */
  clock: Clock;
  /** The global purge list (shared/purge/purge-store.ts); absent = none configured. */
  purges: PurgeKv | undefined;
  /**
   * Where a purge this tier takes is recorded before it applies it: the edge writes the global list (rejecting with
   * PurgeNotRecorded), the shield learns the edge's records at once.
   */
  record(records: readonly PurgeRecord[], at: number): Promise<void>;
  /** The request's record (shared/observe/request-meter.ts). */
  meter: RequestMeter;
}

/** What the purge list says of one object, for the read and for the next hop. */
interface PurgeVerdicts extends Pick<ObjectRead, 'purged' | 'softPurgedAt'> {
  /** The newest purges applied, told to the next tier; none where the next hop is the origin. */
  watermarks: PurgeWatermarks;
}

/** What a tier makes of one GET or HEAD of an object. */
export interface ObjectRoute {
  /** The configuration this object is read by (the shield's: its host's bucket). */
  config: Config;
  /** What the request names at the origin. */
  target: RequestTarget;
  /** The object's key in this tier's cache. */
  key: string;
  /** The rules matching the request (shared/rules/). */
  rules: AppliedRules;
  /** Whether a bypass rule may act here (the shield never bypasses the edge's own slice requests). */
  bypassable: boolean;
  /** The next hop, for this object. */
  next: NextHop;
  /** The client's host, told to the next hop. */
  host: string;
  /** The client's end-to-end headers, as this tier forwards them (a site's); absent for S3. */
  client: Headers | undefined;
  /** What the purge list says of this object. */
  verdicts(list: PurgeList): PurgeVerdicts;
  /** What this tier adds to the read (only-if-cached at the edge; no stale answer to the edge's revalidation). */
  extra: Pick<ObjectRead, 'noStale' | 'onlyIfCached'>;
  /** A GET, answered from `read` (the edge: whole or sliced to the client; the shield: the slices asked). */
  get(read: ObjectRead, hops: HopLog, started: number): Promise<Response>;
  /** A HEAD's answer, as this tier finishes it (the edge: the same 304 or 412 a GET would get). */
  head(response: Response): Response;
}

/** What a tier forwards another method through, and where it keeps what the answer invalidates (pass-through.ts). */
interface PassRoute extends Pick<PassingTier, 'traits' | 'answeredFor' | 'keyOf'> {
  next: HopCalls;
}

/** A tier's own part of its health answer: what its next hop said, and how its reads of the purge list went. */
interface TierHealth<Health> {
  next: Health;
  purgeList: PurgeListState;
}

export interface Tier {
  name: TierName;
  /** GET or HEAD of an object (`route`), bypassed where a rule says so, else read through this tier's cache. */
  answerObject(request: Request, facts: RequestFacts, route: ObjectRoute): Promise<Response>;
  /** Another method (pass-through.ts): forwarded as it came, or 405; what its answer invalidates removed here. */
  passThrough(request: Request, facts: RequestFacts, route: PassRoute): Promise<Response>;
  /**
   * A purge taken at `at`: recorded, this tier's entries for the URLs named removed (`keyOf` each URL record's key,
   * `nth` its place among them), then told to `next`; rejects with the HttpError a client gets.
   */
  purge(
    records: readonly PurgeRecord[],
    at: number,
    keyOf: (record: PurgeRecord, nth: number) => string | undefined,
    next: NextHop,
    subrequests: number,
  ): Promise<void>;
  /** What the next hop says of itself, and how this isolate's reads of the purge list went (read when due). */
  health<Health>(next: NextHop<Health>): Promise<TierHealth<Health>>;
}

export function openTier(parts: TierParts): Tier {
  const { name, clock, purges, meter } = parts;
  return {
    name,
    answerObject: (request, facts, route) => answerObject(parts, request, facts, route),
    passThrough: (request, facts, { next, ...route }) =>
      passThrough(request, facts.url, { ...route, name, hop: next, meter, cache: parts.cache }, facts.started),
    async purge(records, at, keyOf, next, subrequests) {
      await parts.record(records, at);
      const cache = await parts.cache();
      // A soft record deletes nothing: the entry stays, stale, to be revalidated (shared/purge/soft-purge.ts). The
      // first directDeletes only (each is a subrequest): the records make every URL named a miss here at once.
      const keys = records
        .filter((record) => record.kind === 'url')
        .map((record, nth) => (record.soft === true ? undefined : keyOf(record, nth)))
        .filter((key) => key !== undefined)
        .slice(0, directDeletes(subrequests));
      await Promise.all(keys.map((key) => remove(cache, key).catch(() => false)));
      await next.purge(records);
    },
    async health(next) {
      const [found] = await Promise.all([next.health(), isolatePurges.purgeList(purges, clock.now())]);
      return { next: found, purgeList: isolatePurges.purgeListState(purges, clock.now()) };
    },
  };
}

/** GET or HEAD of an object at `tier`: bypassed where a rule says so, else read through its cache from `route.next`. */
async function answerObject(
  tier: TierParts,
  request: Request,
  facts: RequestFacts,
  route: ObjectRoute,
): Promise<Response> {
  const { name, clock, purges, meter } = tier;
  const { config, target, rules, next } = route;
  // On the clock the read path times by (read.now, readPolicy), so that its durations hold on any clock.
  const started = facts.now;
  if (rules.bypassRule !== undefined && route.bypassable) {
    const call = { request, url: facts.url, target };
    return bypassed(call, rules.bypassRule, { name, hop: next, meter }, facts.started);
  }
  // On the clock entries are timed by (readPolicy): records are compared with their origin times.
  const verdicts = route.verdicts(await isolatePurges.purgeList(purges, facts.now));
  // What the next hop answers this request, as each head arrives: its member and metrics, reported on.
  const hops = new HopLog(next.member);
  const read: ObjectRead = {
    cache: await tier.cache(),
    key: route.key,
    selecting: route.client,
    ...readPolicy(config, clock, rules),
    // Everything the read leaves running is kept alive, and the request's record waits for it.
    waitUntil: (promise) => meter.hold(promise),
    upstream: hopUpstream(
      next,
      { target, host: route.host, client: route.client, watermarks: verdicts.watermarks, hops, rules },
      meter,
    ),
    nextMember: next.member,
    purged: verdicts.purged,
    softPurgedAt: verdicts.softPurgedAt,
    // The client's request (the edge's, at the shield): it aborts when the client gives up.
    signal: request.signal,
    // Whether the client went away before the body ended, where that is heard (its record says).
    bodyEnd: (ended) => {
      meter.bodyEnded = ended;
    },
    ...route.extra,
  };
  const response =
    request.method === 'HEAD'
      ? route.head(await headObject(read, name, started))
      : await route.get(read, hops, started);
  // Said of the answer's headers, as every tier says it of the same ones (the same RULES at each).
  const decided = ruleDecidedFreshness(rules, response.status, response.headers);
  return withRuleDetail(response, name, decided === undefined ? undefined : ruleDetail(decided));
}
