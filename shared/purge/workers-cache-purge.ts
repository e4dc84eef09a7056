// Purge as Workers Cache can be told it (docs/deploying.md "Purge reaches every layer"): the tags an
// answer it may keep carries, and the tags that cover a purge record. No I/O.

import type { PurgeRecord } from './purge-rules.ts';

/** What `ctx.cache.purge` takes (workers-types' CachePurgeOptions, as much as is used). */
export interface WorkersCachePurge {
  tags?: string[];
  purgeEverything?: boolean;
}

/** What it answers (workers-types' CachePurgeResult). */
export interface WorkersCachePurgeResult {
  success: boolean;
  errors: { code: number; message: string }[];
}

/** The purge API itself (workers-types' CacheContext): the port the shield's slices entrypoint purges through. */
export interface WorkersCachePurgeApi {
  purge(options: WorkersCachePurge): Promise<WorkersCachePurgeResult>;
  /**
   * The soft counterpart (a soft purge's records): "invalidate() accepts the same options as purge() ... and resolves
   * to the same result object"; matching responses are kept but marked stale, and revalidated with the Worker by a
   * conditional request from their stored validators
   * (developers.cloudflare.com/changelog/post/2026-09-29-workers-cache-invalidate/). Absent on a runtime without it.
   */
  invalidate?(options: WorkersCachePurge): Promise<WorkersCachePurgeResult>;
}

/**
 * Cloudflare's Cache-Tag limits (developers.cloudflare.com/cache/how-to/purge-cache/purge-by-tags/):
 * printable ASCII without spaces (nor commas, the separator), 1,024 characters a tag in a purge,
 * "the aggregate Cache-Tag HTTP header cannot exceed 16 KB ... approximately 1,000 unique
 * tags". A tag outside them is dropped silently when stored (developers.cloudflare.com/workers/
 * cache/configuration/), so an answer that would carry one is not kept: a purge by it could not
 * reach the copy.
 */
const MAX_TAG_LENGTH = 1024;
export const MAX_TAGS = 1000;
export const MAX_TAG_HEADER_LENGTH = 16 * 1024;
/** Folders tagged from the root down; a deeper prefix is purged by its ancestor this deep. */
export const MAX_FOLDER_DEPTH = 32;
const PRINTABLE = /^[\x21-\x2b\x2d-\x7e]+$/;

/**
 * The tags of an answer for `path` (canonical, with its query) with the object's `objectTags`;
 * undefined when it cannot be tagged so. Workers Cache, in front of the shield's slice answers, is
 * purged only by the shield itself (`ctx.cache.purge`), by tag, path prefix or everything; its
 * entries are keyed by a key of the shield's own, so the path prefixes it matches are not the
 * object paths purges name. So each answer it may keep is tagged with what a purge can name: the
 * object's own tags, a tag of its canonical path (and query), and a tag of each folder it is in
 * (`/`, `/a/`, `/a/b/`, the "hierarchical tags" Cloudflare's purge documentation describes).
 */
export function workersCacheTags(path: string, objectTags: readonly string[]): string[] | undefined {
  if (objectTags.some((tag) => tag.length > MAX_TAG_LENGTH || !PRINTABLE.test(tag))) return undefined;
  const tags = [
    ...new Set([
      ...objectTags.map((tag) => tag.toLowerCase()),
      urlTag(path),
      ...folders(pathOnly(path)).map(folderTag),
    ]),
  ];
  return tags.length > MAX_TAGS || tags.join(',').length > MAX_TAG_HEADER_LENGTH ? undefined : tags;
}

/**
 * What purges the Workers Cache copies `records` name; undefined when they name none. A record
 * becomes the tags that cover it: a URL its path's tag, a prefix the tag of the deepest folder
 * containing it (more than asked when the prefix ends inside a name: never less), a tag itself,
 * everything everything.
 */
export function workersCachePurge(records: readonly PurgeRecord[]): WorkersCachePurge | undefined {
  if (records.some((record) => record.kind === 'everything')) return { purgeEverything: true };
  const tags = new Set<string>();
  for (const record of records) {
    if (record.kind === 'url') tags.add(urlTag(record.value));
    else if (record.kind === 'prefix') tags.add(folderTag(containingFolder(record.value)));
    else if (record.kind === 'tag') tags.add(record.value.toLowerCase());
  }
  return tags.size === 0 ? undefined : { tags: [...tags] };
}

/** The tag of one canonical path and query. */
export function urlTag(path: string): string {
  return `tiercache-url-${fnv1a64(path)}`;
}

/** The tag of a folder (`/a/b/`). */
export function folderTag(folder: string): string {
  return `tiercache-dir-${fnv1a64(folder)}`;
}

/** The folders `path` is in, from `/`, at most MAX_FOLDER_DEPTH of them. */
function folders(path: string): string[] {
  const list = ['/'];
  let at = path.indexOf('/', 1);
  while (at > 0 && list.length < MAX_FOLDER_DEPTH) {
    list.push(path.slice(0, at + 1));
    at = path.indexOf('/', at + 1);
  }
  return list;
}

/** The deepest tagged folder every path starting with `prefix` is in. */
function containingFolder(prefix: string): string {
  const path = pathOnly(prefix);
  const within = folders(path);
  const deepest = path.slice(0, path.lastIndexOf('/') + 1) || '/';
  return within.includes(deepest) ? deepest : (within[within.length - 1] ?? '/');
}

/** The path without its query: a `/` in a query is no folder. */
function pathOnly(path: string): string {
  const query = path.indexOf('?');
  return query < 0 ? path : path.slice(0, query);
}

/** FNV-1a, 64 bits, as 16 hex digits: a fixed-length printable name for any path (a collision only purges more). */
function fnv1a64(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, '0');
}
