// How the edge reaches the shield (docs/deploying.md "Two shield cache modes"): over its SHIELD service binding
// ('workers-cache' mode), or by `fetch` to SHIELD_URL, a shield on a hostname of its own ('cache-api' mode). The flow
// (shield-client.ts) is one; only this port differs.

import { SHIELD_ORIGIN } from '../shared/hop/hop-fields.ts';
import { ConfigError } from '../shared/http/errors.ts';

/** The edge's way to the shield: `path` (path and query, from `/`) asked of the shield with `init`. */
export interface ShieldTransport {
  fetch(path: string, init: RequestInit): Promise<Response>;
}

/** What the edge uses of its SHIELD service binding (a Fetcher). */
export interface ShieldBinding {
  fetch(input: string, init?: RequestInit): Promise<Response>;
}

/** The service binding, at the shield's internal origin (the binding ignores the host; the shield reads no Host). */
export function bindingTransport(binding: ShieldBinding): ShieldTransport {
  return { fetch: (path, init) => binding.fetch(`${SHIELD_ORIGIN}${path}`, init) };
}

/**
 * A `fetch` to the shield's origin (SHIELD_URL, shared/config/shield-url.ts). The credential travels in `init`, so the
 * URL is checked to be at that origin before anything is sent: a path is always one from `/` (a relative one could
 * name another host: `https://shield.example.com` + `.evil.example/`). `cache: 'no-store'`: no Cloudflare cache
 * stands between the tiers; every answer is the shield's own, judged by its credential check
 * (developers.cloudflare.com/workers/runtime-apis/request/, "cache").
 */
export function urlTransport(origin: URL, fetcher: typeof fetch = globalFetch): ShieldTransport {
  const base = origin.origin;
  return {
    fetch(path, init) {
      const url = `${base}${path}`;
      if (!path.startsWith('/') || new URL(url).origin !== base)
        return Promise.reject(new TypeError(`${JSON.stringify(path.slice(0, 80))} is not a path at the shield`));
      return fetcher(url, { ...init, cache: 'no-store' });
    },
  };
}

/**
 * SHIELD_URL when it is set (the operator chose the shield on a hostname of its own: a SHIELD binding beside it is
 * not used), else the SHIELD binding; neither is a configuration problem, named.
 */
export function shieldTransport(
  binding: ShieldBinding | undefined,
  url: URL | undefined,
  fetcher: typeof fetch = globalFetch,
): ShieldTransport {
  if (url !== undefined) return urlTransport(url, fetcher);
  if (binding !== undefined) return bindingTransport(binding);
  throw new ConfigError('the edge has no way to the shield: bind SHIELD (the shield worker) or set SHIELD_URL');
}

/** The runtime's fetch, called as a method of nothing (never detached from its global). */
const globalFetch: typeof fetch = (input, init) => fetch(input, init);
