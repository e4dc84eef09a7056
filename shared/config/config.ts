// The configuration contract. The same names are used by `[vars]` / `wrangler secret put`
// when deployed and by the process environment in the local stack (docs/configuration.md).

import { ConfigError } from '../http/errors.ts';
import { splitList } from '../http/header-list.ts';
import { type HostBuckets, parseHostBuckets } from '../request/host-buckets.ts';
import { NO_RULES, type Rules } from '../rules/rules.ts';
import { parseRules } from '../rules/rules-document.ts';
import { ADMISSION_CONFIG_NAMES, type AdmissionConfig, parseAdmission } from './admission-config.ts';
import { ConfigProblems } from './config-problems.ts';
import { integer, nonEmpty, objectKey, oneOf, required } from './config-values.ts';
import { type FillConfig, type MemoryConfig, parseLimits, type SlicingConfig } from './limits.ts';
import { OBSERVABILITY_CONFIG_NAMES, type ObservabilityConfig, parseObservability } from './observability.ts';
import { ORIGIN_BUDGET_CONFIG_NAMES, type OriginBudgetConfig, parseOriginBudget } from './origin-budget-config.ts';
import { parseR2Tier, R2_TIER_CONFIG_NAMES, type R2TierConfig } from './r2-tier-config.ts';
import { parseShieldUrl } from './shield-url.ts';
import { parseSiteConfig, SITE_CONFIG_NAMES, type SiteConfig } from './site-config.ts';
import { parseZonePurge, ZONE_PURGE_CONFIG_NAMES, type ZonePurgeConfig } from './zone-purge-config.ts';

export type { SlicingConfig, ZonePurgeConfig };

/** ORIGIN_KIND's choices, and S3_ADDRESSING's (`npm start` checks a value it overrides against them). */
export const ORIGIN_KINDS = ['s3', 'http'] as const;
export const S3_ADDRESSINGS = ['path', 'virtual'] as const;
export type OriginKind = (typeof ORIGIN_KINDS)[number];
type S3Addressing = (typeof S3_ADDRESSINGS)[number];

export interface S3Config {
  /** S3_BUCKET: the bucket for hosts HOST_BUCKETS does not list ('' when there is none). */
  bucket: string;
  /** HOST_BUCKETS: several sites behind one deployment. */
  hostBuckets: HostBuckets;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  addressing: S3Addressing;
}

export interface Config {
  originKind: OriginKind;
  /** Origin endpoint: the S3 service endpoint (no bucket) or the HTTP site's base URL; the first of `originEndpoints`. */
  originUrl: URL;
  /**
   * Every endpoint ORIGIN_URL lists, in the order it prefers them (the same bucket, credentials and objects at each:
   * Storj's gateways); one for most origins. The shield fails over between them (shield/origin/failover-origin.ts).
   */
  originEndpoints: readonly URL[];
  /** Present iff `originKind === 's3'`. */
  s3: S3Config | undefined;
  /** Time allowed for the origin to start answering before the shield gives up with 504. */
  originTimeoutMs: number;
  /**
   * ORIGIN_HEDGE (on by default; it acts only when ORIGIN_URL lists several endpoints): a GET or HEAD whose first byte
   * is late is asked of the next endpoint as well, the first answer winning (shield/origin/endpoint-race.ts).
   */
  originHedge: boolean;
  /**
   * ORIGIN_IDLE_TIMEOUT_MS: the longest silence inside a body before it counts as broken (healed, or the transfer
   * fails).
   */
  originIdleTimeoutMs: number;
  /** How many transfers the shield keeps under way to the origin, and how long a request waits its turn. */
  originBudget: OriginBudgetConfig;
  /** Freshness (s) for stored objects without explicit freshness; 0 = the Last-Modified heuristic (RFC 9111 §4.2.2). */
  defaultTtl: number;
  /** Freshness (s) of a 404/410 without explicit freshness; 0 = never store them. */
  negativeTtl: number;
  /** RFC 5861 windows (s) for responses that give none. */
  staleWhileRevalidate: number;
  staleIfError: number;
  /** Query parameters kept in S3 cache keys (CACHE_KEY_QUERY); all others are dropped. */
  cacheKeyQuery: readonly string[];
  /** Credential the edge presents to the shield; `undefined` = the shield refuses everything. */
  shieldToken: string | undefined;
  /**
   * SHIELD_URL (edge): the origin of a shield on a hostname of its own, which the edge then reaches by `fetch` with its
   * credential instead of its SHIELD binding (shield-url.ts); undefined = the binding.
   */
  shieldUrl: URL | undefined;
  /** Bearer token for `POST /__tiercache/purge` at the edge; `undefined` = purge is disabled. */
  purgeToken: string | undefined;
  /**
   * EVENTS_TOKEN: the secret of `POST /__tiercache/events` at the edge (Storj's bucket events, pushed by Pub/Sub:
   * docs/storj.md "Purge on upload"); `undefined` = the endpoint is disabled.
   */
  eventsToken: string | undefined;
  /**
   * HEALTH_KEY: the object key (S3; in S3_BUCKET, else the first bucket HOST_BUCKETS names) or
   * the path (a site) the health check asks the origin for with HEAD; undefined = the key
   * last served, or a key that names no object (shield/origin/origin-probe.ts).
   */
  healthKey: string | undefined;
  slicing: SlicingConfig;
  /**
   * PREFETCH_SEGMENTS: how many segments after the one a player just read the shield warms, at most, while the player
   * fills its buffer (one while it plays in real time); 0 = none (shield/segment-prefetch.ts, docs/warming.md).
   */
  prefetchSegments: number;
  /** What a fill may pull once nobody waits for it; how long a body without a length may be (limits.ts). */
  fills: FillConfig;
  /** The edge's in-isolate cache of hot small objects (worker/memory-cache.ts). */
  memory: MemoryConfig;
  /** Static-site conveniences: index, 404 and error documents, the folder redirect, Content-Type, CORS (site-config.ts). */
  site: SiteConfig;
  /** Stats, logs and the egress price (observability.ts). */
  observability: ObservabilityConfig;
  /** RULES: what the operator says by path (shared/rules/, docs/rules.md); none = the origin's word alone. */
  rules: Rules;
  /** Signed URLs and cookies: the keys and the protected prefixes (admission-config.ts). */
  admission: AdmissionConfig;
  /** The platform purge (zone-purge-config.ts): Cloudflare's API token and zone; undefined = the records alone. */
  zonePurge: ZonePurgeConfig | undefined;
  /** The R2 tier's admission, prices and write budget (r2-tier-config.ts); it runs only where R2_TIER is bound. */
  r2Tier: R2TierConfig;
}

