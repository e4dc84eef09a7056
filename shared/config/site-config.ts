// The static-site settings of the configuration contract (docs/static-sites.md), read into `Config.site`.
// Each is off where a plain object store would not do it: only the Content-Type fix is on by default, and the folder
// redirect where S3 website hosting would make it (an S3 origin with INDEX_DOCUMENT).

import { type AllowedOrigins, parseAllowedOrigins } from '../http/cors.ts';
import { ConfigError } from '../http/errors.ts';
import { encodeKeyForPath, objectKeyFromPath } from '../request/object-key.ts';
import { REDIRECT_STATUSES, type RedirectStatus } from '../rules/rules.ts';
import type { ConfigProblems } from './config-problems.ts';

export const SITE_CONFIG_NAMES = [
  'INDEX_DOCUMENT',
  'FOLDER_REDIRECT',
  'NOT_FOUND_DOCUMENT',
  'NOT_FOUND_DOCUMENTS',
  'ERROR_DOCUMENT',
  'CONTENT_TYPE_FROM_EXTENSION',
  'CORS_ALLOW_ORIGINS',
] as const;
export type SiteRawConfig = Partial<Record<(typeof SITE_CONFIG_NAMES)[number], string>>;

/** A 404 page and the paths it answers for: those under `prefix`, as written (starting with `/`). */
export interface NotFoundDocument {
  prefix: string;
  key: string;
}

export interface SiteConfig {
  /** Object name appended to S3 paths ending in `/` (`index.html`); undefined = off. */
  indexDocument: string | undefined;
  /**
   * FOLDER_REDIRECT: the status a GET or HEAD of `/dir` is redirected to `/dir/` with when `dir` is missing and
   * `/dir/` (its index document) is there; undefined = off.
   */
  folderRedirect: RedirectStatus | undefined;
  /**
   * NOT_FOUND_DOCUMENT (the `/` entry) and NOT_FOUND_DOCUMENTS: the pages whose body answers a GET or HEAD that would be
   * a bare 404, each for the paths under its prefix (the longest matching prefix's answers); empty = off.
   */
  notFoundDocuments: readonly NotFoundDocument[];
  /** ERROR_DOCUMENT: key of the page whose body answers a 5xx of ours (the status kept); undefined = off. */
  errorDocument: string | undefined;
  /** Content-Type from the key's extension when the origin sends none or S3's default. */
  contentTypeFromExtension: boolean;
  /** Origins whose scripts may read answers (CORS); an empty list = no CORS headers at all. */
  corsAllowOrigins: AllowedOrigins;
}

/**
 * The settings as given; each one that cannot work is kept as a problem naming it. `indexesFolders`: whether
 * INDEX_DOCUMENT applies to the origin (S3, whose folders the edge names; a site resolves its own).
 */
export function parseSiteConfig(raw: SiteRawConfig, problems: ConfigProblems, indexesFolders: boolean): SiteConfig {
  const indexDocument = problems.read(() => indexDocumentOf(raw), undefined);
  return {
    indexDocument,
    folderRedirect: problems.read(() => folderRedirectOf(raw, indexesFolders, indexDocument !== undefined), undefined),
    notFoundDocuments: problems.read(() => notFoundDocumentsOf(raw), []),
    errorDocument: problems.read(() => documentKey(raw, 'ERROR_DOCUMENT'), undefined),
    contentTypeFromExtension: problems.read(() => contentTypeSwitch(raw), true),
    corsAllowOrigins: problems.read(() => corsOrigins(raw), []),
  };
}

function indexDocumentOf(raw: SiteRawConfig): string | undefined {
  const key = documentKey(raw, 'INDEX_DOCUMENT');
  // As S3's website configuration requires: "The suffix must not be empty and must not include a slash character."
  if (key?.includes('/'))
    throw new ConfigError(`INDEX_DOCUMENT must be a name without "/", got ${JSON.stringify(key)}`);
  return key;
}

/**
 * On by default where S3 website hosting redirects (an S3 origin with an index document), with nginx's, Apache's
 * (DirectorySlash) and Netlify's 301; S3 itself answers 302, which may be chosen. Without INDEX_DOCUMENT an S3 path
 * ending in `/` names the key `dir/`, no folder's page: asking for the redirect then is a mistake, said at once.
 */
