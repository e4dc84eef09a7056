// Where the edge keeps an object: the canonical request target (shared/request/request-target.ts) and the cache key
// built from it, remembered per spelling of a raw URL for the hot path.

import type { Config } from '../shared/config/config.ts';
import { originTraits } from '../shared/config/origin-traits.ts';
import { normalizePath } from '../shared/request/canonical-path.ts';
import { misdirected } from '../shared/request/host-buckets.ts';
import type { RequestTarget } from '../shared/request/request-target.ts';
import { type AppliedRules, NOTHING_APPLIED } from '../shared/rules/rules.ts';
import { applyRules } from '../shared/rules/rules-match.ts';
import { BoundedMemo } from './bounded-memo.ts';

export interface EdgeAddress {
  target: RequestTarget;
  /** The cache key (and the memory layer's key: a lookup request's URL is this, reparsed). */
  key: string;
  /** What purge records match against: the canonical path and kept query. */
  purgePath: string;
  /** The client's host (and port), as the stats record it. */
  host: string;
  /**
   * What the rules matching a GET of it say (shared/rules/): what it is keyed by, and its freshness; a HEAD is
   * matched again by its own method (only bypass, redirect and header edits may depend on it).
   */
  rules: AppliedRules;
  /** The canonical path without INDEX_DOCUMENT: what SIGNED_PREFIXES and a signed token's scope are matched with. */
  admissionPath: string;
}

/** The address of `url`; throws the HttpError a client gets for a URL that names no object here. */
export function edgeAddress(url: URL, config: Config): EdgeAddress {
  const origin = originTraits(config);
  if (!origin.serves(url.hostname)) throw misdirected(url.hostname);
  let rules = NOTHING_APPLIED;
  const target = origin.target(url, {
    indexDocument: config.site.indexDocument,
    keyQuery: config.cacheKeyQuery,
    // Matched on the canonical path, which the key's query may depend on (a rule's cacheKeyQuery).
    ruleQuery: (path) => {
      rules = applyRules(config.rules, { host: url.host, path, method: 'GET' });
      return rules.cacheKeyQuery;
    },
  });
  // Reparsed as the Request built for a lookup would reparse it: the memory layer keys by that.
  return {
    target,
    key: new URL(edgeKey(url, target)).href,
    purgePath: `${target.path}${target.query}`,
    host: url.host,
    rules,
    admissionPath: config.site.indexDocument === undefined ? target.path : pathAsWritten(url, config),
  };
}

/** The canonical path of `url` as a client wrote it (`/docs/`, not `/docs/index.html`). */
export function pathAsWritten(url: URL, config: Config): string {
  return tryKey(() => originTraits(config).target(url).path) ?? normalizePath(url.pathname);
}

/** The edge keys entries by the URL the client asked for, in canonical form. */
export function edgeKey(url: URL, target: RequestTarget): string {
  return `${url.protocol}//${url.host}${target.path}${target.query}`;
}

/** Per configuration: the addresses of raw URLs. */
const remembered = new WeakMap<Config, BoundedMemo<EdgeAddress>>();

/**
 * The address of a raw request URL, remembered; undefined for one that names no object here. The hot path
 * (memory-hit.ts) looks addresses up by the raw request URL, so each spelling of a URL is parsed and normalised once
 * per isolate.
 */
export function knownAddress(rawUrl: string, config: Config): EdgeAddress | undefined {
  let memo = remembered.get(config);
  if (memo === undefined) {
    memo = new BoundedMemo();
    remembered.set(config, memo);
  }
  const known = memo.get(rawUrl);
  if (known !== undefined) return known;
  let address: EdgeAddress;
  try {
    address = edgeAddress(new URL(rawUrl), config);
  } catch {
    return undefined;
  }
  memo.set(rawUrl, address);
  return address;
}

/** The path a request for `url` would be forwarded to the shield on; '' for one that names no object. */
export function forwardedPath(url: URL, config: Config): string {
  return tryKey(() => originTraits(config).target(url, { indexDocument: config.site.indexDocument }).path) ?? '';
}

/**
 * The edge's key of a URL an unsafe method invalidates (RFC 9111 §4.4); undefined for one that cannot name an object
 * (it was never stored).
 */
export function invalidatedKey(url: URL, config: Config): string | undefined {
  return tryKey(() =>
    edgeKey(
      url,
      originTraits(config).target(url, {
        ruleQuery: (path) => applyRules(config.rules, { host: url.host, path, method: 'GET' }).cacheKeyQuery,
      }),
    ),
  );
}

function tryKey(key: () => string): string | undefined {
  try {
    return key();
  } catch {
    return undefined;
  }
}