/** The S3 settings of an S3 origin's configuration (parseConfig sets them for that kind, and only for it). */
export function s3Settings(config: Config): S3Config {
  const { s3 } = config;
  if (s3 === undefined)
    throw new Error('an S3 origin needs its S3 settings (parseConfig sets them for ORIGIN_KIND=s3)');
  return s3;
}

/** Every setting as it arrives: strings (or absent), from `env` or `process.env`. */
export type RawConfig = Partial<Record<ConfigName, string>>;

export const CONFIG_NAMES = [
  'ORIGIN_KIND',
  'ORIGIN_URL',
  'S3_BUCKET',
  'S3_REGION',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'S3_ADDRESSING',
  'ORIGIN_TIMEOUT_MS',
  'ORIGIN_HEDGE',
  'ORIGIN_IDLE_TIMEOUT_MS',
  ...ORIGIN_BUDGET_CONFIG_NAMES,
  'DEFAULT_TTL',
  'NEGATIVE_TTL',
  'STALE_WHILE_REVALIDATE',
  'STALE_IF_ERROR',
  'SHIELD_TOKEN',
  'SHIELD_URL',
  'PURGE_TOKEN',
  'EVENTS_TOKEN',
  'HEALTH_KEY',
  'SLICE_SIZE',
  'SLICE_THRESHOLD',
  'SLICE_READAHEAD',
  'SLICE_PARALLEL',
  'PREFETCH_SEGMENTS',
  'SUBREQUEST_LIMIT',
  'WHOLE_COPY_MAX',
  'HOST_BUCKETS',
  'CACHE_KEY_QUERY',
  'MEMORY_CACHE_SIZE',
  'MEMORY_OBJECT_MAX',
  'ABANDONED_FILL_MAX',
  'ABANDONED_ISOLATE_MAX',
  'UNKNOWN_LENGTH_MAX',
  'UNKNOWN_LENGTH_TIMEOUT_MS',
  'RULES',
  ...SITE_CONFIG_NAMES,
  ...OBSERVABILITY_CONFIG_NAMES,
  ...ADMISSION_CONFIG_NAMES,
  ...ZONE_PURGE_CONFIG_NAMES,
  ...R2_TIER_CONFIG_NAMES,
] as const;
export type ConfigName = (typeof CONFIG_NAMES)[number];

