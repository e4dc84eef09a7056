// The settings that bound what an isolate does and holds: slices (size, threshold, read-ahead,
// subrequests), whole copies, the memory layer, what a fill may pull for nobody and how long a body
// without a length may be. A value out of range is refused, never clamped.

import { ConfigError } from '../http/errors.ts';
import type { ConfigProblems } from './config-problems.ts';
import { byteSize, integer, type Raw } from './config-values.ts';
import { PAID_SUBREQUESTS, SIMULTANEOUS_CONNECTIONS } from './platform-limits.ts';

/** The settings read here. */
type LimitName =
  | 'SLICE_SIZE'
  | 'SLICE_THRESHOLD'
  | 'SLICE_READAHEAD'
  | 'SLICE_PARALLEL'
  | 'SUBREQUEST_LIMIT'
  | 'WHOLE_COPY_MAX'
  | 'MEMORY_CACHE_SIZE'
  | 'MEMORY_OBJECT_MAX'
  | 'ABANDONED_FILL_MAX'
  | 'ABANDONED_ISOLATE_MAX'
  | 'UNKNOWN_LENGTH_MAX'
  | 'UNKNOWN_LENGTH_TIMEOUT_MS';
type RawConfig = Raw<LimitName>;

export interface SlicingConfig {
  /** Bytes per slice: a power-of-two multiple of 1 MiB between 1 and 64 MiB. */
  sliceSize: number;
  /** Objects of at least this many bytes are sliced; smaller ones are cached whole. */
  threshold: number;
  /** Slices the shield fetches from the origin at once for one request of several (one invocation: SIMULTANEOUS_CONNECTIONS). */
  readahead: number;
  /**
   * SLICE_PARALLEL: slices the edge keeps in flight at most on a cold read, each stored ahead at
   * the shield by a request (an invocation) of its own; a download starts at START_PARALLEL
   * (shared/tier/slice-reader/window.ts) and grows while that adds throughput (parallelism.ts).
   * Also the isolate's cap, shared by its downloads.
   */
  parallel: number;
  /**
   * SUBREQUEST_LIMIT: subrequests one request may make (platform-limits.ts: 50 on Workers Free, 10,000 on Paid by
   * default, more where the Worker's `limits.subrequests` raises it).
   */
  subrequests: number;
  /**
   * WHOLE_COPY_MAX: the largest sliced object the edge also keeps whole for full GETs (worker/whole-copy.ts); 0 =
   * never.
   */
  wholeCopyMax: number;
}

export interface MemoryConfig {
  /** MEMORY_CACHE_SIZE: bytes of bodies and headers kept per isolate; 0 = off. */
  budget: number;
  /** MEMORY_OBJECT_MAX: the largest body kept. */
  maxObject: number;
}

/**
 * What a fill from the next hop may pull once nobody waits for it, and the bounds of a body without a length
 * (shared/store/fill-budget.ts decides, shared/tier/fill.ts applies).
 */
export interface FillConfig {
  /**
   * ABANDONED_FILL_MAX: a fill whose clients all left finishes only when what is left of it is known to be at most this
   * (of a body without a length it is not); otherwise it stops and nothing of it is stored.
   */
  abandonedFillMax: number;
  /** ABANDONED_ISOLATE_MAX: what all such fills of an isolate may pull at once; past it, one stops as its clients leave. */
  abandonedIsolateMax: number;
  /** UNKNOWN_LENGTH_MAX: the longest body without a Content-Length a tier takes; past it, a 502. */
  unknownLengthMax: number;
  /** UNKNOWN_LENGTH_TIMEOUT_MS: the longest such a body may take from its head to its end; past it, a 502. */
  unknownLengthMs: number;
}

const MIB = 1024 * 1024;
const DEFAULT_SLICE_SIZE = 8 * MIB;
/**
 * Slices the shield fetches at once for one request of several (one invocation): as many as may wait for their
 * headers at once. Each costs one origin round trip before its bytes flow: with six, about five are always streaming.
 */
const DEFAULT_READAHEAD = SIMULTANEOUS_CONNECTIONS.value;
/**
 * Workers let SIMULTANEOUS_CONNECTIONS wait for response headers at once and queue the rest until one
 * gets its headers; bodies streaming do not count. More than eight buys little and costs memory.
 */
