// The shield worker's entrypoints, wiring only (shield-app.ts handles the requests): the default one the edge's
// binding calls, the slices entrypoint Workers Cache fronts, and the stats store (deployed first, bound by name).

import type { ShieldEnv } from './env.ts';
import { handleShield } from './shield-app.ts';

export { ShieldSlices } from './slices-entrypoint.ts';
export { StatsStore } from './stats-store.ts';

export default {
  fetch: (request, env, ctx) => handleShield(request, env, ctx, 'gateway'),
} satisfies ExportedHandler<ShieldEnv>;
