// What a request is asking for, in one canonical spelling, so that every spelling of the same
// resource shares one cache entry and the shield re-derives exactly what the edge meant.

import type { OriginKind } from '../config/config.ts';
import { BadRequest, NotFound } from '../http/errors.ts';
import type { KeyQuery } from '../rules/rules.ts';
import { normalizePath } from './canonical-path.ts';
import { encodeKeyForPath, objectKeyFromPath } from './object-key.ts';

export interface RequestTarget {
  /** Canonical percent-encoded path, starting with `/`. */
  path: string;
  /**
   * `''` or `?…`. For S3 origins only the parameters CACHE_KEY_QUERY (or a rule's cacheKeyQuery) lists, sorted:
   * they tell cache entries apart but never reach the origin, whose query parameters select sub-resources. For a
   * site the query as given, or a rule's parameters alone, sorted: what the site gets is what is keyed.
   */
  query: string;
  /** The S3 object key, for S3 origins. */
  key: string | undefined;
}

export interface TargetOptions {
  /**
   * INDEX_DOCUMENT (S3 only): a path naming a "folder" (ending in `/`, or in `%2F`, which is a
   * `/` inside the key) names that folder's index object instead, as S3's website endpoints do:
   * `/` is `index.html`, `/docs/` is `docs/index.html`. Undefined = off.
   */
  indexDocument?: string | undefined;
  /** CACHE_KEY_QUERY (S3 only): the query parameters kept in the cache key. */
  keyQuery?: readonly string[];
  /**
   * A rule's cacheKeyQuery for the canonical path (shared/rules/), either origin kind: listed names, or every
   * parameter; undefined = no rule says, and CACHE_KEY_QUERY (S3) or the whole query as given (a site) applies.
   */
  ruleQuery?: ((path: string) => KeyQuery | undefined) | undefined;
}

/**
 * The request's URL, or the 400 a client gets for one the runtime handed over but no URL
 * parser takes (a Host with a port past 65535, or two ports: workerd builds the URL from them).
 */
export function requestUrl(raw: string): URL {
  try {
    return new URL(raw);
  } catch {
    throw new BadRequest('malformed request: its Host or target is not a URL');
  }
}

export function requestTarget(url: URL, kind: OriginKind, options: TargetOptions = {}): RequestTarget {
  if (kind === 'http') {
    const path = normalizePath(url.pathname);
    // A site's query reaches the origin as it is keyed: a rule that keeps fewer parameters sends fewer, so an
    // answer never depends on a parameter outside its key.
    const chosen = options.ruleQuery?.(path) ?? 'all';
    return { path, query: chosen === 'all' ? url.search : keptQuery(url.searchParams, chosen), key: undefined };
  }
  const { indexDocument } = options;
  const folder = indexDocument !== undefined && /(\/|%2F)$/i.test(url.pathname);
  // Appended before parsing, so the whole key is checked (length, segments) as any other.
  const parsed = objectKeyFromPath(folder ? `${url.pathname}${encodeKeyForPath(indexDocument)}` : url.pathname);
  if (!parsed.ok) {
    // The bucket root (`/`, or `//`, which S3-compatible servers read as the bucket too) would
    // be a ListObjects call: there is no object there to serve.
    if (parsed.bucket === true) throw new NotFound('no object at the bucket root');
    throw new BadRequest(parsed.reason);
  }
  const path = `/${encodeKeyForPath(parsed.key)}`;
  return {
    path,
    query: keptQuery(url.searchParams, options.ruleQuery?.(path) ?? options.keyQuery ?? []),
    key: parsed.key,
  };
}

/** The listed parameters only (or all), sorted by name, in one canonical encoding; `''` when none is there. */
function keptQuery(params: URLSearchParams, names: KeyQuery): string {
  if (names.length === 0) return '';
  const kept = new URLSearchParams(names === 'all' ? params : [...params].filter(([name]) => names.includes(name)));
  kept.sort();
  const query = kept.toString();
  return query ? `?${query}` : '';
}
