// The local front (local/front.ts, what `npm start` puts before the edge) before a bare stack's
// edge socket: one edge, one isolate, measured on its own socket and through the front in one run.

import { randomUUID } from 'node:crypto';
import { LOOPBACK } from '../../local/direct-miniflare.ts';
import { type Front, startFront } from '../../local/front.ts';

/**
 * What `OPTIONS *` answers with ORIGIN_KIND=http (local/workers.ts), the benchmarks' origin kind.
 * The edge behind has no LOCAL_FRONT_TOKEN bound (a bare stack, as deployed), so the front's field
 * is forwarded and not checked; under `npm start` the edge checks it and the hop is a Unix socket.
 */
const ALLOW = 'GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE';

/** A front on a free loopback port, relaying to the edge's workerd socket at `edgeUrl` (`http://127.0.0.1:PORT`). */
export function frontBefore(edgeUrl: string): Promise<Front> {
  const { hostname, port } = new URL(edgeUrl);
  return startFront({
    upstream: { host: hostname, port: Number(port) },
    token: randomUUID(),
    allow: ALLOW,
    host: LOOPBACK,
    port: 0,
  });
}
