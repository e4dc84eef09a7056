// The shield worker's entrypoints, wiring only (shield-app.ts handles the requests, inside each entrypoint's place
// around Workers Cache: workers-cache-layer.ts): the default one the edge's binding calls, the slices entrypoint
// Workers Cache fronts, and the stats store (deployed first, bound by name).

import type { ShieldEnv } from './env.ts';
import { workersCacheLayer } from './workers-cache-layer.ts';

export { ShieldSlices } from './slices-entrypoint.ts';
export { StatsStore } from './stats-store.ts';

export default {
  fetch: (request, env, ctx) => workersCacheLayer.gateway(request, env, ctx),
} satisfies ExportedHandler<ShieldEnv>;