/** Settings that are secrets (`wrangler secret put`): never logged, echoed or printed. */
export const SECRET_CONFIG_NAMES: ReadonlySet<ConfigName> = new Set<ConfigName>([
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'SHIELD_TOKEN',
  'PURGE_TOKEN',
  'EVENTS_TOKEN',
  'STATS_TOKEN',
  'SIGNING_KEYS',
  'CF_API_TOKEN',
]);

export const STORJ_GATEWAY = 'https://gateway.storjshare.io';
const DEFAULT_S3_TTL = 3600;
const DEFAULT_TIMEOUT_MS = 10_000;
/**
 * Varnish's between_bytes_timeout and nginx's proxy_read_timeout are 60 s; a slice that falls
 * silent is asked for again from the byte reached, so a shorter bound costs one request, not
 * the transfer.
 */
const DEFAULT_IDLE_TIMEOUT_MS = 10_000;
const DEFAULT_NEGATIVE_TTL = 60;
/**
 * Segments ahead of a player filling its buffer: three 4–6 s segments are 12–18 s, what hls.js and Shaka ask for before
 * they settle to one a duration; more is egress a player that leaves never reads.
 */
const DEFAULT_PREFETCH_SEGMENTS = 3;
const MAX_PREFETCH_SEGMENTS = 10;
/** Varnish's default grace is 10 s; a minute hides a slow refresh without serving old content for long. */
const DEFAULT_STALE_WHILE_REVALIDATE = 60;
/** A day of stale content rather than errors while an origin is down (as commonly recommended for CDNs). */
const DEFAULT_STALE_IF_ERROR = 86_400;
// Both are the operator's choice for a bucket (S3 objects rarely say anything about staleness).
// A site's answers say for themselves whether they may be served stale (RFC 9111 §4.2.4: a
// cache does not generate a stale response unless disconnected or permitted, RFC 5861), so in
// `http` mode the defaults are 0: stale only when the response allows it or the origin cannot
// be reached at all.
export function parseConfig(raw: RawConfig): Config {
  const problems = new ConfigProblems();
  // An unknown kind leaves unasked which settings the kind requires (no guess), but every
  // setting given is still read, the S3 ones too: all of them are reported at once.
  const kind = problems.read(() => oneOf(raw, 'ORIGIN_KIND', ORIGIN_KINDS, 's3'), undefined);
  if (kind === undefined) parseS3(raw, problems, false);
  const s3Defaults = kind !== 'http';
  const endpoints = problems.read(
    () => parseEndpoints(nonEmpty(raw.ORIGIN_URL) ?? (kind === 'http' ? undefined : STORJ_GATEWAY)),
    [new URL(STORJ_GATEWAY)],
  );
  const config: Config = {
    originKind: kind ?? 's3',
    originUrl: endpoints[0] ?? new URL(STORJ_GATEWAY),
    originEndpoints: endpoints,
    s3: kind === 's3' ? parseS3(raw, problems, true) : undefined,
    originTimeoutMs: problems.read(() => integer(raw, 'ORIGIN_TIMEOUT_MS', DEFAULT_TIMEOUT_MS, 1), DEFAULT_TIMEOUT_MS),
    originHedge: problems.read(() => oneOf(raw, 'ORIGIN_HEDGE', ['on', 'off'], 'on'), 'on') === 'on',
    originIdleTimeoutMs: problems.read(
      () => integer(raw, 'ORIGIN_IDLE_TIMEOUT_MS', DEFAULT_IDLE_TIMEOUT_MS, 1),
      DEFAULT_IDLE_TIMEOUT_MS,
    ),
    originBudget: parseOriginBudget(raw, problems),
    defaultTtl: problems.read(() => integer(raw, 'DEFAULT_TTL', s3Defaults ? DEFAULT_S3_TTL : 0, 0), 0),
    negativeTtl: problems.read(() => integer(raw, 'NEGATIVE_TTL', DEFAULT_NEGATIVE_TTL, 0), 0),
    staleWhileRevalidate: problems.read(
      () => integer(raw, 'STALE_WHILE_REVALIDATE', s3Defaults ? DEFAULT_STALE_WHILE_REVALIDATE : 0, 0),
      0,
    ),
    staleIfError: problems.read(() => integer(raw, 'STALE_IF_ERROR', s3Defaults ? DEFAULT_STALE_IF_ERROR : 0, 0), 0),
    shieldToken: nonEmpty(raw.SHIELD_TOKEN),
    shieldUrl: problems.read(() => parseShieldUrl(raw.SHIELD_URL), undefined),
    cacheKeyQuery: splitList(raw.CACHE_KEY_QUERY ?? ''),
    purgeToken: nonEmpty(raw.PURGE_TOKEN),
    eventsToken: nonEmpty(raw.EVENTS_TOKEN),
    healthKey: problems.read(() => objectKey(raw, 'HEALTH_KEY'), undefined),
    ...parseLimits(raw, problems),
    prefetchSegments: problems.read(
      () => integer(raw, 'PREFETCH_SEGMENTS', DEFAULT_PREFETCH_SEGMENTS, 0, MAX_PREFETCH_SEGMENTS),
      DEFAULT_PREFETCH_SEGMENTS,
    ),
    site: parseSiteConfig(raw, problems, kind !== 'http'),
    observability: parseObservability(raw, problems),
    rules: problems.read(() => parseRules(raw.RULES), NO_RULES),
    admission: parseAdmission(raw, problems),
    zonePurge: parseZonePurge(raw, problems),
    r2Tier: parseR2Tier(raw, problems),
  };
  problems.throwIfAny();
  return config;
}

