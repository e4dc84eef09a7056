// The Cache-Tag an edge entry is stored with, so that Cloudflare's zone purge finds it (docs/purge.md "Paths"). No I/O.
//
// The edge keeps entries with the Cache API under keys of its own. A zone purge by single-file URL does not reach
// those: "it is not possible to purge a URL stored through Cache API that uses a custom cache key set by a Worker
// ... purge your assets using purge everything, purge by tag, purge by host or purge by prefix"
// (developers.cloudflare.com/cache/how-to/purge-cache/purge-cache-key/). So each entry carries tags naming what a
// tiercache purge can name: its canonical path's tag, the folders it is in, its host, and the object's own tags.

import { folderTag, urlTag, workersCacheTags } from './workers-cache-purge.ts';

/** Keys the tiers make on hosts of their own (slice-plan.ts, vary.ts): the object's key is their first segment. */
const INTERNAL_HOST = /\.tiercache\.internal$/;

/** The tag of a host name (lower case): a zone purge by it reaches entries of that host whatever their key. */
export function hostTag(host: string): string {
  return `tiercache-host-${host.toLowerCase()}`;
}

/**
 * The tags an edge entry stored under `key` (a URL) carries, with the object's `objectTags` (its Cache-Tag, as the
 * records' tag purge matches them). The entry of a variant (Vary) or a slice is keyed on an internal host; it is
 * tagged as the object it belongs to. Within Cloudflare's limits (workers-cache-purge.ts MAX_TAGS,
 * MAX_TAG_HEADER_LENGTH): object tags that cannot be carried are left out (then a zone purge by them does not reach
 * this entry; the records still do), ours always fit (a 16-digit hash each, at most MAX_FOLDER_DEPTH folders, and a
 * host name of at most 253 characters).
 */
export function zoneCacheTags(key: string, objectTags: readonly string[]): string[] {
  const object = objectUrl(key);
  if (object === undefined) return [];
  const path = `${object.pathname}${object.search}`;
  const ours = workersCacheTags(path, []) ?? [urlTag(path), folderTag('/')];
  const host = hostTag(object.host);
  return workersCacheTags(path, [...objectTags, host]) ?? [...ours, host];
}

/** The URL of the object an entry at `key` belongs to; undefined when `key` is no URL. */
function objectUrl(key: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(key);
  } catch {
    return undefined;
  }
  for (let depth = 0; INTERNAL_HOST.test(url.hostname) && depth < 4; depth++) {
    const first = url.pathname.split('/')[1] ?? '';
    try {
      url = new URL(decodeURIComponent(first));
    } catch {
      return undefined;
    }
  }
  return INTERNAL_HOST.test(url.hostname) ? undefined : url;
}
