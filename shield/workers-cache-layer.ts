// Workers Cache around the shield's app (docs/deploying.md "What each cache holds"): the one place that knows which of
// the shield's two entrypoints runs. The default one (the gateway, which the edge's binding calls) hands a slice
// request whose answer may be kept to the slices entrypoint through Workers Cache before its app runs, and everything
// else to its app; the slices entrypoint runs the app with its answers marked for Workers Cache, and is the one that
// purges it. So a miss there is answered once, by the slices entrypoint, and a hit without running the app at all.

import { fromTheEdge } from '../shared/admission/tier-credentials.ts';
import { CREDENTIAL_HEADER, HOST_HEADER } from '../shared/hop/hop-fields.ts';
import { parseSliceRequestPath, type SliceRequest } from '../shared/hop/slice-protocol.ts';
import { WORKERS_CACHE_PURGE_PATH } from '../shared/request/reserved-paths.ts';
import type { ShieldEnv, ShieldRequest } from './env.ts';
import { objectTarget } from './object-target.ts';
import { handleShield, refusal, type ShieldHandler, SLICES_ENTRYPOINT, shieldApp } from './shield-app.ts';
import { shieldKey } from './shield-cache.ts';
import { asObjectRequest } from './shield-tier.ts';
import { markForWorkersCache, purgeWorkersCache, unmarkedNotKept } from './workers-cache-answer.ts';
import {
  keptByWorkersCache,
  purgeInFront,
  type SlicesEntry,
  viaWorkersCache,
  workersCacheKey,
} from './workers-cache-gateway.ts';

/** A slice request Workers Cache may answer: what it asks for, and the key its answer is kept under. */
interface KeptRequest {
  sliced: { request: SliceRequest };
  key: string;
}

/**
 * Each entrypoint's handler: `app` (the shield's, shield-app.ts) inside what its place, in front of Workers Cache or
 * behind it, adds.
 */
export const workersCacheLayer = {
  /**
   * The default entrypoint: with Workers Cache on (SHIELD_WORKERS_CACHE) and the slices entrypoint there, a request
   * it may answer goes through it (workers-cache-gateway.ts); everything else goes to `app`, whose purge then reaches
   * Workers Cache too (purgeInFront).
   */
  gateway(
    request: Request,
    env: ShieldEnv,
    ctx: ExecutionContext,
    app: ShieldHandler = shieldApp,
  ): Response | Promise<Response> {
    return handleShield(request, env, ctx, front(app));
  },

  /**
   * The slices entrypoint: `app`, each slice answer marked for the Workers Cache in front of it and anything unmarked
   * (an error, a refusal) kept by none (workers-cache-answer.ts), and the Workers Cache purge, which only this
   * entrypoint can make: a purge is scoped to the entrypoint that calls it
   * (developers.cloudflare.com/workers/cache/purge/).
   */
  slices(request: Request, env: ShieldEnv, ctx: ExecutionContext, app: ShieldHandler = shieldApp): Promise<Response> {
    const ownEndpoints = new Map([[WORKERS_CACHE_PURGE_PATH, (asked: Request) => purgeWorkersCache(asked, ctx.cache)]]);
    const marked: ShieldHandler = (asked, shield, context) =>
      app(asked, { ...shield, answered: markForWorkersCache, ownEndpoints }, context);
    return Promise.resolve(handleShield(request, env, ctx, marked)).then(unmarkedNotKept);
  },
};

/** Workers Cache's front, before `app`: what it may answer goes to the slices entrypoint through it. */
function front(app: ShieldHandler): ShieldHandler {
  return (request, shield, ctx) => {
    const slices = shield.workersCache
      ? (ctx.exports as unknown as Record<string, SlicesEntry | undefined>)[SLICES_ENTRYPOINT]
      : undefined;
    if (slices === undefined) return app(request, shield, ctx);
    const kept = keptRequest(request, shield);
    if (kept !== undefined) return throughWorkersCache(request, shield, slices, kept);
    return app(request, { ...shield, purgeInFront: purgeInFront(slices, shield.config.shieldToken) }, ctx);
  };
}

/**
 * `request` as Workers Cache may answer it, or undefined: the app answers it. Only a slice request from the edge
 * whose answer may be kept (keptByWorkersCache), keyed by the object it names as the read path names it
 * (object-target.ts). A hit there never runs the app, so what the app refuses first it keeps for the app to refuse:
 * a request without the edge's credential (shield-app.ts), a host that reads no bucket (its 421), a malformed target.
 */
function keptRequest(request: Request, shield: ShieldRequest): KeptRequest | undefined {
  if (!fromTheEdge(request.headers.get(CREDENTIAL_HEADER), shield.config.shieldToken)) return undefined;
  try {
    const url = new URL(request.url);
    const sliced = parseSliceRequestPath(url.pathname);
    if (!keptByWorkersCache(request, sliced)) return undefined;
    const host = request.headers.get(HOST_HEADER) ?? '';
    const { origin, target } = objectTarget(shield.config, host, request.method, url, sliced);
    return { sliced, key: workersCacheKey(sliced.request, shieldKey(origin, target)) };
  } catch {
    return undefined;
  }
}

/** Workers Cache's answer, as a request for an object is answered; the slices entrypoint not answering is a refusal. */
async function throughWorkersCache(
  request: Request,
  shield: ShieldRequest,
  slices: SlicesEntry,
  { sliced, key }: KeptRequest,
): Promise<Response> {
  const started = Date.now();
  try {
    // On the clock the slices entrypoint stamps its answers' Age by (workers-cache-gateway.ts restored).
    return await asObjectRequest(request, sliced, shield.meter, () =>
      viaWorkersCache(request, slices, key, shield.meter, shield.clock.now()),
    );
  } catch (error) {
    return refusal(error, request.method, started);
  }
}
