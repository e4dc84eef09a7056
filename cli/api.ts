// The two endpoints of the edge the commands call (docs/purge.md, docs/operating.md):
// where each lives, which secret opens it, where the local stack keeps that secret, and what
// the edge's 401 and 403 mean for it, in words that say what to set.

export interface Api {
  name: 'stats' | 'purge';
  path: string;
  method: 'GET' | 'POST';
  /** The environment variable holding the bearer token (wins over the local stack's). */
  tokenName: 'STATS_TOKEN' | 'PURGE_TOKEN';
  /** Its field in `.build/local/stack.json`. */
  stackField: 'statsToken' | 'purgeToken';
  /** 401: a token was sent, and it is not the deployment's. */
  refused: string;
  /** 403: the deployment has no such secret, so the endpoint is off. */
  disabled: string;
}

export const STATS_API: Api = {
  name: 'stats',
  path: '/__tiercache/stats.json',
  method: 'GET',
  tokenName: 'STATS_TOKEN',
  stackField: 'statsToken',
  refused: "the token was refused: set STATS_TOKEN to the deployment's secret",
  disabled: 'stats are disabled on this deployment: set the STATS_TOKEN secret',
};

export const PURGE_API: Api = {
  name: 'purge',
  path: '/__tiercache/purge',
  method: 'POST',
  tokenName: 'PURGE_TOKEN',
  stackField: 'purgeToken',
  refused: "the token was refused: set PURGE_TOKEN to the deployment's secret",
  disabled: 'purge is disabled: set the PURGE_TOKEN secret',
};
