// The deployment, written once (docs/deploying.md). After editing it, run `npm run config`: it writes both workers'
// wrangler configuration from this file (wrangler.jsonc, the edge; shield/wrangler.jsonc, the shield), to be
// committed. `npx wrangler deploy` then works on them; `npm run deploy` adds the KV namespace, the secrets and a
// health check; `npm run deploy -- --dry-run` builds both without the network.

import type { DeploySettings } from './cli/deploy-settings.ts';

// Secrets are never written here: the deploy asks for the missing ones (or reads them from the environment) and
// hands them to wrangler.
export default {
  edge: {
    name: 'tiercache-edge',
    // Where clients reach the CDN: your hostname, on a zone of this account. A custom domain
    // makes the edge the hostname's origin (Cloudflare creates its DNS record and
    // certificate); `{ pattern: 'example.com/media/*', zone_name: 'example.com' }` is a route
    // in front of an existing site instead.
    routes: [{ pattern: 'cdn.example.com', custom_domain: true }],
    // Leave false. On *.workers.dev Cloudflare's Cache API does nothing: an edge served there
    // caches NOTHING, and every request costs a trip to the shield (docs/deploying.md).
    workersDev: false,
  },
  shield: {
    name: 'tiercache-shield',
    // Placed next to the origin by default (ORIGIN_URL's host, a regional gateway: placement
    // cannot locate an anycast name such as gateway.storjshare.io; docs/storj.md).
    // placement: { mode: 'targeted', hostname: 'gateway.eu1.storjshare.io' },
    // What caches the shield's answers (docs/deploying.md "The shield's cache"):
    // 'workers-cache': reached only over the edge's service binding, Workers Cache in front of
    //   its slice answers (Workers Cache is not yet generally available);
    // 'cache-api': on a hostname of its own (`hostname`, a custom domain on a zone of this
    //   account), its Cache API; the edge reaches it there with its credential.
    cache: 'workers-cache',
    // hostname: 'shield.cdn.your-domain.net',
    // The R2 tier behind the shield (docs/costs.md "The R2 tier"): keeps what the shield's cache forgets where that
    // costs less than fetching it again. Off until a bucket is named here (create it first: docs/deploying.md).
    // r2Bucket: 'tiercache-r2',
  },
  purgesNamespace: 'tiercache-purges',
  // Its id: written here by `npm run deploy` when it finds or creates the namespace.
  purgesNamespaceId: '',
  analyticsDataset: 'tiercache',
  compatibility: {
    date: '2026-07-30',
    // request.signal aborts when the client goes away: a tier then cancels every fetch it started.
    flags: ['enable_request_signal'],
  },
  // Both workers read the same settings (docs/configuration.md).
  vars: {
    ORIGIN_KIND: 's3',
    ORIGIN_URL: 'https://gateway.us1.storjshare.io',
    S3_BUCKET: 'my-bucket',
    S3_REGION: 'us-east-1',
    S3_ADDRESSING: 'path',
    ORIGIN_TIMEOUT_MS: '10000',
    DEFAULT_TTL: '3600',
    SLICE_SIZE: '8MiB',
    // Slices the shield reads ahead of the one asked for.
    SLICE_READAHEAD: '4',
    // Slices in flight per cold download at most (and per isolate); Storj: 500 transfers per credential.
    SLICE_PARALLEL: '32',
    // Workers Paid's default (10,000 a request); 50 on the Workers Free plan.
    SUBREQUEST_LIMIT: '10000',
    // One request in a hundred logged as JSON (errors always).
    LOG_SAMPLE: '0.01',
    // USD per TB of origin egress, for the stats page's "saved".
    EGRESS_PRICE_PER_TB: '7',
    // Paths served only with a signed URL or cookie (docs/private-content.md); the keys are the edge's SIGNING_KEYS
    // secret (`npx wrangler secret put SIGNING_KEYS`, the edge's file being wrangler.jsonc).
    // SIGNED_PREFIXES: '/video/,/paid/',
    // A web site in the bucket (docs/static-sites.md): `/docs/` serves docs/index.html and `/docs` is redirected to it
    // (FOLDER_REDIRECT, 301 by default), a 404 page by folder, and the site's page for an origin that is down.
    // INDEX_DOCUMENT: 'index.html',
    // NOT_FOUND_DOCUMENTS: '/=404.html,/docs/=docs/404.html',
    // ERROR_DOCUMENT: '50x.html',
  },
} satisfies DeploySettings;
