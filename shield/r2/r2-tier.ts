// The R2 tier, assembled behind the shield (README.md): per isolate, its bucket, what the shield has seen of each
// entry, its write budget and its walk of the index (R2Isolate); per request, its hop between the shield's Cache API
// tier and the origin, and its own record (R2Request). The hop is the door every tier behind another comes in by
// (shared/tier/tier-hop.ts tierHop): the one read path over the R2 store (r2-cache.ts), admitted (r2-admitted.ts),
// its next hop the origin with every fetch counted (fetches-seen.ts), every operation on its bucket counted for the
// stats (counted-bucket.ts).

import type { Clock } from '../../shared/clock/clock.ts';
import type { Config } from '../../shared/config/config.ts';
import type { ObservedTier } from '../../shared/observe/observed.ts';
import { isolateR2, type R2Tally } from '../../shared/observe/r2-tally.ts';
import { tellOperations, tellRecord } from '../../shared/observe/record-sinks.ts';
import { RequestMeter } from '../../shared/observe/request-meter.ts';
import type { PurgeKv } from '../../shared/purge/purge-kv.ts';
import { isolatePurges } from '../../shared/purge/purge-store.ts';
import { tierRecord } from '../../shared/stats/record.ts';
import { FetchHistory } from '../../shared/store/fetch-history.ts';
import { WriteBudget } from '../../shared/store/write-budget.ts';
import type { NextHop } from '../../shared/tier/next-hop.ts';
import { tierHop } from '../../shared/tier/tier-hop.ts';
import { countedBucket } from './counted-bucket.ts';
import { fetchesSeen } from './fetches-seen.ts';
import { admittedCache } from './r2-admitted.ts';
import { type R2Store, R2TierCache } from './r2-cache.ts';
import { newSweep, type SweepState, sweep } from './r2-sweep.ts';

/** The R2 tier of one isolate: kept across its requests. */
export interface R2Isolate {
  bucket: R2Store;
  history: FetchHistory;
  budget: WriteBudget;
  sweep: SweepState;
  /** Where its operations on the bucket are counted for the stats. */
  tally: R2Tally;
}

/**
 * The R2 tier for a shield isolate whose R2_TIER binding is `bucket`; undefined (off) when none is bound. Its
 * operations are counted in `tally`, the isolate's (flushed with its stats) unless a test hands its own.
 */
export function r2Isolate(
  bucket: R2Store | undefined,
  config: Config,
  tally: R2Tally = isolateR2,
): R2Isolate | undefined {
  if (bucket === undefined) return undefined;
  return {
    bucket,
    history: new FetchHistory(),
    budget: new WriteBudget(config.r2Tier.writesPerHour),
    sweep: newSweep(),
    tally,
  };
}

/** What a shield read hands the R2 tier: the object's configuration, the clock and the purge list it reads by. */
interface R2Route {
  config: Config;
  clock: Clock;
  purges: PurgeKv | undefined;
}

/** The R2 tier for one shield request. */
export interface R2Request {
  /** The tier between the shield and `next` (the origin), for one object. */
  hop<Health>(route: R2Route, next: NextHop<Health>): NextHop<Health>;
  /**
   * Its record of this request, told once `after` (the shield's own work, which asks it) and its own have settled, when
   * the shield asked it at all; `bytesSent`: what the shield counted from it (its meter's bytes from the next hop).
   */
  record(request: Request, after: Promise<unknown>, bytesSent: () => number): void;
}

/** The first answer the tier gave this request: its record's status and Cache-Status member. */
interface Heard {
  status: number;
  headers: Headers;
  at: number;
}

export function r2Request(
  r2: R2Isolate,
  observed: ObservedTier,
  keepAlive: (promise: Promise<unknown>) => void,
): R2Request {
  const started = Date.now();
  const meter = new RequestMeter(started, keepAlive);
  let heard: Heard | undefined;
  const hear = (response: Response): void => {
    heard ??= { status: response.status, headers: new Headers(response.headers), at: Date.now() };
  };
  return {
    hop(route, next) {
      const { config, clock, purges } = route;
      const now = (): number => clock.now();
      // Its operations counted, and flushed even when they end after this request's records (a put, the walk).
      const bucket = countedBucket(r2.bucket, r2.tally, now, () => tellOperations('shield', observed.sinks, keepAlive));
      const cache = admittedCache(new R2TierCache(bucket, now), {
        settings: config.r2Tier,
        egressPerTB: config.observability.egressPricePerTB,
        history: r2.history,
        budget: r2.budget,
        now,
      });
      // The walk of the index, when one is due: kept alive with the tier's other work.
      meter.hold(sweep(bucket, r2.sweep, now(), () => isolatePurges.purgeList(purges, now())));
      return heardHop(
        tierHop({ name: 'r2', cache, config, clock, purges, meter }, fetchesSeen(next, r2.history, now)),
        hear,
      );
    },
    record(request, after, bytesSent) {
      const told = after
        .then(() => meter.settled())
        .then(() => {
          if (heard === undefined) return;
          const { host, path } = observed.describe(request);
          const record = tierRecord(
            {
              tier: 'r2',
              method: request.method,
              host,
              path,
              status: heard.status,
              headers: heard.headers,
              bytesSent: bytesSent(),
              bytesFromNextHop: meter.bytesFromNextHop,
              bytesFromOrigin: meter.bytesFromOrigin,
              at: started,
              ttfbMs: heard.at - started,
              durationMs: Date.now() - started,
            },
            observed.host,
          );
          tellRecord(record, observed.sinks, keepAlive);
        });
      keepAlive(told.catch(() => undefined));
    },
  };
}

/** `hop`, its first answer (to a read, a HEAD, a revalidation) heard by `hear`. */
function heardHop<Health>(hop: NextHop<Health>, hear: (response: Response) => void): NextHop<Health> {
  return {
    ...hop,
    object(ask) {
      const upstream = hop.object(ask);
      return {
        async slices(span, pinned, sliceAsk) {
          const answer = await upstream.slices(span, pinned, sliceAsk);
          hear(answer.response);
          return answer;
        },
        async head(signal) {
          const response = await upstream.head(signal);
          hear(response);
          return response;
        },
      };
    },
  };
}
