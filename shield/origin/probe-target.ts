// Which object the health probe asks for (origin-probe.ts): HEALTH_KEY, else the one this isolate last had, else one
// its origin's kind chooses (origin.ts `probeTarget`: S3 a key naming no object, whose NoSuchKey proves bucket and
// signature as well; a site its root); always one object, never the bucket.

import type { Config } from '../../shared/config/config.ts';
import type { ProbeSource } from '../../shared/http/health-report.ts';
import type { RequestTarget } from '../../shared/request/request-target.ts';
import { originOf } from './origin-of.ts';
import { lastServed } from './served-key.ts';

export { DEFAULT_PROBE_KEY } from './s3-origin.ts';

/** What the probe asks for: the configuration as it applies to the object's bucket, and the object. */
export interface Probe {
  config: Config;
  target: RequestTarget;
  source: ProbeSource;
}

/** The object to ask for: HEALTH_KEY, else the one last served (in its own bucket), else the origin's choice. */
export function probeFor(config: Config): Probe {
  const origin = originOf(config);
  const recent = lastServed();
  if (config.healthKey === undefined && recent !== undefined)
    return { config: origin.inBucket(recent.bucket).config, target: recent.target, source: 'recent' };
  const probed = origin.probeTarget(config.healthKey);
  return {
    config: probed.origin.config,
    target: probed.target,
    source: config.healthKey === undefined ? 'default' : 'HEALTH_KEY',
  };
}
