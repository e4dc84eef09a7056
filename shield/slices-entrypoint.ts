// The shield's entrypoint that Workers Cache fronts (docs/deploying.md "What each cache holds"), called only by the
// shield's own default entrypoint (workers-cache-layer.ts) through `ctx.exports`.

import { WorkerEntrypoint } from 'cloudflare:workers';
import type { ShieldEnv } from './env.ts';
import { workersCacheLayer } from './workers-cache-layer.ts';

/**
 * Runs the shield's app (shield-app.ts), its answers marked for Workers Cache, and is the one that can purge Workers
 * Cache: a purge is scoped to the entrypoint that calls it (developers.cloudflare.com/workers/cache/purge/).
 */
export class ShieldSlices extends WorkerEntrypoint<ShieldEnv> {
  override fetch(request: Request): Promise<Response> {
    return workersCacheLayer.slices(request, this.env, this.ctx);
  }
}
