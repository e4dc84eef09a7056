// Where a site's object is at the origin: under ORIGIN_URL, whose path is a base every object's path goes below (an S3
// origin's URLs are s3-request.ts's, below the same base); the shield's keys name paths without it.

import type { Config } from '../../shared/config/config.ts';
import type { RequestTarget } from '../../shared/request/request-target.ts';

/** The origin URL's base path, without its trailing slashes: `''` at the root, else `/base`. */
export function originBasePath(originUrl: URL): string {
  return originUrl.pathname.replace(/\/+$/, '');
}

/** A site object's URL at the origin: the origin, its base path, then the target's path and query. */
export function originUrlFor(config: Config, target: RequestTarget): URL {
  return new URL(`${config.originUrl.origin}${originBasePath(config.originUrl)}${target.path}${target.query}`);
}

/** A path on the origin as the shield's keys see it: without the origin URL's base path. */
export function originRelative(config: Config, path: string): string {
  const base = originBasePath(config.originUrl);
  return base && path.startsWith(`${base}/`) ? path.slice(base.length) : path;
}
