// Which of a static site's own documents stands in for an answer of the tiers (docs/static-sites.md), decided on plain
// values: the folder a missing path names (FOLDER_REDIRECT), the 404 page of a path (NOT_FOUND_DOCUMENT and
// NOT_FOUND_DOCUMENTS), and whether a 5xx is one of ours, which the site's error page may answer (ERROR_DOCUMENT). The
// edge reads the documents, each as a client would (worker/site-responses.ts).

import type { OriginKind } from '../config/config.ts';
import type { NotFoundDocument } from '../config/site-config.ts';
import { memberDetail } from '../http/cache-status.ts';
import { isDisconnectedDetail, ONLY_IF_CACHED } from '../http/errors.ts';
import { canonicalPrefix } from '../purge/purge-prefix.ts';
import { TIERS } from '../tiers/tiers.ts';

/** A 404 page and the canonical prefix of the paths it answers for. */
export interface NotFoundPage {
  prefix: string;
  key: string;
}

/**
 * Besides a disconnection (RFC 9111 §4.2.4), the details (RFC 9211 §2.8) a tier's member carries when it answered with
 * an error of its own: no room to hold an answer sent without a length (HeldBodiesFull), and `refused`, which each
 * worker's refusal writes for an error that names no cause of its own (worker/index.ts, shield/shield-app.ts).
 */
const OWN_ERROR_DETAILS: ReadonlySet<string> = new Set(['held-bodies-full', 'refused']);
/** What a slash-form path must start with to stay a path: `//x/` or `/\x/` would name the host x (RFC 3986 §4.2). */
const PATH_OF_THIS_HOST = /^\/(?![/\\])/;

/**
 * The slash form of a canonical path that names no folder (`/dir` → `/dir/`), which names the folder's index document
 * (INDEX_DOCUMENT) or a site's own folder page; undefined for a path that ends in `/` already (the root included), and
 * for one whose slash form, as a Location, would name another host.
 */
export function folderOf(path: string): string | undefined {
  if (path.endsWith('/') || !PATH_OF_THIS_HOST.test(path)) return undefined;
  return `${path}/`;
}

/**
 * The Location of the redirect to `folder`: a path of this host, relative as RFC 9110 §10.2.2 allows ("the field
 * value consists of a single URI-reference"), the request's query kept (a signed URL's token goes along with it).
 */
export function folderLocation(folder: string, search: string): string {
  return `${folder}${search}`;
}

/**
 * The Cache-Control a redirect standing for a 404 adds, or undefined when the 404 says its own freshness (its
 * Cache-Control or Expires, which the redirect keeps): the redirect is true as long as the 404 is, so it is kept as
 * long as the tiers keep that 404 (NEGATIVE_TTL, as `negativeTtl` seconds). Without it a browser would keep a 301 or a
 * 308 by heuristic (RFC 9111 §4.2.2: both are "heuristically cacheable"), long after the missing object appeared.
 */
export function redirectCacheControl(
  notFound: { cacheControl: string | null; expires: string | null },
  negativeTtl: number,
): string | undefined {
  if (notFound.cacheControl !== null || notFound.expires !== null) return undefined;
  return `max-age=${negativeTtl}`;
}

/**
 * The 404 pages with their prefixes in the canonical spelling the tiers key by (canonicalPrefix, as purge prefixes and
 * SIGNED_PREFIXES are compared; one no canonical path can start with is kept as written, and matches nothing a
 * client may ask for), longest prefix first: the first that matches a path is its longest.
 */
export function notFoundPages(documents: readonly NotFoundDocument[], kind: OriginKind): NotFoundPage[] {
  const pages = documents.map(({ prefix, key }) => {
    const canonical = canonicalPrefix(prefix, kind);
    return { prefix: canonical.ok ? canonical.prefix : prefix, key };
  });
  // Stable: of two prefixes written apart that read as one, the first written wins.
  return pages.sort((a, b) => b.prefix.length - a.prefix.length);
}

/** The key of the page answering a 404 at the canonical `path`: its longest matching prefix's; undefined for none. */
export function notFoundPageFor(path: string, pages: readonly NotFoundPage[]): string | undefined {
  return pages.find((page) => path.startsWith(page.prefix))?.key;
}

/**
 * Whether an answer is a 5xx of ours, a line of our text the site's error page may replace, and never an origin's own
 * page. In front of an origin whose answers do not pass (`passesItsAnswers` false: S3), every 5xx is ours; in front of
 * one whose answers do (a site), only one a tier made for want of an answer: a member of `cacheStatus` says a tier was
 * disconnected, or answered an error of its own. A site's own 503 page passes as it sent it, and so does the 504 a
 * client asking only-if-cached gets.
 */
export function isOwnServerError(status: number, cacheStatus: string | null, passesItsAnswers: boolean): boolean {
  if (status < 500 || status > 599) return false;
  const details = TIERS.flatMap(({ statusMember }) => (memberDetail(cacheStatus, statusMember) ?? '').split(' '));
  // RFC 9111 §5.2.1.7: the 504 a client asking only-if-cached gets is the answer it asked for, no failure; and no page
  // may be fetched for it from upstream.
  if (details.includes(ONLY_IF_CACHED)) return false;
  if (!passesItsAnswers) return true;
  return details.some((word) => isDisconnectedDetail(word) || OWN_ERROR_DETAILS.has(word));
}