const MAX_READAHEAD = 8;
/** Large enough for the downloads people make whole; larger ones are read as slices only. */
const DEFAULT_WHOLE_COPY = 64 * MIB;
/**
 * Slices in flight on a cold read at the edge, at most. Each is read ahead through the caches,
 * holding no memory, so what bounds it is the origin: Storj allows 500 concurrent transfers per
 * credential, shared by every edge isolate reading through it. A download starts at
 * START_PARALLEL (shared/tier/slice-reader/window.ts) and grows while that adds throughput (bench:
 * 256 MiB through the 80 ms / 25 MB/s origin, 6.2× a single stream on this 2-core machine, bound by
 * its CPU).
 */
const DEFAULT_PARALLEL = 32;
const MAX_PARALLEL = 64;
/** The Workers Cache API's largest object. */
const MAX_WHOLE_COPY = 512 * MIB;
/** Slices in flight are buffered ahead of the reader: at most this many bytes of them. */
const READAHEAD_BYTES = 64 * MIB;
/**
 * Workers Paid's own limit (PAID_SUBREQUESTS, 10,000 since Cloudflare raised it from 1,000): a budget below what the
 * platform allows only makes large objects read in spans sooner. Workers Free: set 50.
 */
const DEFAULT_SUBREQUESTS = PAID_SUBREQUESTS.value;
/** A quarter of the 128 MB isolate limit: room left for streams in flight and the code itself. */
const DEFAULT_MEMORY_CACHE = 32 * MIB;
const MAX_MEMORY_CACHE = 64 * MIB;
/** Small objects are where the Cache API's per-lookup cost dominates; larger ones stream from it. */
const DEFAULT_MEMORY_OBJECT = MIB;
/**
 * Fills left by their clients that an isolate lets finish at once, at their largest: what a sliced download that
 * leaves in its first slice may cost at most besides it (FIRST_AHEAD, shared/tier/slice-reader/demand.ts).
 */
const ABANDONED_FILLS_AT_ONCE = 4;
/**
 * Two minutes for a body without a length, from its head to its end: 512 MiB (the most it may be) at 4.5 MB/s. Its
 * client sees no byte until it has ended (shared/tier/held-until-whole.ts), and a client does not wait much longer for
 * a first byte: Cloudflare's own proxy gives up on an origin's answer after 100 s (its Error 524).
 */
const DEFAULT_UNKNOWN_LENGTH_MS = 120_000;

function parseSlicing(raw: RawConfig, problems: ConfigProblems): SlicingConfig {
  const sliceSize = problems.read(() => sliceSizeOf(raw), DEFAULT_SLICE_SIZE);
  return {
    sliceSize,
    threshold: problems.read(() => byteSize(raw, 'SLICE_THRESHOLD', sliceSize), sliceSize),
    readahead: problems.read(() => readahead(raw, sliceSize), 1),
    parallel: problems.read(
      () =>
        integer(
          raw,
          'SLICE_PARALLEL',
          DEFAULT_PARALLEL,
          1,
          MAX_PARALLEL,
          'slices in flight per download and per isolate',
        ),
      DEFAULT_PARALLEL,
    ),
    subrequests: problems.read(() => integer(raw, 'SUBREQUEST_LIMIT', DEFAULT_SUBREQUESTS, 10), DEFAULT_SUBREQUESTS),
    wholeCopyMax: problems.read(() => wholeCopyMax(raw), DEFAULT_WHOLE_COPY),
  };
}

function sliceSizeOf(raw: RawConfig): number {
  const sliceSize = byteSize(raw, 'SLICE_SIZE', DEFAULT_SLICE_SIZE);
  // Slices are aligned to multiples of their size, and a power of two keeps every slice
  // boundary on a power-of-two offset whatever the size chosen.
  if (sliceSize < MIB || sliceSize > 64 * MIB || (sliceSize & (sliceSize - 1)) !== 0) {
    throw new ConfigError(`SLICE_SIZE must be a power of two from 1 MiB to 64 MiB, got ${sliceSize} bytes`);
  }
  return sliceSize;
}

/** At most eight slices and 64 MiB of them in flight: the default is cut to fit, a value given is refused beyond. */
function readahead(raw: RawConfig, sliceSize: number): number {
  const max = Math.max(1, Math.min(MAX_READAHEAD, Math.floor(READAHEAD_BYTES / sliceSize)));
  return integer(
    raw,
    'SLICE_READAHEAD',
    Math.min(DEFAULT_READAHEAD, max),
    1,
    max,
    `at most ${MAX_READAHEAD} slices and 64 MiB in flight, with SLICE_SIZE ${sliceSize / MIB} MiB`,
  );
}

