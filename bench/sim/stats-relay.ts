// The stats store (shield/stats-store.ts, the shield script's Durable Object) reached from every process of a
// topology, as every isolate of a deployment reaches it: each process binds STATS as a wrapped binding, a
// DurableObjectNamespace of idFromName / get / getByName whose stubs' fetches go to a Node relay (counting each
// request: a Durable Object request, priced so, developers.cloudflare.com/durable-objects/platform/pricing/), which
// forwards it to a gateway worker in the shield's process, which hands it to the object of that name. Any name is
// forwarded, so a store of one object or of shards by name is reached alike.

import type { WorkerOptions } from 'miniflare';
import { directSocket } from '../../local/direct-miniflare.ts';

/** The wrapper worker's name in each process, and the gateway's in the shield's. */
const STATS_WRAPPER = 'sim-stats';
export const STATS_GATEWAY = 'sim-stats-gateway';
/** The stats store's class, exported by the shield's script (as local/workers.ts binds it). */
const STATS_CLASS = 'StatsStore';
/** The relay's and the gateway's request names the object in its path and the stub's own URL in this parameter. */
const URL_PARAM = 'url';

export interface StatsRelay {
  /** The Node function the wrapper's service binding calls. */
  service(request: Request): Promise<Response>;
  /** Requests relayed, by object name. */
  requests(): ReadonlyMap<string, number>;
  /** Where the gateway listens, once the shield's process has started (`http://127.0.0.1:PORT`). */
  setGateway(url: string): void;
}

/** A relay that counts each request by object name and forwards it to the gateway, once set. */
export function statsRelay(): StatsRelay {
  const counts = new Map<string, number>();
  let gateway: string | undefined;
  return {
    async service(request) {
      const url = new URL(request.url);
      const name = decodeURIComponent(url.pathname.slice(1));
      counts.set(name, (counts.get(name) ?? 0) + 1);
      if (gateway === undefined) return new Response('the stats gateway has not started', { status: 503 });
      const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
      return fetch(new URL(`${url.pathname}${url.search}`, gateway), {
        method: request.method,
        headers: endToEnd(request.headers),
        ...(body === undefined ? {} : { body }),
      });
    },
    requests: () => new Map(counts),
    setGateway(url) {
      gateway = url;
    },
  };
}

/**
 * The fields a hop forwards (RFC 9110 §7.6.1: the connection's own are not), without the framing the body it sends
 * sets again: a Content-Length copied beside a body the client frames itself is refused (undici: "invalid
 * content-length header").
 */
function endToEnd(headers: Headers): Headers {
  const forwarded = new Headers();
  for (const [name, value] of headers) if (!HOP_FIELDS.has(name)) forwarded.append(name, value);
  return forwarded;
}

const HOP_FIELDS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host', 'upgrade']);

/** The worker whose module the STATS wrapped binding runs, reaching the relay in Node. */
export function statsWrapperWorker(relay: StatsRelay): WorkerOptions {
  // A wrapped binding's worker names no compatibility date (Miniflare's README, wrappedBindings).
  return { name: STATS_WRAPPER, modules: true, script: WRAPPER_SCRIPT, serviceBindings: { RELAY: relay.service } };
}

/** STATS for a worker of any process. */
export function statsBinding(): NonNullable<WorkerOptions['wrappedBindings']> {
  return { STATS: { scriptName: STATS_WRAPPER } };
}

/** The gateway in the shield's process, on a socket of its own: the store's objects by name. */
export function statsGatewayWorker(compatibilityDate: string, shieldScript: string): WorkerOptions {
  return {
    name: STATS_GATEWAY,
    modules: true,
    script: GATEWAY_SCRIPT,
    compatibilityDate,
    durableObjects: { STORE: { className: STATS_CLASS, scriptName: shieldScript } },
    ...directSocket(0),
  };
}

/** Runs in workerd, in the calling isolate: a DurableObjectNamespace whose stubs' fetches go to RELAY. */
const WRAPPER_SCRIPT = `
const PARAM = ${JSON.stringify(URL_PARAM)};
export default function (env) {
  function stub(name) {
    return {
      fetch(input, init) {
        const request = new Request(input, init);
        const target = 'http://stats.sim/' + encodeURIComponent(name) + '?' + PARAM + '=' + encodeURIComponent(request.url);
        return env.RELAY.fetch(target, request);
      },
    };
  }
  return {
    idFromName(name) {
      return { name, toString: () => name, equals: (other) => Boolean(other) && other.name === name };
    },
    get(id) {
      if (!id || typeof id.name !== 'string') throw new TypeError('expected an id from idFromName');
      return stub(id.name);
    },
    getByName(name) {
      return stub(name);
    },
  };
}
`;

/** Runs in the shield's workerd: the object named in the path answers the stub's own URL. */
const GATEWAY_SCRIPT = `
export default {
  fetch(request, env) {
    const url = new URL(request.url);
    const name = decodeURIComponent(url.pathname.slice(1));
    const target = url.searchParams.get(${JSON.stringify(URL_PARAM)});
    if (!name || !target) return new Response('expected /<object name>?url=<the stub URL>', { status: 400 });
    return env.STORE.get(env.STORE.idFromName(name)).fetch(target, request);
  },
};
`;
