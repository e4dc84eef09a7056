// Which object the health probe asks for (origin-probe.ts): HEALTH_KEY, else the one this isolate last had, else a key
// naming no object (S3's NoSuchKey proves bucket and signature as well); always one object, never the bucket.

import type { Config, S3Config } from '../../shared/config/config.ts';
import type { ProbeSource } from '../../shared/http/health-report.ts';
import { encodeKeyForPath } from '../../shared/request/object-key.ts';
import type { RequestTarget } from '../../shared/request/request-target.ts';
import { lastServed } from './served-key.ts';

/**
 * The key asked for when no HEALTH_KEY is set and nothing was served yet (a fresh deployment's
 * first check). It names no object in any bucket we know of; if it does name one, that object
 * answers instead, which proves the same.
 */
export const DEFAULT_PROBE_KEY = 'tiercache-health-probe';

/** What the probe asks for: the configuration as it applies to the object's bucket, and the object. */
export interface Probe {
  config: Config;
  target: RequestTarget;
  source: ProbeSource;
}

/** The object to ask for: HEALTH_KEY, else the one last served, else DEFAULT_PROBE_KEY (a site: its root). */
export function probeFor(config: Config): Probe {
  const recent = lastServed();
  if (config.healthKey === undefined && recent !== undefined)
    return { config: inBucket(config, recent.bucket), target: recent.target, source: 'recent' };
  const source: ProbeSource = config.healthKey === undefined ? 'default' : 'HEALTH_KEY';
  if (config.s3 === undefined) {
    const path = config.healthKey === undefined ? '/' : `/${encodeKeyForPath(config.healthKey)}`;
    return { config, target: { path, query: '', key: undefined }, source };
  }
  const key = config.healthKey ?? DEFAULT_PROBE_KEY;
  return {
    config: inBucket(config, defaultBucket(config.s3)),
    target: { path: `/${encodeKeyForPath(key)}`, query: '', key },
    source,
  };
}

/** S3_BUCKET, else the first bucket HOST_BUCKETS names. */
function defaultBucket(s3: S3Config): string | undefined {
  return s3.bucket || s3.hostBuckets.values().next().value;
}

function inBucket(config: Config, bucket: string | undefined): Config {
  if (config.s3 === undefined || bucket === undefined || bucket === config.s3.bucket) return config;
  return { ...config, s3: { ...config.s3, bucket } };
}
