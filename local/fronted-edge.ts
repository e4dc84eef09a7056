// The edge as the local stack serves it behind its front (front.ts): its workerd socket answers only what came through
// the front, which names itself with LOCAL_FRONT_TOKEN in FRONT_HEADER; anything else reached that socket directly
// (another user of the machine, a script that skipped the printed port) and gets a 403. The harness wraps the worker:
// the deployed edge (worker/index.ts) has no front and knows nothing of it.

import { throughTheFront } from '../shared/admission/tier-credentials.ts';
import { FRONT_HEADER } from '../shared/hop/hop-fields.ts';
import { Forbidden } from '../shared/http/errors.ts';
import type { EdgeEnv } from '../worker/env.ts';
import edge from '../worker/index.ts';

export interface FrontedEdgeEnv extends EdgeEnv {
  /** The front's proof (local/workers.ts binds it per run); unbound, every request is let through. */
  LOCAL_FRONT_TOKEN?: string;
}

export default {
  fetch(request, env, ctx) {
    if (!throughTheFront(request.headers.get(FRONT_HEADER), env.LOCAL_FRONT_TOKEN)) {
      return new Forbidden(
        'this socket answers only the local front: send requests to the port tiercache printed',
      ).toResponse(request.method);
    }
    return edge.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<FrontedEdgeEnv>;
