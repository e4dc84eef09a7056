// The static-site settings of the configuration contract (README "Static sites"), parsed apart
// from shared/config/config.ts, which includes them in `Config.site` and in CONFIG_NAMES. Each is off
// where a plain object store would not do it: only the Content-Type fix is on by default.

import { type AllowedOrigins, parseAllowedOrigins } from '../http/cors.ts';
import { encodeKeyForPath, objectKeyFromPath } from '../target/object-key.ts';

export const SITE_CONFIG_NAMES = ['INDEX_DOCUMENT', 'NOT_FOUND_DOCUMENT', 'CONTENT_TYPE_FROM_EXTENSION', 'CORS_ALLOW_ORIGINS'] as const;
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

/** The settings as given; `invalid` builds the error thrown for one that cannot work. */
export function parseSiteConfig(raw: SiteRawConfig, invalid: (message: string) => Error): SiteConfig {
  const indexDocument = documentKey(raw, 'INDEX_DOCUMENT', invalid);
  // As S3's website configuration requires: "The suffix must not be empty and must not include a slash character."
  if (indexDocument?.includes('/')) throw invalid(`INDEX_DOCUMENT must be a name without "/", got ${JSON.stringify(indexDocument)}`);
  const switchValue = setting(raw, 'CONTENT_TYPE_FROM_EXTENSION') ?? 'on';
  if (switchValue !== 'on' && switchValue !== 'off') throw invalid(`CONTENT_TYPE_FROM_EXTENSION must be one of on|off, got ${JSON.stringify(switchValue)}`);
  const cors = parseAllowedOrigins(setting(raw, 'CORS_ALLOW_ORIGINS') ?? '');
  if (!cors.ok) throw invalid(`CORS_ALLOW_ORIGINS ${cors.reason}`);
  return {
    indexDocument,
    notFoundDocument: documentKey(raw, 'NOT_FOUND_DOCUMENT', invalid),
    contentTypeFromExtension: switchValue === 'on',
    corsAllowOrigins: cors.origins,
  };
}

/** An object key named by a setting (a leading `/` dropped), checked as a request's key is. */
function documentKey(raw: SiteRawConfig, name: keyof SiteRawConfig, invalid: (message: string) => Error): string | undefined {
  const value = setting(raw, name)?.replace(/^\/+/, '');
  if (!value) return undefined;
  const parsed = objectKeyFromPath(`/${encodeKeyForPath(value)}`);
  if (!parsed.ok) throw invalid(`${name} must name an object key: ${parsed.reason}`);
  return parsed.key;
}

function setting(raw: SiteRawConfig, name: keyof SiteRawConfig): string | undefined {
  const trimmed = raw[name]?.trim();
  return trimmed ? trimmed : undefined;
}
