// The configuration contract. The same names are used by `[vars]` / `wrangler secret put`
// when deployed and by the process environment in the local stack (see README).

import { byteSize, integer, nonEmpty, oneOf, required } from './config-values.ts';
import { type HostBuckets, parseHostBuckets } from '../target/host-buckets.ts';
import { SITE_CONFIG_NAMES, type SiteConfig, parseSiteConfig } from './site-config.ts';
import { ConfigError } from '../http/errors.ts';

export type OriginKind = 's3' | 'http';
export type S3Addressing = 'path' | 'virtual';

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
  /** Origin endpoint: the S3 service endpoint (no bucket) or the HTTP site's base URL. */
  originUrl: URL;
  /** Present iff `originKind === 's3'`. */
  s3: S3Config | undefined;
  /** Time allowed for the origin to start answering before the shield gives up with 504. */
  originTimeoutMs: number;
  /** ORIGIN_IDLE_TIMEOUT_MS: the longest silence inside a body before it counts as broken (healed, or the transfer fails). */
  originIdleTimeoutMs: number;
  /** Freshness for stored objects without explicit freshness (seconds); 0 = store nothing then. */
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
  /** Bearer token for `POST /__tiercache/purge` at the edge; `undefined` = purge is disabled. */
  purgeToken: string | undefined;
  slicing: SlicingConfig;
  /** The edge's in-isolate cache of hot small objects (worker/memory-cache.ts). */
  memory: MemoryConfig;
  /** Static-site conveniences: index and 404 documents, Content-Type, CORS (site-config.ts). */
  site: SiteConfig;
}

export interface SlicingConfig {
  /** Bytes per slice: a power-of-two multiple of 1 MiB between 1 and 64 MiB. */
  sliceSize: number;
  /** Objects of at least this many bytes are sliced; smaller ones are cached whole. */
  threshold: number;
  /** Slices fetched from upstream at once on a cold read (Workers allow 6 connections). */
  readahead: number;
  /** Subrequests one request may make (Workers: 50 on the free plan, 1,000 or more on paid). */
  subrequests: number;
  /** WHOLE_COPY_MAX: the largest sliced object the edge also keeps whole for full GETs (worker/whole-copy.ts); 0 = never. */
  wholeCopyMax: number;
}

export interface MemoryConfig {
  /** MEMORY_CACHE_SIZE: bytes of bodies and headers kept per isolate; 0 = off. */
  budget: number;
  /** MEMORY_OBJECT_MAX: the largest body kept. */
  maxObject: number;
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
  'ORIGIN_IDLE_TIMEOUT_MS',
  'DEFAULT_TTL',
  'NEGATIVE_TTL',
  'STALE_WHILE_REVALIDATE',
  'STALE_IF_ERROR',
  'SHIELD_TOKEN',
  'PURGE_TOKEN',
  'SLICE_SIZE',
  'SLICE_THRESHOLD',
  'SLICE_READAHEAD',
  'SUBREQUEST_LIMIT',
  'WHOLE_COPY_MAX',
  'HOST_BUCKETS',
  'CACHE_KEY_QUERY',
  'MEMORY_CACHE_SIZE',
  'MEMORY_OBJECT_MAX',
  ...SITE_CONFIG_NAMES,
] as const;
export type ConfigName = (typeof CONFIG_NAMES)[number];

