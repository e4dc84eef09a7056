// Which URLs a warm may fetch (docs/warming.md "Scope"): this deployment's own, on the host the call was sent to or one
// HOST_BUCKETS names, never a path the tiers keep for themselves, and, for a prefix's expansion, under that prefix. A
// URL given in the body outside it is refused (400); one a playlist names is skipped and reported. Pure.

import { withoutTokenParams } from '../admission/signed-token.ts';
import { normalizePath } from '../request/canonical-path.ts';
import { isReserved } from '../request/reserved-paths.ts';

/** What a warm call may reach: its own URL (scheme and host), and the other host names this deployment serves. */
export interface WarmScope {
  /** The warm call's URL: its host is this deployment's. */
  call: URL;
  /** The host names HOST_BUCKETS gives a bucket each (lower case, no port). */
  hosts: readonly string[];
}

/**
 * `value` (an absolute URL, or a path relative to the call's URL; `base` for a name under a prefix) as the URL a warm
 * reads: without a signed URL's token parameters (tokens never enter keys, and a warm is the operator's, admitted by
 * the purge token), nor a fragment. Undefined when it names no URL.
 */
export function warmUrl(value: string, base: URL): URL | undefined {
  if (!URL.canParse(value, base.href)) return undefined;
  const url = new URL(value, base);
  url.hash = '';
  const kept = withoutTokenParams(`${url.pathname}${url.search}`);
  const q = kept.indexOf('?');
  url.search = q < 0 ? '' : kept.slice(q);
  return url;
}

/**
 * Why `url` is outside what the warm may fetch (a sentence), or undefined when inside. `prefix`: the path prefix it was
 * expanded for, which its canonical path must start with.
 */
export function outOfScope(url: URL, scope: WarmScope, prefix?: string): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `not an http(s) URL (${url.protocol})`;
  if (url.username !== '' || url.password !== '') return 'a URL with user:password in it';
  const hostname = url.hostname.toLowerCase().replace(/\.$/, '');
  if (url.host !== scope.call.host && !scope.hosts.includes(hostname))
    return `another host (${url.host}): a warm reads this deployment's hosts only`;
  const path = normalizePath(url.pathname);
  if (isReserved(path, url.pathname)) return 'a path the tiers keep for themselves (/__tiercache/)';
  if (prefix !== undefined && !path.startsWith(normalizePath(prefix))) return `outside the prefix ${prefix}`;
  return undefined;
}

/** The folder a playlist is in (`/video/ep1/` for `/video/ep1/index.m3u8`): the prefix `--playlist` warms. */
export function folderOf(path: string): string {
  return path.slice(0, path.lastIndexOf('/') + 1) || '/';
}
