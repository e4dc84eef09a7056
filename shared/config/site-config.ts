// The static-site settings of the configuration contract (docs/static-sites.md), read into `Config.site`.
// Each is off where a plain object store would not do it: only the Content-Type fix is on by default.

import { type AllowedOrigins, parseAllowedOrigins } from '../http/cors.ts';
import { ConfigError } from '../http/errors.ts';
import { encodeKeyForPath, objectKeyFromPath } from '../request/object-key.ts';
import type { ConfigProblems } from './config-problems.ts';

export const SITE_CONFIG_NAMES = [
  'INDEX_DOCUMENT',
  'NOT_FOUND_DOCUMENT',
  'CONTENT_TYPE_FROM_EXTENSION',
  'CORS_ALLOW_ORIGINS',
] as const;
export type SiteRawConfig = Partial<Record<(typeof SITE_CONFIG_NAMES)[number], string>>;

export interface SiteConfig {
  /** Object name appended to S3 paths ending in `/` (`index.html`); undefined = off. */
  indexDocument: string | undefined;
  /** Key of the object whose body answers a GET or HEAD that would be a bare 404; undefined = off. */
  notFoundDocument: string | undefined;
  /** Content-Type from the key's extension when the origin sends none or S3's default. */
  contentTypeFromExtension: boolean;
  /** Origins whose scripts may read answers (CORS); an empty list = no CORS headers at all. */
  corsAllowOrigins: AllowedOrigins;
}

/** The settings as given; each one that cannot work is kept as a problem naming it. */
export function parseSiteConfig(raw: SiteRawConfig, problems: ConfigProblems): SiteConfig {
  return {
    indexDocument: problems.read(() => indexDocument(raw), undefined),
    notFoundDocument: problems.read(() => documentKey(raw, 'NOT_FOUND_DOCUMENT'), undefined),
    contentTypeFromExtension: problems.read(() => contentTypeSwitch(raw), true),
    corsAllowOrigins: problems.read(() => corsOrigins(raw), []),
  };
}

function indexDocument(raw: SiteRawConfig): string | undefined {
  const key = documentKey(raw, 'INDEX_DOCUMENT');
  // As S3's website configuration requires: "The suffix must not be empty and must not include a slash character."
  if (key?.includes('/'))
    throw new ConfigError(`INDEX_DOCUMENT must be a name without "/", got ${JSON.stringify(key)}`);
  return key;
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
  const value = setting(raw, name)?.replace(/^\/+/, '');
  if (!value) return undefined;
  const parsed = objectKeyFromPath(`/${encodeKeyForPath(value)}`);
  if (!parsed.ok) throw new ConfigError(`${name} must name an object key: ${parsed.reason}`);
  return parsed.key;
}

function setting(raw: SiteRawConfig, name: keyof SiteRawConfig): string | undefined {
  const trimmed = raw[name]?.trim();
  return trimmed ? trimmed : undefined;
}