/** Settings that are secrets (`wrangler secret put`): never logged, echoed or printed. */
export const SECRET_CONFIG_NAMES: ReadonlySet<ConfigName> = new Set<ConfigName>(['S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'SHIELD_TOKEN', 'PURGE_TOKEN']);

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
/** Varnish's default grace is 10 s; a minute hides a slow refresh without serving old content for long. */
const DEFAULT_STALE_WHILE_REVALIDATE = 60;
/** A day of stale content rather than errors while an origin is down (as commonly recommended for CDNs). */
const DEFAULT_STALE_IF_ERROR = 86_400;
// Both are the operator's choice for a bucket (S3 objects rarely say anything about staleness).
// A site's answers say for themselves whether they may be served stale (RFC 9111 §4.2.4: a
// cache does not generate a stale response unless disconnected or permitted, RFC 5861), so in
// `http` mode the defaults are 0: stale only when the response allows it or the origin cannot
// be reached at all.
const MIB = 1024 * 1024;
const DEFAULT_SLICE_SIZE = 8 * MIB;
/**
 * Slices in flight on a cold read. Each costs one origin round trip before its bytes flow, and
 * the lookups before it (a Cache API read at each tier) another: with six, about five are
 * always streaming (bench: 256 MiB through the 80 ms / 25 MB/s origin, 3.5× a single stream).
 */
const DEFAULT_READAHEAD = 6;
/**
 * Workers let six connections wait for response headers at once and queue the rest until one
 * gets its headers; bodies streaming do not count. More than eight buys little and costs memory.
 */
const MAX_READAHEAD = 8;
/** Large enough for the downloads people make whole; larger ones are read as slices only. */
const DEFAULT_WHOLE_COPY = 64 * MIB;
/** The Workers Cache API's largest object. */
const MAX_WHOLE_COPY = 512 * MIB;
/** Slices in flight are buffered ahead of the reader: at most this many bytes of them. */
const READAHEAD_BYTES = 64 * MIB;
const DEFAULT_SUBREQUESTS = 1000;
/** A quarter of the 128 MB isolate limit: room left for streams in flight and the code itself. */
const DEFAULT_MEMORY_CACHE = 32 * MIB;
const MAX_MEMORY_CACHE = 64 * MIB;
/** Small objects are where the Cache API's per-lookup cost dominates; larger ones stream from it. */
const DEFAULT_MEMORY_OBJECT = MIB;


export function parseConfig(raw: RawConfig): Config {
  const originKind = oneOf(raw, 'ORIGIN_KIND', ['s3', 'http'], 's3');
  const originUrl = parseUrl(nonEmpty(raw.ORIGIN_URL) ?? (originKind === 's3' ? STORJ_GATEWAY : undefined));
  return {
    originKind,
    originUrl,
    s3: originKind === 's3' ? parseS3(raw) : undefined,
    originTimeoutMs: integer(raw, 'ORIGIN_TIMEOUT_MS', DEFAULT_TIMEOUT_MS, 1),
    originIdleTimeoutMs: integer(raw, 'ORIGIN_IDLE_TIMEOUT_MS', DEFAULT_IDLE_TIMEOUT_MS, 1),
    defaultTtl: integer(raw, 'DEFAULT_TTL', originKind === 's3' ? DEFAULT_S3_TTL : 0, 0),
    negativeTtl: integer(raw, 'NEGATIVE_TTL', DEFAULT_NEGATIVE_TTL, 0),
    staleWhileRevalidate: integer(raw, 'STALE_WHILE_REVALIDATE', originKind === 's3' ? DEFAULT_STALE_WHILE_REVALIDATE : 0, 0),
    staleIfError: integer(raw, 'STALE_IF_ERROR', originKind === 's3' ? DEFAULT_STALE_IF_ERROR : 0, 0),
    shieldToken: nonEmpty(raw.SHIELD_TOKEN),
    cacheKeyQuery: (raw.CACHE_KEY_QUERY ?? '').split(',').map((name) => name.trim()).filter(Boolean),
    purgeToken: nonEmpty(raw.PURGE_TOKEN),
    slicing: parseSlicing(raw),
    memory: parseMemory(raw),
    site: parseSiteConfig(raw, (message) => new ConfigError(message)),
  };
}

function parseSlicing(raw: RawConfig): SlicingConfig {
  const sliceSize = byteSize(raw, 'SLICE_SIZE', DEFAULT_SLICE_SIZE);
  // Slices are aligned to multiples of their size, and a power of two keeps every slice
  // boundary on a power-of-two offset whatever the size chosen.
  if (sliceSize < MIB || sliceSize > 64 * MIB || (sliceSize & (sliceSize - 1)) !== 0) {
    throw new ConfigError(`SLICE_SIZE must be a power of two from 1 MiB to 64 MiB, got ${sliceSize} bytes`);
  }
  return {
    sliceSize,
    threshold: byteSize(raw, 'SLICE_THRESHOLD', sliceSize),
    readahead: Math.max(1, Math.min(MAX_READAHEAD, Math.floor(READAHEAD_BYTES / sliceSize), integer(raw, 'SLICE_READAHEAD', DEFAULT_READAHEAD, 1))),
    subrequests: integer(raw, 'SUBREQUEST_LIMIT', DEFAULT_SUBREQUESTS, 10),
    wholeCopyMax: wholeCopyMax(raw),
  };
}

function wholeCopyMax(raw: RawConfig): number {
  const max = byteSize(raw, 'WHOLE_COPY_MAX', DEFAULT_WHOLE_COPY);
  if (max > MAX_WHOLE_COPY) throw new ConfigError(`WHOLE_COPY_MAX must be at most 512MiB (the Cache API's largest object), got ${max} bytes`);
  return max;
}

function parseMemory(raw: RawConfig): MemoryConfig {
  const budget = byteSize(raw, 'MEMORY_CACHE_SIZE', DEFAULT_MEMORY_CACHE);
  if (budget > MAX_MEMORY_CACHE) throw new ConfigError(`MEMORY_CACHE_SIZE must be at most 64MiB (an isolate has 128 MB in all), got ${budget} bytes`);
  const maxObject = byteSize(raw, 'MEMORY_OBJECT_MAX', Math.min(DEFAULT_MEMORY_OBJECT, budget));
  if (maxObject > budget) throw new ConfigError(`MEMORY_OBJECT_MAX must not exceed MEMORY_CACHE_SIZE (${budget} bytes), got ${maxObject} bytes`);
  return { budget, maxObject };
}

function parseS3(raw: RawConfig): S3Config {
  const hostBuckets = parseHostBuckets(raw.HOST_BUCKETS);
  return {
    bucket: hostBuckets.size > 0 ? nonEmpty(raw.S3_BUCKET) ?? '' : required(raw, 'S3_BUCKET'),
    hostBuckets,
    region: nonEmpty(raw.S3_REGION) ?? 'us-east-1',
    accessKeyId: required(raw, 'S3_ACCESS_KEY_ID'),
    secretAccessKey: required(raw, 'S3_SECRET_ACCESS_KEY'),
    addressing: oneOf(raw, 'S3_ADDRESSING', ['path', 'virtual'], 'path'),
  };
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

const parsed = new WeakMap<object, Config>();

/** `parseConfig` once per bindings object: an isolate keeps the same `env` between requests. */
export function configFrom(env: RawConfig): Config {
  let config = parsed.get(env);
  if (config === undefined) {
    config = parseConfig(env);
    parsed.set(env, config);
  }
  return config;
}
