// What both tiers know of the origin without asking it, derived once from the configuration: which client headers
// reach it, which hosts it serves, how a request names one of its objects, whether it takes other methods. The one
// place the kind is turned into answers (ORIGIN_TRAITS); every caller asks a question of the value, none compares kinds.
// The shield's I/O for each kind is shield/origin/ (origin.ts).

import { canonicalPrefix, type PrefixResult } from '../purge/purge-prefix.ts';
import { bucketFor, type HostBuckets } from '../request/host-buckets.ts';
import { type RequestTarget, requestTarget, type TargetOptions } from '../request/request-target.ts';
import type { KeyQuery } from '../rules/rules.ts';
import { type Config, type OriginKind, s3Settings } from './config.ts';

/**
 * The methods both tiers answer themselves, whatever the origin: GET and HEAD from their caches, OPTIONS at the edge.
 * Others pass only to an origin whose traits say so (`passesOtherMethods`); to any other, RFC 9110 §15.5.6: 405 with
 * these in Allow.
 */
export const CACHED_METHODS: readonly string[] = ['GET', 'HEAD', 'OPTIONS'];

export interface OriginTraits {
  /**
   * ORIGIN_KIND: the key of the pure path rules (request-target.ts, purge-prefix.ts, protected-paths.ts), which spell
   * an S3 key and a site's path each their own way. Handed to them, never compared: what differs is asked below.
   */
  readonly kind: OriginKind;
  /**
   * Whether the client's end-to-end request headers reach the origin (a site: its Vary, cookies and content
   * negotiation depend on them), or none do (S3: the shield signs a request of the tiers' own Range and conditions).
   */
  readonly forwardsClientHeaders: boolean;
  /**
   * Whether a method other than GET, HEAD and OPTIONS is forwarded, uncached (a site's forms and APIs), or refused with
   * 405 (S3: the shield signs reads only).
   */
  readonly passesOtherMethods: boolean;
  /**
   * Whether the origin's answers that are not the object (a site's 404 page, its redirect, its 503) reach the client
   * as it sent them, or only their status does, in a body of ours (S3: its XML error documents never pass).
   */
  readonly passesItsAnswers: boolean;
  /** The host names HOST_BUCKETS gives a bucket each (S3); a site names none. */
  readonly namedHosts: readonly string[];
  /** Whether a request for `host` (a URL's hostname) names a site here; if not, RFC 9110 §15.5.20: 421. */
  serves(host: string): boolean;
  /** The request target of `url`, in the spelling this origin's keys use (request-target.ts). */
  target(url: URL, options?: TargetOptions): RequestTarget;
  /** A purge prefix in the spelling this origin's keys use (purge-prefix.ts). */
  purgePrefix(
    prefix: string,
    keyQuery?: readonly string[],
    ruleQuery?: (path: string) => KeyQuery | undefined,
  ): PrefixResult;
}

/** Each kind's traits: every kind has its entry, or this does not compile. */
const ORIGIN_TRAITS: { readonly [Kind in OriginKind]: (config: Config) => OriginTraits } = {
  s3: (config) => s3Traits(s3Settings(config)),
  http: () => SITE_TRAITS,
};

/** Per configuration (one per isolate), as the edge remembers its addresses per configuration. */
const derived = new WeakMap<Config, OriginTraits>();

/** The origin's traits, derived once per configuration. */
export function originTraits(config: Config): OriginTraits {
  let traits = derived.get(config);
  if (traits === undefined) {
    traits = ORIGIN_TRAITS[config.originKind](config);
    derived.set(config, traits);
  }
  return traits;
}

const SITE_TRAITS: OriginTraits = {
  kind: 'http',
  forwardsClientHeaders: true,
  passesOtherMethods: true,
  passesItsAnswers: true,
  namedHosts: [],
  // One site, whatever host its clients name.
  serves: () => true,
  target: (url, options) => requestTarget(url, 'http', options),
  purgePrefix: (prefix, keyQuery, ruleQuery) => canonicalPrefix(prefix, 'http', keyQuery, ruleQuery),
};

function s3Traits(s3: { bucket: string; hostBuckets: HostBuckets }): OriginTraits {
  return {
    kind: 's3',
    forwardsClientHeaders: false,
    passesOtherMethods: false,
    passesItsAnswers: false,
    namedHosts: [...s3.hostBuckets.keys()],
    // A host HOST_BUCKETS does not list reads S3_BUCKET, when there is one (host-buckets.ts).
    serves: (host) => bucketFor(s3, host) !== undefined,
    target: (url, options) => requestTarget(url, 's3', options),
    purgePrefix: (prefix, keyQuery, ruleQuery) => canonicalPrefix(prefix, 's3', keyQuery, ruleQuery),
  };
}
