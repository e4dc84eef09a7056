// The deployment as tiercache.config.ts writes it once, and what is checked of it before anything is generated or
// deployed: what stops a deploy (settingsProblems) and what should be read first (settingsWarnings).

import type { RawConfig } from '../shared/config/config.ts';
import { HEALTH_PATH } from '../shared/request/reserved-paths.ts';
import { configProblems } from './config-check.ts';
import type { OptionalSecretName } from './optional-secrets.ts';

/** Settings that are secrets are put with `wrangler secret`, never written in the settings (deploy-secrets.ts). */
type SecretName = 'S3_ACCESS_KEY_ID' | 'S3_SECRET_ACCESS_KEY' | 'SHIELD_TOKEN' | OptionalSecretName;

/** The two workers of a deployment. */
export type Worker = 'edge' | 'shield';

/** A Workers route (`example.com/cdn/*` on a zone) or a custom domain (`cdn.example.com`, the Worker is its origin). */
export type EdgeRoute =
  | { pattern: string; custom_domain: true }
  | { pattern: string; zone_name: string }
  | { pattern: string; zone_id: string };

/** Placement hints (developers.cloudflare.com/workers/configuration/placement/). */
export type Placement =
  | { mode: 'smart' }
  | { mode: 'targeted'; hostname: string }
  | { mode: 'targeted'; host: string }
  | { mode: 'targeted'; region: string };

/**
 * What caches the shield's answers (docs/deploying.md "The shield's cache"). `workers-cache`: the edge reaches the
 * shield over its SHIELD service binding and Workers Cache fronts the shield's slice entrypoint. `cache-api`: the
 * shield is served on a custom domain of its own (`shield.hostname`), where the Cache API is documented to work, and
 * the edge reaches it by fetch to SHIELD_URL with its credential; no Workers Cache.
 */
export type ShieldCache = 'workers-cache' | 'cache-api';
const DEFAULT_SHIELD_CACHE: ShieldCache = 'workers-cache';

/** A deployment as tiercache.config.ts writes it: the workers' names, where the edge is reached, the shield's place. */
export interface DeploySettings {
  /** The account to deploy to; absent: the one `wrangler whoami` shows (or CLOUDFLARE_ACCOUNT_ID). */
  accountId?: string;
  edge: {
    name: string;
    /** Where clients reach the CDN: at least one route or custom domain. */
    routes: EdgeRoute[];
    /** The `*.workers.dev` address: the Cache API does nothing there (docs/deploying.md). */
    workersDev: boolean;
    /** Where `npm run deploy` checks the deployment; absent: `https://<first route's host>/__tiercache/health`. */
    healthUrl?: string;
  };
  shield: {
    name: string;
    /** Where the shield runs; absent: next to ORIGIN_URL's host (`targeted`, by hostname). */
    placement?: Placement;
    /** What caches the shield's answers; absent: `workers-cache`. */
    cache?: ShieldCache;
    /** The shield's own hostname, a custom domain on a zone of the account: `cache-api` only. */
    hostname?: string;
    /**
     * The R2 bucket of the R2 tier behind the shield (shield/r2/README.md), bound as R2_TIER; absent: the tier is off.
     * Create it once (`npx wrangler r2 bucket create <name>`), with the lifecycle rule docs/deploying.md gives.
     */
    r2Bucket?: string;
  };
  /** The KV namespace both workers keep the purge list in, by title (found or created by `npm run deploy`). */
  purgesNamespace: string;
  /** Its id: written here by `npm run deploy` when it finds or creates the namespace; '' until then. */
  purgesNamespaceId?: string;
  /** The Workers Analytics Engine dataset both workers write a data point per request to. */
  analyticsDataset: string;
  /** The workers' runtime: compatibility date and flags, for both and for the local stack. */
  compatibility: { date: string; flags: readonly string[] };
  /** The settings both workers read (docs/configuration.md), each once. */
  vars: Omit<RawConfig, SecretName>;
}

/** The example domain the settings file ships with: deploying it would claim a hostname nobody owns. */
const EXAMPLE_DOMAIN = 'cdn.example.com';
/** The zone the documentation's examples use (RFC 2606): nobody's hostname. */
const EXAMPLE_ZONE = 'example.com';

/** Where the origin is when the settings name none: Storj's hosted gateway, its US1 region (docs/storj.md). */
const DEFAULT_ORIGIN_URL = 'https://gateway.us1.storjshare.io';

/**
 * Hosts that answer from the instance nearest whoever asks: placement probes "do not work correctly for broadcast,
 * anycast, multicast, or replicated resources" (PLACEMENT_DOC), so a shield placed by one is placed nowhere in
 * particular. Storj's global gateway name and its linksharing service route to the nearest region (docs/storj.md);
 * the regional names are gateway.us1, gateway.eu1 and gateway.ap1.storjshare.io.
 */
export const ANYCAST_HOSTS: readonly string[] = ['gateway.storjshare.io', 'link.storjshare.io'];
export const PLACEMENT_DOC = 'https://developers.cloudflare.com/workers/configuration/placement/';

/** The shield's cache mode: `cache`, else the default. */
export function shieldCache(settings: DeploySettings): ShieldCache {
  return settings.shield.cache ?? DEFAULT_SHIELD_CACHE;
}

