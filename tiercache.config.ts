// The deployment, written once (docs/deploying.md): `npm run deploy` writes both workers' wrangler configuration from
// this file and deploys the shield, then the edge; `npm run deploy -- --dry-run` builds both without the network.

import type { DeploySettings } from './cli/wrangler-config.ts';

// Written to .build/deploy/edge.wrangler.json and shield.wrangler.json; the deploy finds or creates the KV namespace.
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
    // Placed next to the origin by default (ORIGIN_URL's host); see docs/deploying.md for a
    // multi-region gateway.
    // placement: { mode: 'targeted', hostname: 'gateway.eu1.storjshare.io' },
    // Workers Cache in front of the shield's slice answers: a cache Cloudflare documents for a
    // Worker reached only through a service binding, which is how the shield is reached.
    workersCache: true,
  },
  purgesNamespace: 'tiercache-purges',
  analyticsDataset: 'tiercache',
  compatibility: {
    date: '2026-07-30',
    // request.signal aborts when the client goes away: a tier then cancels every fetch it started.
    flags: ['enable_request_signal'],
  },
  // Both workers read the same settings (docs/configuration.md).
  vars: {
    ORIGIN_KIND: 's3',
    ORIGIN_URL: 'https://gateway.storjshare.io',
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
    // 50 on the Workers free plan.
    SUBREQUEST_LIMIT: '1000',
    // One request in a hundred logged as JSON (errors always).
    LOG_SAMPLE: '0.01',
    // USD per TB of origin egress, for the stats page's "saved".
    EGRESS_PRICE_PER_TB: '7',
    // Paths served only with a signed URL or cookie (docs/private-content.md); the keys are the edge's SIGNING_KEYS
    // secret (`wrangler secret put SIGNING_KEYS --name tiercache-edge`).
    // SIGNED_PREFIXES: '/video/,/paid/',
  },
} satisfies DeploySettings;
