// The shield as `npm run sim --r2-tier` runs it: the deployed shield (shield/index.ts), its Cache API bounded to
// SIM_SHIELD_CACHE_BYTES (bounded-caches.ts), its R2 tier's bucket counted (r2-tally.ts) and the tally answered at
// R2_TALLY_PATH, which only the runner reaches (the shield's process has no route). Bundled by tiercache-system.ts.

import shield from '../../../shield/index.ts';
import { boundCaches } from './bounded-caches.ts';
import { countedBucket, R2_TALLY_PATH, tally } from './r2-tally.ts';

export { ShieldSlices, StatsStore } from '../../../shield/index.ts';

let budget: number | undefined;
boundCaches((name) => (name === 'tiercache-shield' ? budget : undefined));

/** The env with its bucket counted, one per env (the shield parses an env once: shield/env.ts). */
const counted = new WeakMap<object, Record<string, unknown>>();

export default {
  async fetch(request: Request, env: Record<string, unknown>, ctx: unknown): Promise<Response> {
    budget ??= Number(env.SIM_SHIELD_CACHE_BYTES);
    const bucket = env.R2_TIER as Parameters<typeof countedBucket>[0] | undefined;
    if (new URL(request.url).pathname === R2_TALLY_PATH)
      return Response.json(bucket === undefined ? null : await tally(bucket));
    let wrapped = counted.get(env);
    if (wrapped === undefined) {
      wrapped = bucket === undefined ? env : { ...env, R2_TIER: countedBucket(bucket) };
      counted.set(env, wrapped);
    }
    return (shield.fetch as (request: Request, env: unknown, ctx: unknown) => Promise<Response>)(request, wrapped, ctx);
  },
};
