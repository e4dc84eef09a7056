// The naive single-tier baseline with no origin, one worker: what is measured is the runtime and the local layers
// around it.

const BODY_BYTES = 20 * 1024;
const MAP_KEYS = 16;
const CACHE_CONTROL = 'public, max-age=3600';

/** caches.default is Cloudflare's; the type is declared here so the file checks under DOM types too. */
interface DefaultCache {
  match(request: Request): Promise<Response | undefined>;
  put(request: Request, response: Response): Promise<void>;
}

let bodies: Map<string, Uint8Array<ArrayBuffer>> | undefined;

export default {
  async fetch(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    const [, route, key = '0'] = pathname.split('/');
    if (request.method !== 'GET') return new Response('expected GET\n', { status: 405 });
    if (route === 'map') return fromMap(key);
    if (route === 'cache') return fromCache(request);
    return new Response(`expected /map/<n> or /cache/<n>, got ${pathname}\n`, { status: 404 });
  },
};

/** `GET /map/<n>`: from a global Map, built once, at first use. */
function fromMap(key: string): Response {
  bodies ??= new Map(Array.from({ length: MAP_KEYS }, (_, i) => [String(i), body(String(i))]));
  const stored = bodies.get(key) ?? body(key);
  return new Response(stored, {
    headers: { 'Content-Type': 'application/octet-stream', 'Cache-Control': CACHE_CONTROL },
  });
}

/** `GET /cache/<n>`: from caches.default, filled on a miss with the same body. */
async function fromCache(request: Request): Promise<Response> {
  const cache = (globalThis.caches as unknown as { default: DefaultCache }).default;
  const hit = await cache.match(request);
  if (hit) return hit;
  const response = new Response(body(new URL(request.url).pathname), {
    headers: { 'Content-Type': 'application/octet-stream', 'Cache-Control': CACHE_CONTROL },
  });
  await cache.put(request, response.clone());
  return response;
}

/** BODY_BYTES bytes, the same for the same key. */
function body(key: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(BODY_BYTES);
  const seed = [...key].reduce((sum, c) => sum + c.charCodeAt(0), 0);
  for (let i = 0; i < BODY_BYTES; i++) bytes[i] = (seed + i) % 251;
  return bytes;
}
