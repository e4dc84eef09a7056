// The local stack's front: what stands before a Worker in production (Cloudflare's edge parses every
// request before a Worker runs), here a TCP relay on the printed port before the edge's own workerd socket.

import { createServer, type Server, type Socket } from 'node:net';
import { FRONT_HEADER } from '../shared/hop/hop-fields.ts';
import { type RelayOptions, relay } from './relay.ts';

export interface FrontOptions {
  /** The workerd socket it stands before (the edge's, or the shield's). */
  upstream: RelayOptions['upstream'];
  /** The value of FRONT_HEADER. */
  token: string;
  /** What `OPTIONS *` answers in Allow. */
  allow: string;
  host: string;
  /** 0 = any free port. */
  port: number;
  /** How long a request head may take (relay.ts: FRONT_HEAD_TIMEOUT_MS unless set). */
  headTimeoutMs?: number;
}

export interface Front {
  url: string;
  close(): Promise<void>;
}

/**
 * A front on `host:port` before `upstream`. Each request head is read by request-head.ts and
 * forwarded re-written in one spelling, with a field that proves to the edge it came through here
 * (the edge's socket refuses requests without it); bodies are forwarded by their framing (a chunked
 * one read whole first and sent on with a Content-Length, chunked-body.ts). A refused request gets
 * a short 4xx once the answers before it are out, and the connection is closed: nothing after it is
 * read. Answers pass back byte for byte. Each connection is relayed by relay.ts. The shield's
 * printed port is a front too, before the shield's own socket (workers.ts).
 */
export async function startFront(options: FrontOptions): Promise<Front> {
  const sockets = new Set<Socket>();
  const relayOptions: RelayOptions = {
    upstream: options.upstream,
    token: { name: FRONT_HEADER, value: options.token },
    allow: options.allow,
    ...(options.headTimeoutMs !== undefined ? { headTimeoutMs: options.headTimeoutMs } : {}),
  };
  // No Nagle on either side: a relay that holds back small writes adds a round of latency to each answer.
  const server: Server = createServer({ noDelay: true }, (client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    relay(client, relayOptions, sockets);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  return {
    url: `http://${options.host}:${port}`,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