/** What stops a deployment of `settings`, as sentences; none for a deployable one. */
export function settingsProblems(settings: DeploySettings): string[] {
  const problems: string[] = [];
  const { edge, shield } = settings;
  if (edge.routes.length === 0 && !edge.workersDev)
    problems.push('edge.routes is empty: give the edge a custom domain or a route, or clients cannot reach it');
  for (const route of edge.routes) {
    if (routeHost(route) === EXAMPLE_DOMAIN)
      problems.push(
        `edge.routes names ${EXAMPLE_DOMAIN}: set the hostname clients will use, on a zone of your account`,
      );
  }
  if (edge.name === shield.name)
    problems.push(`edge.name and shield.name are both ${JSON.stringify(edge.name)}: the two workers need two names`);
  if (settings.vars.ORIGIN_URL === undefined && settings.vars.ORIGIN_KIND === 'http')
    problems.push('vars.ORIGIN_URL is not set: an http origin needs its URL');
  problems.push(...shieldCacheProblems(settings));
  return [...problems, ...configProblems(settings.vars)];
}

/** The shield's cache mode and hostname: `cache-api` needs a hostname of the user's own, distinct from the edge's. */
function shieldCacheProblems(settings: DeploySettings): string[] {
  const mode = settings.shield.cache;
  if (mode !== undefined && mode !== 'workers-cache' && mode !== 'cache-api')
    return [`shield.cache is ${JSON.stringify(mode)}: expected 'workers-cache' or 'cache-api'`];
  if (shieldCache(settings) !== 'cache-api') return [];
  const host = settings.shield.hostname;
  if (host === undefined || host === '')
    return [
      "shield.cache is 'cache-api' but shield.hostname is not set: name the shield's own hostname (a custom domain on a zone of your account)",
    ];
  if (!/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/i.test(host) || !host.includes('.'))
    return [`shield.hostname is ${JSON.stringify(host)}: expected a hostname (no scheme, port or path)`];
  if (host === EXAMPLE_ZONE || host.endsWith(`.${EXAMPLE_ZONE}`))
    return [`shield.hostname names ${host}: set a hostname of your own, on a zone of your account`];
  if (settings.edge.routes.some((route) => routeHost(route) === host))
    return [`shield.hostname ${host} is also the edge's: the shield needs a hostname of its own`];
  return [];
}

/** Where the deployment is checked: --health-url, the settings' healthUrl, or the first route's host. */
export function healthUrl(settings: DeploySettings, given: URL | undefined): URL | undefined {
  if (given !== undefined) return given;
  if (settings.edge.healthUrl !== undefined) return new URL(settings.edge.healthUrl);
  const first = settings.edge.routes[0];
  return first === undefined ? undefined : new URL(HEALTH_PATH, `https://${routeHost(first)}`);
}

/** The host a route serves: a custom domain's name, or a route pattern's host part. */
export function routeHost(route: EdgeRoute): string {
  const host = route.pattern.replace(/^https?:\/\//, '').split('/', 1)[0] ?? '';
  return host.replace(/^\*\.?/, '');
}

/**
 * The placement set, else by the origin's host (developers.cloudflare.com/workers/configuration/placement/): the
 * preferred one where ORIGIN_URL lists several endpoints, the one asked while it answers.
 */
export function shieldPlacement(settings: DeploySettings): Placement {
  if (settings.shield.placement !== undefined) return settings.shield.placement;
  const [preferred] = (settings.vars.ORIGIN_URL ?? DEFAULT_ORIGIN_URL).split(/[\s,]+/).filter((part) => part !== '');
  return { mode: 'targeted', hostname: new URL(preferred ?? DEFAULT_ORIGIN_URL).hostname };
}

/** The host a placement probes: a hostname, or a `host:port`'s host; none for a region or Smart Placement. */
function placementHost(placement: Placement): string | undefined {
  if ('hostname' in placement) return placement.hostname.toLowerCase();
  if ('host' in placement) return placement.host.replace(/:\d+$/, '').toLowerCase();
  return undefined;
}

/** Warnings that do not stop a deployment but should be read before it. */
export function settingsWarnings(settings: DeploySettings): string[] {
  const warnings: string[] = [];
  if (settings.edge.workersDev) {
    warnings.push(
      "edge.workersDev is true: the edge is also served on *.workers.dev, where Cloudflare's Cache API does nothing. " +
        'Requests there are never cached at the edge: every one goes to the shield. Serve clients on the route or custom domain only.',
    );
  }
  const probed = placementHost(shieldPlacement(settings));
  if (probed !== undefined && ANYCAST_HOSTS.includes(probed))
    warnings.push(
      `the shield is placed next to ${probed}, a name that answers from the instance nearest whoever asks: Cloudflare's placement probes "do not work correctly for broadcast, anycast, multicast, or replicated resources" (${PLACEMENT_DOC}). ` +
        'Use a regional gateway (gateway.us1, gateway.eu1 or gateway.ap1.storjshare.io) in vars.ORIGIN_URL, or name one in shield.placement.',
    );
  if (shieldCache(settings) === 'workers-cache' && settings.shield.hostname !== undefined)
    warnings.push(
      `shield.hostname is set, but shield.cache is 'workers-cache': the shield gets no route and ${settings.shield.hostname} is not used`,
    );
  return warnings;
}
