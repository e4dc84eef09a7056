// The requests the commands send, as plain values (what the tests look at before anything is
// sent): the endpoint's URL on the deployment, the bearer token, and for a purge the JSON body
// worker/purge.ts parses (shared/purge/purge.ts parsePurgeBody: urls, prefixes, tags, everything).

import { type Api, PURGE_API, STATS_API } from './api.ts';
import type { Deployment } from './deployment.ts';

export interface ApiRequest {
  api: Api;
  url: URL;
  method: Api['method'];
  headers: Record<string, string>;
  body?: string;
  /** Sent to the local stack its note names (Deployment.local). */
  local: boolean;
}

/** What a purge names: each list as given on the command line, in order. */
export interface PurgeTargets {
  urls: string[];
  prefixes: string[];
  tags: string[];
  everything: boolean;
}

export function statsRequest(deployment: Deployment): ApiRequest {
  return {
    api: STATS_API,
    url: new URL(STATS_API.path, deployment.base),
    method: STATS_API.method,
    headers: { authorization: `Bearer ${deployment.token}`, accept: 'application/json' },
    local: deployment.local,
  };
}

export function purgeRequest(deployment: Deployment, targets: PurgeTargets): ApiRequest {
  // Only the fields that name something: the edge reads an absent list as empty, `everything` as false.
  const body: Partial<PurgeTargets> = {};
  if (targets.urls.length > 0) body.urls = targets.urls;
  if (targets.prefixes.length > 0) body.prefixes = targets.prefixes;
  if (targets.tags.length > 0) body.tags = targets.tags;
  if (targets.everything) body.everything = true;
  return {
    api: PURGE_API,
    url: new URL(PURGE_API.path, deployment.base),
    method: PURGE_API.method,
    headers: {
      authorization: `Bearer ${deployment.token}`,
      'content-type': 'application/json',
      accept: 'application/json',
    },
    body: JSON.stringify(body),
    local: deployment.local,
  };
}
