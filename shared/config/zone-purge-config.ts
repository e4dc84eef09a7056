// The platform purge settings (docs/purge.md "Paths"): the API token and zone a purge is also sent through
// Cloudflare's own purge with, read into `Config.zonePurge`.

import { ConfigError } from '../http/errors.ts';
import type { ConfigProblems } from './config-problems.ts';
import { isCredentialSafe, nonEmpty } from './config-values.ts';

export const ZONE_PURGE_CONFIG_NAMES = ['CF_API_TOKEN', 'CF_ZONE_ID', 'CF_API_BASE'] as const;
export type ZonePurgeRawConfig = Partial<Record<(typeof ZONE_PURGE_CONFIG_NAMES)[number], string>>;

/** Cloudflare's API (developers.cloudflare.com/fundamentals/api/how-to/make-api-calls/). */
const CLOUDFLARE_API_BASE = 'https://api.cloudflare.com/client/v4';

export interface ZonePurgeConfig {
  /**
   * CF_API_TOKEN: an API token with the Zone > Cache Purge permission
   * (developers.cloudflare.com/cache/how-to/purge-cache/purge-cache-key/, "Required API token permissions").
   */
  apiToken: string;
  /** CF_ZONE_ID: the zone the edge's routes are on. */
  zoneId: string;
  /** CF_API_BASE: where the API is (the local stack's test double sets it); no trailing `/`. */
  apiBase: string;
}

/** The settings, or undefined when neither the token nor the zone is given; one alone is a problem naming both. */
export function parseZonePurge(raw: ZonePurgeRawConfig, problems: ConfigProblems): ZonePurgeConfig | undefined {
  const apiToken = nonEmpty(raw.CF_API_TOKEN);
  const zoneId = nonEmpty(raw.CF_ZONE_ID);
  const apiBase = problems.read(() => apiBaseOf(raw.CF_API_BASE), CLOUDFLARE_API_BASE);
  if (apiToken === undefined && zoneId === undefined) return undefined;
  if (apiToken === undefined || zoneId === undefined) {
    problems.read(() => {
      throw new ConfigError(
        `CF_API_TOKEN and CF_ZONE_ID go together (the platform purge needs both), got only ${apiToken === undefined ? 'CF_ZONE_ID' : 'CF_API_TOKEN'}`,
      );
    }, undefined);
    return undefined;
  }
  // A zone id is 32 hex digits; it goes into the API's path, so nothing else may.
  if (!/^[0-9a-f]{32}$/i.test(zoneId)) {
    problems.read(() => {
      throw new ConfigError('CF_ZONE_ID must be the zone id: 32 hexadecimal digits');
    }, undefined);
    return undefined;
  }
  return { apiToken, zoneId, apiBase };
}

/** CF_API_BASE: https, or http on loopback only (the token must never cross a network in the clear). */
function apiBaseOf(value: string | undefined): string {
  const given = nonEmpty(value);
  if (given === undefined) return CLOUDFLARE_API_BASE;
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new ConfigError(`CF_API_BASE must be an absolute https URL, got ${JSON.stringify(given)}`);
  }
  if (!isCredentialSafe(url))
    throw new ConfigError(`CF_API_BASE must use https (http only on loopback), got ${url.protocol}`);
  return url.href.replace(/\/+$/, '');
}