/** The S3 settings; `requireAll` false checks only the values given (the kind is not known to be s3). */
function parseS3(raw: RawConfig, problems: ConfigProblems, requireAll: boolean): S3Config {
  const hostBuckets = problems.read(() => parseHostBuckets(raw.HOST_BUCKETS), new Map<string, string>());
  // A HOST_BUCKETS that cannot be read says nothing of whether S3_BUCKET is needed: not asked for then.
  const bucketOptional = !requireAll || hostBuckets.size > 0 || nonEmpty(raw.HOST_BUCKETS) !== undefined;
  const need = (name: 'S3_ACCESS_KEY_ID' | 'S3_SECRET_ACCESS_KEY'): string =>
    requireAll ? problems.read(() => required(raw, name), '') : (nonEmpty(raw[name]) ?? '');
  return {
    bucket: bucketOptional ? (nonEmpty(raw.S3_BUCKET) ?? '') : problems.read(() => required(raw, 'S3_BUCKET'), ''),
    hostBuckets,
    region: nonEmpty(raw.S3_REGION) ?? 'us-east-1',
    accessKeyId: need('S3_ACCESS_KEY_ID'),
    secretAccessKey: need('S3_SECRET_ACCESS_KEY'),
    addressing: problems.read(() => oneOf(raw, 'S3_ADDRESSING', S3_ADDRESSINGS, 'path'), 'path'),
  };
}

/** Most endpoints ORIGIN_URL may list: each is asked in turn on a failure, within ORIGIN_TIMEOUT_MS apiece. */
export const MAX_ORIGIN_ENDPOINTS = 4;

/**
 * ORIGIN_URL: one URL, or several separated by commas or spaces, the preferred first (the same objects at each). Each
 * is checked as one is; two equal ones, or more than MAX_ORIGIN_ENDPOINTS, are refused.
 */
function parseEndpoints(value: string | undefined): URL[] {
  if (value === undefined) return [parseUrl(undefined)];
  const urls = value
    .split(/[\s,]+/)
    .filter((part) => part !== '')
    .map(parseUrl);
  if (urls.length === 0) throw new ConfigError('ORIGIN_URL names no endpoint');
  if (urls.length > MAX_ORIGIN_ENDPOINTS)
    throw new ConfigError(`ORIGIN_URL lists ${urls.length} endpoints: at most ${MAX_ORIGIN_ENDPOINTS}`);
  if (new Set(urls.map((url) => url.href)).size !== urls.length)
    throw new ConfigError('ORIGIN_URL lists an endpoint twice');
  return urls;
}

function parseUrl(value: string | undefined): URL {
  if (value === undefined) throw new ConfigError('ORIGIN_URL is required when ORIGIN_KIND=http');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // The value is not echoed: a URL may carry credentials.
    throw new ConfigError('ORIGIN_URL must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`ORIGIN_URL must use http or https, got ${url.protocol}`);
  }
  return url;
}

/**
 * `build` once per bindings object: an isolate keeps the same `env` between requests, so what
 * is read from it (the configuration, the typed bindings) is read once per isolate.
 */
export function oncePerEnv<E extends object, T>(build: (env: E) => T): (env: E) => T {
  const built = new WeakMap<E, T>();
  return (env) => {
    if (built.has(env)) return built.get(env) as T;
    const value = build(env);
    built.set(env, value);
    return value;
  };
}

/**
 * `parseConfig` once per bindings object; throws a ConfigError naming every bad setting (and again on the next
 * request).
 */
export const configFrom: (env: RawConfig) => Config = oncePerEnv(parseConfig);
