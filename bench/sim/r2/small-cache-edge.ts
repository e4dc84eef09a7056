// The edge as `npm run sim --r2-tier` runs it: the deployed edge (worker/index.ts), its Cache API bounded to
// SIM_EDGE_CACHE_BYTES (bounded-caches.ts) as a busy location's would evict. Bundled by tiercache-system.ts.

import edge from '../../../worker/index.ts';
import { boundCaches } from './bounded-caches.ts';

let budget: number | undefined;
boundCaches((name) => (name === 'tiercache-edge' ? budget : undefined));

export default {
  fetch(request: Request, env: Record<string, unknown>, ctx: unknown) {
    budget ??= Number(env.SIM_EDGE_CACHE_BYTES);
    return (edge.fetch as (request: Request, env: unknown, ctx: unknown) => Promise<Response>)(request, env, ctx);
  },
};
