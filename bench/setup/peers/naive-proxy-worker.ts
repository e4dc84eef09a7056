// The naive single-tier baselines, one worker run twice in front of the benchmark's origin (ORIGIN_URL): the floor
// tiercache's edge hits are measured against, same runtime. Origin-less twin: ../layers/naive-originless-worker.ts.

interface Env {
  ORIGIN_URL: string;
  NAIVE_MODE: string;
}

/** caches.default is Cloudflare's; declared here so the file checks under DOM types too. */
interface DefaultCache {
  match(request: Request): Promise<Response | undefined>;
  put(request: Request, response: Response): Promise<void>;
}

/**
 * Kept in the forms workerd answers fastest (bench:hit-cost): a Headers to copy, not name/value
 * pairs (~20 µs less per response), and a Blob, which a response does not copy as it does an
 * ArrayBuffer. The baseline is meant as the runtime's ceiling, so it gets what tiercache gets.
 */
interface Kept {
  status: number;
  headers: Headers;
  body: Blob;
}

/** The origin's fields worth serving again; hop-by-hop and framing ones are the runtime's. */
const KEPT_FIELDS = ['content-type', 'cache-control', 'etag', 'last-modified', 'accept-ranges'];

const kept = new Map<string, Kept>();

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    if (request.method !== 'GET') return new Response('expected GET\n', { status: 405 });
    const { pathname, search } = new URL(request.url);
    const upstream = new URL(pathname + search, env.ORIGIN_URL);
    // No slices, no revalidation, no collapsed misses.
    if (env.NAIVE_MODE === 'map') return fromMap(upstream);
    if (env.NAIVE_MODE === 'cache') return fromCache(request, upstream);
    return new Response(`NAIVE_MODE must be map or cache, got ${env.NAIVE_MODE}\n`, { status: 500 });
  },
};

/** NAIVE_MODE=map: the first request for a URL fetches and keeps the whole body, later ones are served from memory. */
async function fromMap(upstream: URL): Promise<Response> {
  let entry = kept.get(upstream.href);
  if (!entry) {
    const response = await fetch(upstream);
    const fresh: Kept = {
      status: response.status,
      headers: new Headers(keptHeaders(response.headers)),
      body: new Blob([await response.arrayBuffer()]),
    };
    if (response.status !== 200) return new Response(fresh.body, { status: fresh.status, headers: fresh.headers });
    kept.set(upstream.href, fresh);
    entry = fresh;
  }
  return new Response(entry.body, { status: entry.status, headers: entry.headers });
}

/** NAIVE_MODE=cache: caches.default in front of the origin (match; on a miss fetch, put, serve). */
async function fromCache(request: Request, upstream: URL): Promise<Response> {
  const cache = (globalThis.caches as unknown as { default: DefaultCache }).default;
  const hit = await cache.match(request);
  if (hit) return hit;
  const response = await fetch(upstream);
  const served = new Response(response.body, { status: response.status, headers: keptHeaders(response.headers) });
  if (response.status !== 200) return served;
  await cache.put(request, served.clone());
  return served;
}

function keptHeaders(headers: Headers): [string, string][] {
  return KEPT_FIELDS.flatMap((name) => {
    const value = headers.get(name);
    return value === null ? [] : [[name, value] as [string, string]];
  });
}
