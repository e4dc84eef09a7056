// The shield as the local stack runs it: the deployed shield (shield/index.ts), its entrypoints wrapped so that with a
// test clock (TEST_CLOCK) it judges freshness and purges by it (test-clock.ts), and its stats store as it is. The
// harness wraps the worker: the deployed shield knows nothing of the test clock.

import type { ShieldEnv } from '../shield/env.ts';
import shield, { ShieldSlices as DeployedSlices } from '../shield/index.ts';
import { type TestClock, type TestClockEnv, testClocked } from './test-clock.ts';

// The script's Durable Object (the edge binds it by script name), unchanged: it judges nothing by the clock.
export { StatsStore } from '../shield/index.ts';

type LocalShieldEnv = ShieldEnv & TestClockEnv;

const clocked = testClocked<LocalShieldEnv>();

export default {
  fetch(request, env, ctx) {
    const local = clocked(env);
    if (local === undefined) return shield.fetch(request, env, ctx);
    return local.clock.ask().then(() => shield.fetch(request, local.env, ctx));
  },
} satisfies ExportedHandler<LocalShieldEnv>;

/**
 * The slices entrypoint (the gateway calls it through `ctx.exports`, by this name), run with the test clock's bindings
 * where one is bound, the clock asked before each request as the default entrypoint asks it.
 */
export class ShieldSlices extends DeployedSlices {
  readonly #clock: TestClock | undefined;

  constructor(ctx: ExecutionContext, env: LocalShieldEnv) {
    const local = clocked(env);
    super(ctx, local?.env ?? env);
    this.#clock = local?.clock;
  }

  override async fetch(request: Request): Promise<Response> {
    await this.#clock?.ask();
    return super.fetch(request);
  }
}
