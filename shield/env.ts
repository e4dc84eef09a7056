// The shield's bindings: `ShieldEnv` as the platform hands them (shield-app.ts reads it and nothing else does), and
// `ShieldBindings`, what the code is given: the configuration parsed once per isolate and the bindings it uses.

import { type Clock, PLATFORM_CLOCK } from '../shared/clock/clock.ts';
import { type Config, configFrom, oncePerEnv, type RawConfig } from '../shared/config/config.ts';
import { HOST_HEADER } from '../shared/hop/hop-fields.ts';
import { parseSliceRequestPath } from '../shared/hop/slice-protocol.ts';
import { ConfigError } from '../shared/http/errors.ts';
import { type ObservedTier, observedTier } from '../shared/observe/observed.ts';
import type { RequestMeter } from '../shared/observe/request-meter.ts';
import type { PurgeRecord } from '../shared/purge/purge-rules.ts';
import { rawPath } from '../shared/request/raw-path.ts';
import { type ShieldCache, shieldCacheOf } from '../shared/tiers/shield-caches.ts';
import type { R2Store } from './r2/r2-cache.ts';
import { type R2Isolate, type R2Request, r2Isolate } from './r2/r2-tier.ts';
import type { AnswerFacts } from './workers-cache-answer.ts';

/** The shield worker's bindings: the configuration contract (vars and secrets) and the purge list. */
export type ShieldEnv = RawConfig & {
  /** The global purge list (shared/purge/purge-store.ts), shared with the edge. */
  PURGES?: KVNamespace;
  /** The clock freshness and purges are judged by (shared/clock/clock.ts); absent (deployed) = the platform's. */
  CLOCK?: Clock;
  /** The stats store (stats-store.ts, this script's own Durable Object); absent = nothing counted. */
  STATS?: DurableObjectNamespace;
  /** Workers Analytics Engine: one data point per request; absent = none written. */
  ANALYTICS?: AnalyticsEngineDataset;
  /**
   * `on`: Workers Cache fronts the slices entrypoint (slices-entrypoint.ts), and this one hands it
   * the answers it may keep (workers-cache-layer.ts). Written by `npm run deploy` with the
   * entrypoint's cache setting (cli/wrangler-config.ts); absent or `off` (the local stack) = none.
   */
  SHIELD_WORKERS_CACHE?: string;
  /** The R2 tier's bucket (shield/r2/README.md): bound, the tier runs behind the shield's Cache API; absent, it is off. */
  R2_TIER?: R2Bucket;
};

export interface ShieldBindings {
  config: Config;
  purges: KVNamespace | undefined;
  /** The time this tier judges by: CLOCK, or the platform's. */
  clock: Clock;
  /** Where this tier's records go (shared/observe/). */
  observed: ObservedTier;
  /** Whether Workers Cache fronts the slices entrypoint (SHIELD_WORKERS_CACHE). */
  workersCache: boolean;
  /** Which cache the shield keeps its copies in, as its health answer and Cache-Status member say. */
  cache: ShieldCache;
  /** The R2 tier of this isolate (R2_TIER bound); undefined: off. */
  r2Tier: R2Isolate | undefined;
}

/**
 * What one request is handed: the bindings, the meter its record is made from, and what its entrypoint's layer
 * (workers-cache-layer.ts) adds around the app; absent, the app does without.
 */
export interface ShieldRequest extends ShieldBindings {
  meter: RequestMeter;
  /** Hears each slice answer before it leaves (the slices entrypoint marks it for the Workers Cache in front of it). */
  answered?: ((headers: Headers, facts: AnswerFacts) => void) | undefined;
  /**
   * Purges the layer in front of this shield of what a purge's records name, after the shield's own cache: the
   * Workers Cache in front of the slices entrypoint (workers-cache-gateway.ts purgeInFront).
   */
  purgeInFront?: ((records: readonly PurgeRecord[]) => Promise<void>) | undefined;
  /**
   * The entrypoint's own POST endpoints under the reserved prefix, by canonical path, beside purge and health: the
   * slices entrypoint's Workers Cache purge. Like them, only the edge's credential reaches them and no record is made.
   */
  ownEndpoints?: ReadonlyMap<string, (request: Request) => Promise<Response>> | undefined;
  /** The R2 tier for this request, where it is on (shield-app.ts makes it with the request's record). */
  r2?: R2Request | undefined;
}

/** Once per bindings object (an isolate keeps the same `env`); throws ConfigError naming a bad setting. */
export const shieldBindings = oncePerEnv((env: ShieldEnv): ShieldBindings => {
  const config = configFrom(env);
  const workersCache = onOff(env.SHIELD_WORKERS_CACHE);
  return {
    config,
    purges: env.PURGES,
    clock: env.CLOCK ?? PLATFORM_CLOCK,
    observed: observedTier('shield', config.observability, env, describe),
    workersCache,
    cache: shieldCacheOf(workersCache),
    r2Tier: r2Isolate(env.R2_TIER as R2Store | undefined, config),
  };
});

/** SHIELD_WORKERS_CACHE: `on`, or `off` (or unset); anything else names the setting. */
function onOff(value: string | undefined): boolean {
  if (value === undefined || value === '' || value === 'off') return false;
  if (value === 'on') return true;
  throw new ConfigError(`SHIELD_WORKERS_CACHE: expected on or off, got ${JSON.stringify(value)}`);
}

/** The edge's client's host, and the object's path (a slice request names it inside its own). */
function describe(request: Request): { host: string; path: string } {
  const path = rawPath(request.url);
  const sliced = parseSliceRequestPath(path.split('?', 1)[0] ?? '');
  return { host: request.headers.get(HOST_HEADER) ?? '', path: sliced?.objectPath ?? path };
}
