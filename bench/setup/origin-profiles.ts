// How far the origin is: named shaper settings after the regions of the 2024 Storj + Varnish test.
import type { ShaperOptions } from './shaper.ts';

export interface OriginProfile {
  name: string;
  firstByteLatencyMs: number;
  bandwidthBytesPerSec: number;
  description: string;
}

/**
 * After the 2024 Storj + Varnish test (Varnish and load generators in San Francisco, Amsterdam and Singapore, all
 * reading one Storj S3 gateway; 10 connections, files of 100 KB to 50 MB). Approximations chosen for benchmarks, not
 * measurements: the write-up gives its results as relative speed-ups and charts, no round-trip times or link rates.
 * Each profile is a first-byte latency (gateway time to first byte plus the round trip) and a per-connection download
 * rate, as a single TCP stream over that distance might sustain.
 */
export const ORIGIN_PROFILES = {
  sf: {
    name: 'sf',
    firstByteLatencyMs: 20,
    bandwidthBytesPerSec: 40e6,
    description: 'near the gateway: a short round trip, a fast stream',
  },
  ams: { name: 'ams', firstByteLatencyMs: 80, bandwidthBytesPerSec: 25e6, description: 'across an ocean: the default' },
  sg: {
    name: 'sg',
    firstByteLatencyMs: 180,
    bandwidthBytesPerSec: 12e6,
    description: 'half the world away: a long round trip, a slow stream',
  },
} as const satisfies Record<string, OriginProfile>;

export type ProfileName = keyof typeof ORIGIN_PROFILES;

export const DEFAULT_PROFILE: ProfileName = 'ams';

const UNIT_BYTES: Record<string, number> = { '': 1, k: 1e3, m: 1e6, g: 1e9 };

/**
 * A profile by name (`sf`, `ams`, `sg`), or an ad-hoc one written `latency,bandwidth`:
 * latency in ms (`80`, `80ms`), bandwidth in bytes per second (`25e6`, `25MB/s`, `500kB`).
 * Throws an error saying what was expected when `text` is neither.
 */
export function parseProfile(text: string): OriginProfile {
  const name = text.trim().toLowerCase();
  if (Object.hasOwn(ORIGIN_PROFILES, name)) return ORIGIN_PROFILES[name as ProfileName];
  const [latencyText = '', bandwidthText = '', ...rest] = name.split(',').map((part) => part.trim());
  const latency = /^(\d+(?:\.\d+)?)(?:ms)?$/.exec(latencyText);
  const bandwidth = /^(\d+(?:\.\d+)?(?:e\d+)?)\s*([kmg]?)(?:b)?(?:\/s)?$/.exec(bandwidthText);
  const firstByteLatencyMs = Number(latency?.[1]);
  const bandwidthBytesPerSec = Number(bandwidth?.[1]) * (UNIT_BYTES[bandwidth?.[2] ?? ''] ?? Number.NaN);
  if (rest.length > 0 || !Number.isFinite(firstByteLatencyMs) || !(bandwidthBytesPerSec > 0)) {
    throw new Error(
      `expected a profile (${Object.keys(ORIGIN_PROFILES).join(', ')}) or "latencyMs,bytesPerSec" such as "80,25e6" or "80ms,25MB/s", got ${JSON.stringify(text)}`,
    );
  }
  return {
    name: `${firstByteLatencyMs}ms,${bandwidthBytesPerSec}B/s`,
    firstByteLatencyMs,
    bandwidthBytesPerSec,
    description: 'ad hoc',
  };
}

/** The shaper's options for `profile` in front of `target`. */
export function shaperOptions(profile: OriginProfile, target: string): ShaperOptions {
  return { target, firstByteLatencyMs: profile.firstByteLatencyMs, bandwidthBytesPerSec: profile.bandwidthBytesPerSec };
}
