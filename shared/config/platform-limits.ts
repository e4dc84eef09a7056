// The limits Cloudflare's platform sets that tiercache is built against (docs/slices.md, docs/costs.md): each named once,
// with the page that states it and when it was read. The settings' defaults (limits.ts) and the scale model
// (shared/cost/scale-model.ts) take them from here.

/**
 * When every limit below was read from its page.
 * @public docs/costs.md's table of limits names this file's constants, read by code or not
 */
export const PLATFORM_LIMITS_READ_AT = '2026-12-01';

const WORKERS_LIMITS = 'https://developers.cloudflare.com/workers/platform/limits/';
const KV_LIMITS = 'https://developers.cloudflare.com/kv/platform/limits/';
// The Durable Objects limits page sends "how much work can a single Durable Object do" to its FAQ.
const DURABLE_OBJECT_FAQ = 'https://developers.cloudflare.com/durable-objects/reference/faq/';

/** A limit, the unit it counts and the page that says so. */
export interface PlatformLimit {
  value: number;
  unit: string;
  source: string;
}

/**
 * Subrequests one invocation may make on Workers Paid unless the Worker's `limits.subrequests` says otherwise:
 * "Subrequests | 50/request | 10,000/request" (Free | Paid). Each fetch, Cache API call, KV or Durable Object call and
 * service-binding request counts. It was 1,000 until Cloudflare raised it; a Worker may now set its own up to 10 million
 * in its Wrangler configuration (`"limits": { "subrequests": N }`, Workers Paid only), or lower to cap runaway code.
 */
export const PAID_SUBREQUESTS: PlatformLimit = {
  value: 10_000,
  unit: 'subrequests per invocation',
  source: `${WORKERS_LIMITS}#subrequests`,
};

/**
 * The most `limits.subrequests` may raise PAID_SUBREQUESTS to (Workers Paid).
 * @public in docs/costs.md's table of limits, read by no code
 */
export const PAID_SUBREQUESTS_MAX: PlatformLimit = {
  value: 10_000_000,
  unit: 'subrequests per invocation',
  source: `${WORKERS_LIMITS}#subrequests`,
};

/**
 * Workers Free: 50 subrequests an invocation to the Internet ("external"); calls to Cloudflare's own services (KV,
 * Durable Objects, the Cache API) have 1,000. tiercache's reads are fetches and cache calls mixed, so 50 is its budget.
 * @public in docs/costs.md's table of limits, read by no code
 */
export const FREE_SUBREQUESTS: PlatformLimit = {
  value: 50,
  unit: 'external subrequests per invocation',
  source: `${WORKERS_LIMITS}#subrequests`,
};

/**
 * "You can open up to six connections simultaneously, for each invocation of your Worker" (fetch, KV, Cache API,
 * R2, Queues, sockets); more are queued until one has its response headers. Free and Paid alike.
 */
export const SIMULTANEOUS_CONNECTIONS: PlatformLimit = {
  value: 6,
  unit: 'connections waiting for headers per invocation',
  source: `${WORKERS_LIMITS}#simultaneous-open-connections`,
};

/**
 * "Writes to same key | 1 per second" (Free and Paid): a key written more often is refused (429). One key rewritten on
 * every purge (a version or "head" key) caps purges that change it at one a second.
 */
export const KV_WRITES_PER_KEY_PER_SECOND: PlatformLimit = {
  value: 1,
  unit: 'writes per second to one key',
  source: KV_LIMITS,
};

/**
 * "Operations/Worker invocation | 1000": KV calls one invocation may make (a bulk get counts once).
 * @public in docs/costs.md's table of limits, read by no code
 */
export const KV_OPERATIONS_PER_INVOCATION: PlatformLimit = {
  value: 1_000,
  unit: 'KV operations per invocation',
  source: KV_LIMITS,
};

/**
 * "An individual Object has a soft limit of 1,000 requests per second" (a Durable Object is single-threaded; past
 * it, requests queue and then fail as "overloaded"). A simple get may go faster, a list or a large JSON value slower.
 */
export const DURABLE_OBJECT_REQUESTS_PER_SECOND: PlatformLimit = {
  value: 1_000,
  unit: 'requests per second per object (soft)',
  source: `${DURABLE_OBJECT_FAQ}#how-much-work-can-a-single-durable-object-do`,
};
