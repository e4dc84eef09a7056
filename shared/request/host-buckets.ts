// Several sites behind one deployment (S3 origins): which bucket a request's host name reads (HOST_BUCKETS:
// "cdn.a.example=site-a,cdn.b.example=site-b"); a host not listed reads S3_BUCKET when set, and is refused otherwise.

import { ConfigError, type HttpError, Misdirected } from '../http/errors.ts';
import { splitList } from '../http/header-list.ts';

/** Host name (lower case, no port) → bucket. */
export type HostBuckets = ReadonlyMap<string, string>;

/** Parses `host=bucket` pairs; a ConfigError naming the setting and what is wrong. */
export function parseHostBuckets(value: string | undefined): HostBuckets {
  const map = new Map<string, string>();
  for (const pair of splitList(value ?? '')) {
    const match = /^([a-z0-9.-]+)\s*=\s*([A-Za-z0-9._-]{3,255})$/i.exec(pair);
    if (!match)
      throw new ConfigError(
        `HOST_BUCKETS: expected host=bucket pairs separated by commas, got ${JSON.stringify(pair)}`,
      );
    map.set((match[1] ?? '').toLowerCase(), match[2] ?? '');
  }
  return map;
}

/** The bucket for `host` (a URL's hostname), else S3_BUCKET, else undefined (refused: 421). */
export function bucketFor(s3: { bucket: string; hostBuckets: HostBuckets }, host: string): string | undefined {
  return s3.hostBuckets.get(host.toLowerCase().replace(/\.$/, '')) ?? (s3.bucket || undefined);
}

/** RFC 9110 §15.5.20: this deployment serves no site under that host name. */
export function misdirected(host: string): HttpError {
  return new Misdirected(host);
}