function folderRedirectOf(raw: SiteRawConfig, indexesFolders: boolean, indexed: boolean): RedirectStatus | undefined {
  const value = setting(raw, 'FOLDER_REDIRECT');
  if (value === undefined) return indexesFolders && indexed ? 301 : undefined;
  if (value === 'off') return undefined;
  // RFC 9110 §15.4: the redirects a rule may answer with.
  const status = REDIRECT_STATUSES.find((allowed) => String(allowed) === value);
  if (status === undefined)
    throw new ConfigError(
      `FOLDER_REDIRECT must be one of ${REDIRECT_STATUSES.join('|')}|off, got ${JSON.stringify(value)}`,
    );
  if (indexesFolders && !indexed)
    throw new ConfigError('FOLDER_REDIRECT needs INDEX_DOCUMENT with ORIGIN_KIND=s3: without it no key is a folder');
  return status;
}

// A request path never holds a control character, a space, a query or a fragment: such a prefix would match nothing
// (SIGNED_PREFIXES' rule). A comma separates entries: write one in a prefix as %2C.
const PREFIX = /^\/[^\u0000-\u0020\u007F?#,]*$/;
const MALFORMED_PERCENT = /%(?![0-9A-Fa-f]{2})/;

/**
 * `/docs/=docs/404.html,/=404.html`: each prefix (a path as a client writes it, compared with the canonical path as
 * SIGNED_PREFIXES and purge prefixes are) and the key of its page (written as NOT_FOUND_DOCUMENT's is, up to the next
 * comma). NOT_FOUND_DOCUMENT is the `/` entry; naming `/` in both is refused, as is a prefix named twice.
 */
function notFoundDocumentsOf(raw: SiteRawConfig): NotFoundDocument[] {
  const documents: NotFoundDocument[] = [];
  const whole = documentKey(raw, 'NOT_FOUND_DOCUMENT');
  if (whole !== undefined) documents.push({ prefix: '/', key: whole });
  for (const entry of (setting(raw, 'NOT_FOUND_DOCUMENTS') ?? '').split(',')) {
    if (entry.trim() === '') continue;
    const equals = entry.indexOf('=');
    const prefix = equals < 0 ? '' : entry.slice(0, equals).trim();
    if (!PREFIX.test(prefix) || MALFORMED_PERCENT.test(prefix))
      throw new ConfigError(
        `NOT_FOUND_DOCUMENTS must be prefix=key pairs, each prefix a path starting with "/" (no spaces, query or fragment), got ${JSON.stringify(entry.trim())}`,
      );
    const key = keyOf(entry.slice(equals + 1), 'NOT_FOUND_DOCUMENTS');
    if (key === undefined)
      throw new ConfigError(`NOT_FOUND_DOCUMENTS names no page for ${JSON.stringify(prefix)}: write prefix=key`);
    if (documents.some((known) => known.prefix === prefix)) {
      const where = prefix === '/' && whole !== undefined ? ' (NOT_FOUND_DOCUMENT is the page for "/")' : '';
      throw new ConfigError(`NOT_FOUND_DOCUMENTS names the prefix ${JSON.stringify(prefix)} twice${where}`);
    }
    documents.push({ prefix, key });
  }
  return documents;
}

function contentTypeSwitch(raw: SiteRawConfig): boolean {
  const value = setting(raw, 'CONTENT_TYPE_FROM_EXTENSION') ?? 'on';
  if (value !== 'on' && value !== 'off')
    throw new ConfigError(`CONTENT_TYPE_FROM_EXTENSION must be one of on|off, got ${JSON.stringify(value)}`);
  return value === 'on';
}

function corsOrigins(raw: SiteRawConfig): AllowedOrigins {
  const cors = parseAllowedOrigins(setting(raw, 'CORS_ALLOW_ORIGINS') ?? '');
  if (!cors.ok) throw new ConfigError(`CORS_ALLOW_ORIGINS ${cors.reason}`);
  return cors.origins;
}

/** An object key named by a setting (a leading `/` dropped), checked as a request's key is. */
function documentKey(raw: SiteRawConfig, name: keyof SiteRawConfig): string | undefined {
  return keyOf(setting(raw, name), name);
}

function keyOf(written: string | undefined, name: keyof SiteRawConfig): string | undefined {
  const value = written?.trim().replace(/^\/+/, '');
  if (!value) return undefined;
  const parsed = objectKeyFromPath(`/${encodeKeyForPath(value)}`);
  if (!parsed.ok) throw new ConfigError(`${name} must name an object key: ${parsed.reason}`);
  return parsed.key;
}

function setting(raw: SiteRawConfig, name: keyof SiteRawConfig): string | undefined {
  const trimmed = raw[name]?.trim();
  return trimmed ? trimmed : undefined;
}
