// The least a cache tier can do on a miss, as a Worker: look up caches.default, else ask the next hop (the SHIELD
// binding at an edge, ORIGIN_URL at a shield), answer its stream and store a copy. No slices, no stats, no checks:
// what the runtime and the local Cache API simulator cost a miss by themselves (bench/miss-hops.ts).

interface Env {
  SHIELD?: { fetch(input: string): Promise<Response> };
  ORIGIN_URL?: string;
}

/** caches.default is Cloudflare's; declared here so the file checks under DOM types too. */
interface DefaultCache {
  match(request: Request): Promise<Response | undefined>;
  put(request: Request, response: Response): Promise<void>;
}

interface Context {
  waitUntil(promise: Promise<unknown>): void;
}

export default {
  async fetch(request: Request, env: Env, context: Context): Promise<Response> {
    const cache = (caches as unknown as { default: DefaultCache }).default;
    const key = new Request(request.url);
    const hit = await cache.match(key);
    if (hit !== undefined) return hit;
    const answer =
      env.SHIELD !== undefined
        ? await env.SHIELD.fetch(request.url)
        : await fetch(`${env.ORIGIN_URL ?? ''}${new URL(request.url).pathname}`);
    if (answer.body === null || answer.status !== 200) return answer;
    const [toClient, toCache] = answer.body.tee();
    const headers = new Headers(answer.headers);
    context.waitUntil(cache.put(key, new Response(toCache, { status: 200, headers })));
    return new Response(toClient, { status: 200, headers });
  },
};

/** The stats store's class name, which the sim's shield process binds (bench/sim/shield-process.ts): here, inert. */
export class StatsStore {
  fetch(): Response {
    return new Response('{}');
  }
}