function wholeCopyMax(raw: RawConfig): number {
  const max = byteSize(raw, 'WHOLE_COPY_MAX', DEFAULT_WHOLE_COPY);
  if (max > MAX_WHOLE_COPY)
    throw new ConfigError(`WHOLE_COPY_MAX must be at most 512MiB (the Cache API's largest object), got ${max} bytes`);
  return max;
}

/** Every limit, read in the order of the contract (CONFIG_NAMES): the fills' defaults follow the slice size. */
export function parseLimits(
  raw: RawConfig,
  problems: ConfigProblems,
): { slicing: SlicingConfig; memory: MemoryConfig; fills: FillConfig } {
  const slicing = parseSlicing(raw, problems);
  return { slicing, memory: parseMemory(raw, problems), fills: parseFills(raw, slicing, problems) };
}

function parseFills(raw: RawConfig, slicing: SlicingConfig, problems: ConfigProblems): FillConfig {
  // One slice: as much as an aborted sliced download leaves to finish (the slice it was reading, stored for the next
  // request); every object smaller than a slice (SLICE_THRESHOLD's default) is whole, and always finishes.
  const abandonedFillMax = problems.read(
    () =>
      boundedBytes(raw, 'ABANDONED_FILL_MAX', slicing.sliceSize, 0, MAX_WHOLE_COPY, "the Cache API's largest object"),
    slicing.sliceSize,
  );
  return {
    abandonedFillMax,
    abandonedIsolateMax: problems.read(
      () => byteSize(raw, 'ABANDONED_ISOLATE_MAX', ABANDONED_FILLS_AT_ONCE * abandonedFillMax),
      ABANDONED_FILLS_AT_ONCE * abandonedFillMax,
    ),
    // The longest whole body a tier can store: one without a length is stored to be answered with it.
    unknownLengthMax: problems.read(
      () =>
        boundedBytes(raw, 'UNKNOWN_LENGTH_MAX', MAX_WHOLE_COPY, 1, MAX_WHOLE_COPY, "the Cache API's largest object"),
      MAX_WHOLE_COPY,
    ),
    unknownLengthMs: problems.read(
      () => integer(raw, 'UNKNOWN_LENGTH_TIMEOUT_MS', DEFAULT_UNKNOWN_LENGTH_MS, 1),
      DEFAULT_UNKNOWN_LENGTH_MS,
    ),
  };
}

/** A byte count from `min` to `max`, refused beyond (never clamped); `why` names where `max` comes from. */
function boundedBytes(
  raw: RawConfig,
  name: LimitName,
  fallback: number,
  min: number,
  max: number,
  why: string,
): number {
  const bytes = byteSize(raw, name, fallback);
  if (bytes < min || bytes > max)
    throw new ConfigError(`${name} must be from ${min} bytes to ${max / MIB}MiB (${why}), got ${bytes} bytes`);
  return bytes;
}

function parseMemory(raw: RawConfig, problems: ConfigProblems): MemoryConfig {
  const budget = problems.read(() => memoryBudget(raw), DEFAULT_MEMORY_CACHE);
  const maxObject = problems.read(() => memoryObjectMax(raw, budget), 0);
  return { budget, maxObject };
}

function memoryBudget(raw: RawConfig): number {
  const budget = byteSize(raw, 'MEMORY_CACHE_SIZE', DEFAULT_MEMORY_CACHE);
  if (budget > MAX_MEMORY_CACHE)
    throw new ConfigError(
      `MEMORY_CACHE_SIZE must be at most 64MiB (an isolate has 128 MB in all), got ${budget} bytes`,
    );
  return budget;
}

function memoryObjectMax(raw: RawConfig, budget: number): number {
  const maxObject = byteSize(raw, 'MEMORY_OBJECT_MAX', Math.min(DEFAULT_MEMORY_OBJECT, budget));
  if (maxObject > budget)
    throw new ConfigError(
      `MEMORY_OBJECT_MAX must not exceed MEMORY_CACHE_SIZE (${budget} bytes), got ${maxObject} bytes`,
    );
  return maxObject;
}
