// What a deployment is made of, as tiercache.config.ts writes it once: the two workers' names,
// where clients reach the edge, the shield's placement and cache, and the settings (vars) both
// workers read. `npm run deploy` writes each worker's wrangler configuration from it
// (wrangler-config.ts); nothing is kept in step by hand. Also what is wrong with one, as
// sentences (settingsProblems), before anything is built or deployed.

import type { RawConfig } from '../shared/config/config.ts';

/** Settings that are secrets are put with `wrangler secret`, never written here (deploy-secrets.ts). */
type SecretName = 'S3_ACCESS_KEY_ID' | 'S3_SECRET_ACCESS_KEY' | 'SHIELD_TOKEN' | 'PURGE_TOKEN' | 'STATS_TOKEN';

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
    /** Workers Cache in front of the shield's slice answers (docs/deploying.md "What each cache holds"). */
    workersCache: boolean;
  };
  /** The KV namespace both workers keep the purge list in, by title (found or created by `npm run deploy`). */
  purgesNamespace: string;
  /** The Workers Analytics Engine dataset both workers write a data point per request to. */
  analyticsDataset: string;
  /** The workers' runtime: compatibility date and flags, for both and for the local stack. */
  compatibility: { date: string; flags: readonly string[] };
  /** The settings both workers read (docs/configuration.md), each once. */
  vars: Omit<RawConfig, SecretName>;
}

/** The example domain the settings file ships with: deploying it would claim a hostname nobody owns. */
export const EXAMPLE_DOMAIN = 'cdn.example.com';

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
  return problems;
}

/** The host a route serves: a custom domain's name, or a route pattern's host part. */
export function routeHost(route: EdgeRoute): string {
  return (
    route.pattern
      .replace(/^https?:\/\//, '')
      .split('/', 1)[0]
      ?.replace(/^\*\.?/, '') ?? ''
  );
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
  if (!settings.shield.workersCache)
    warnings.push(
      'shield.workersCache is false: the shield caches only with the Cache API, which Cloudflare documents for Workers on custom domains, not for one reached only through a service binding.',
    );
  return warnings;
}
