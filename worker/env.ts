// The edge's bindings: `EdgeEnv` as the platform hands them (index.ts reads it and nothing else does), and
// `EdgeBindings`, what the code is given: the configuration parsed once per isolate and the bindings it uses.

import { ProtectedPaths } from '../shared/admission/protected-paths.ts';
import { withoutTokenParams } from '../shared/admission/signed-token.ts';
import { SignatureVerifier } from '../shared/admission/verifier.ts';
import { type Clock, PLATFORM_CLOCK } from '../shared/clock/clock.ts';
import { type Config, configFrom, oncePerEnv, type RawConfig } from '../shared/config/config.ts';
import { originTraits } from '../shared/config/origin-traits.ts';
import { type ObservedTier, observedTier } from '../shared/observe/observed.ts';
import type { RequestMeter } from '../shared/observe/request-meter.ts';
import { rawPath } from '../shared/request/raw-path.ts';
import type { ClientRules } from '../shared/rules/client-rules.ts';
import type { SignedAdmission } from './admission.ts';
import { type ShieldTransport, shieldTransport } from './shield-transport.ts';

/** The edge worker's bindings: the configuration contract, the shield service binding, the purge list. */
export interface EdgeEnv extends RawConfig {
  /** The shield, by service binding ('workers-cache' mode); absent when SHIELD_URL names it (shield-transport.ts). */
  SHIELD?: Fetcher;
  /** The global purge list (shared/purge/purge-store.ts), shared with the shield; absent = purge unavailable. */
  PURGES?: KVNamespace;
  /** The clock freshness and purges are judged by (shared/clock/clock.ts); absent (deployed) = the platform's. */
  CLOCK?: Clock;
  /** The stats store (shield/stats-store.ts, bound by script name); absent = nothing counted. */
  STATS?: DurableObjectNamespace;
  /** Workers Analytics Engine: one data point per request; absent = none written. */
  ANALYTICS?: AnalyticsEngineDataset;
}

export interface EdgeBindings {
  config: Config;
  /** The way to the shield: the SHIELD binding or SHIELD_URL (shield-transport.ts). */
  shield: ShieldTransport;
  purges: KVNamespace | undefined;
  /** The time this tier judges by: CLOCK, or the platform's. */
  clock: Clock;
  stats: DurableObjectNamespace | undefined;
  /** Where this tier's records go (shared/observe/). */
  observed: ObservedTier;
  /** The signature check of SIGNED_PREFIXES (worker/admission.ts); undefined = nothing is protected. */
  admission: SignedAdmission | undefined;
}

/**
 * What one request is handed: the bindings, the meter its record is made from, and what the edge found out about it
 * on the way, each beside the request it is of (a 404 page or a fallback document is read as a request of its own,
 * with the same EdgeRequest: what was found out about the client's request is not the document's).
 */
export interface EdgeRequest extends EdgeBindings {
  meter: RequestMeter;
  /** A request admitted with a token, and its URL without it (worker/admission.ts). */
  admitted?: { request: Request; url: string };
  /** What the rules say of the client's answer to `request` (worker/edge-rules.ts), looked up once. */
  client?: { request: Request; rules: ClientRules };
  /** A memory hit whose headers carry its rules' edits already (memory-hit.ts): not edited again. */
  edited?: Response;
}

/** Once per bindings object (an isolate keeps the same `env`); throws ConfigError naming a bad setting. */
export const edgeBindings = oncePerEnv((env: EdgeEnv): EdgeBindings => {
  const config = configFrom(env);
  return {
    config,
    shield: shieldTransport(env.SHIELD, config.shieldUrl),
    purges: env.PURGES,
    clock: env.CLOCK ?? PLATFORM_CLOCK,
    stats: env.STATS,
    observed: observedTier('edge', config.observability, env, describe),
    admission: signedAdmission(config),
  };
});

/** Once per isolate: the protected prefixes and the verifier that remembers the signatures it checked. */
function signedAdmission(config: Config): SignedAdmission | undefined {
  const { signedPrefixes, signingKeys } = config.admission;
  if (signedPrefixes.length === 0) return undefined;
  const paths = new ProtectedPaths(signedPrefixes, originTraits(config).kind);
  return { paths, verifier: new SignatureVerifier(signingKeys, paths) };
}

/**
 * The client's host and path, read off the request as it came (no URL parsed on the hot path); a signed URL's token
 * is no part of the path recorded (it is a credential, if a short-lived one).
 */
function describe(request: Request): { host: string; path: string } {
  return { host: request.headers.get('host') ?? '', path: withoutTokenParams(rawPath(request.url)) };
}
