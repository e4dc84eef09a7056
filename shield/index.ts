// The shield worker's entrypoints, wiring only (shield-app.ts handles the requests): the
// default one, which the edge's service binding calls, and the slices entrypoint Workers Cache
// fronts (slices-entrypoint.ts). The stats store lives in this script too (deployed first);
// the edge binds it by script name.

import type { ShieldEnv } from './env.ts';
import { handleShield } from './shield-app.ts';

export { ShieldSlices } from './slices-entrypoint.ts';
export { StatsStore } from './stats-store.ts';

export default {
  fetch: (request, env, ctx) => handleShield(request, env, ctx, 'gateway'),
} satisfies ExportedHandler<ShieldEnv>;
