// Where a site's object is at the origin: under ORIGIN_URL, whose path is a base every object's path goes below (an S3
// origin's URLs are s3-request.ts's).

import type { Config } from '../../shared/config/config.ts';
import type { RequestTarget } from '../../shared/request/request-target.ts';

/** A site object's URL at the origin: the origin, its base path, then the target's path and query. */
export function originUrlFor(config: Config, target: RequestTarget): URL {
  const base = config.originUrl.pathname.replace(/\/+$/, '');
  return new URL(`${config.originUrl.origin}${base}${target.path}${target.query}`);
}
