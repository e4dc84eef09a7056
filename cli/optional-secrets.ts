// The secrets a deploy asks for that leave a feature off when left empty, in the order it asks for them; the rest of
// wrangler-config.ts SECRETS are required or generated.

/** POST /__tiercache/purge (docs/purge.md). */
const PURGE_TOKEN = {
  name: 'PURGE_TOKEN',
  workers: ['edge'],
  purpose: 'the bearer token of POST /__tiercache/purge',
  source: 'optional',
  unset: 'purge stays disabled',
} as const;

/** The stats page (docs/operating.md). */
const STATS_TOKEN = {
  name: 'STATS_TOKEN',
  workers: ['edge'],
  purpose: 'the token of the stats page',
  source: 'optional',
  unset: 'the stats page stays disabled',
} as const;

/**
 * The platform purge (docs/purge.md "Paths"), with CF_ZONE_ID in tiercache.config.ts's vars: one without the other is
 * a ConfigError naming both (shared/config/zone-purge-config.ts). The token needs Zone > Cache Purge
 * (developers.cloudflare.com/cache/how-to/purge-cache/purge-cache-key/).
 */
const CF_API_TOKEN = {
  name: 'CF_API_TOKEN',
  workers: ['edge'],
  purpose: 'a Cloudflare API token with Zone > Cache Purge, for purges at the platform’s speed (set CF_ZONE_ID too)',
  source: 'optional',
  unset: 'purges take the KV records alone (typically within 65 s)',
} as const;

/** Purge on upload (docs/storj.md): the secret Pub/Sub's push subscription sends to POST /__tiercache/events. */
const EVENTS_TOKEN = {
  name: 'EVENTS_TOKEN',
  workers: ['edge'],
  purpose: 'the secret of POST /__tiercache/events, Storj’s bucket events pushed by Pub/Sub (purge on upload)',
  source: 'optional',
  unset: 'bucket events stay disabled',
} as const;

export const OPTIONAL_SECRETS = [PURGE_TOKEN, STATS_TOKEN, CF_API_TOKEN, EVENTS_TOKEN] as const;

/** Their names: settings never written into the workers' vars. */
export type OptionalSecretName = (typeof OPTIONAL_SECRETS)[number]['name'];
