// The edge as the local stack runs it: the deployed edge (worker/index.ts) wrapped in what only the local stack has,
// each where its binding is. Behind the front (front.ts), its workerd socket answers only what came through the front,
// which names itself with LOCAL_FRONT_TOKEN in FRONT_HEADER; anything else reached that socket directly (another user
// of the machine, a script that skipped the printed port) and gets a 403. With a test clock (TEST_CLOCK), the edge
// judges freshness and purges by it (test-clock.ts). The harness wraps the worker: the deployed edge knows neither.

import { throughTheFront } from '../shared/admission/tier-credentials.ts';
import { FRONT_HEADER } from '../shared/hop/hop-fields.ts';
import { Forbidden } from '../shared/http/errors.ts';
import type { EdgeEnv } from '../worker/env.ts';
import edge from '../worker/index.ts';
import { type TestClockEnv, testClocked } from './test-clock.ts';

interface LocalEdgeEnv extends EdgeEnv, TestClockEnv {
  /** The front's proof (local/workers.ts binds it per run); unbound, every request is let through. */
  LOCAL_FRONT_TOKEN?: string;
}

const clocked = testClocked<LocalEdgeEnv>();

export default {
  fetch(request, env, ctx) {
    if (!throughTheFront(request.headers.get(FRONT_HEADER), env.LOCAL_FRONT_TOKEN)) {
      return new Forbidden(
        'this socket answers only the local front: send requests to the port tiercache printed',
      ).toResponse(request.method);
    }
    const local = clocked(env);
    if (local === undefined) return edge.fetch(request, env, ctx);
    return local.clock.ask().then(() => edge.fetch(request, local.env, ctx));
  },
} satisfies ExportedHandler<LocalEdgeEnv>;
