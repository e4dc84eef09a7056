// The server the load generators are checked against (generators.test.ts, loss-and-duration.check.ts):
// node:http on a loopback port answering 20 KiB, closing keep-alive connections left idle for
// 100 ms as workerd does (after some seconds), and counting every request it saw. Some paths
// script what the generators must count:
//   /stagger          every tenth answer comes late: only once the server has closed a connection
//                     left idle since that request came (or after 5 s, if none ever idles)
//   /lose-<n>         the n-th request (counted from resetCounts) has its connection closed under it
//   /redirect-small   every seventh answered 302 with a short body, the rest 20 KiB
//   /redirect-large   the same, the rest 2 MiB
//   /tiers            Cache-Status and Server-Timing from TIER_ANSWERS, in turn
// The server shares its process's CPU with the generator: the rates are a floor.

import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export const BODY = Buffer.alloc(20 * 1024, 'x');
export const LARGE_BODY = Buffer.alloc(2 * 1024 * 1024, 'y');
/** Every seventh request to /redirect-* is answered 302 with a short body. */
const REDIRECT_EVERY = 7;
const IDLE_CLOSE_MS = 100;
/** A late /stagger answer waits at most this long for an idle connection to be closed. */
const LATE_CEILING_MS = 5_000;
/** …and then this long, so that the client reads the close before the answer that ends its run. */
const AFTER_CLOSE_MS = 20;

/** Per request to /tiers, in turn: what the edge and the shield said, and the times they report. */
const TIER_ANSWERS = [
  { status: 'tiercache-edge; hit; ttl=60', timing: 'edge;dur=1' },
  {
    status: 'tiercache-shield; hit; detail="a; b", tiercache-edge; fwd=miss; stored',
    timing: 'shield;dur=3, edge;dur=1',
  },
  {
    status: 'tiercache-shield; fwd=miss; stored, tiercache-edge; fwd=miss; stored',
    timing: 'origin;dur=10, shield;dur=3, edge;dur=1',
  },
  {
    status: 'tiercache-shield; fwd=stale, tiercache-edge; fwd=stale',
    timing: 'origin;dur=10, shield;dur=3, edge;dur=1;desc="x"',
  },
] as const;

export interface ScriptedServer {
  /** `http://127.0.0.1:PORT/object.bin`: 20 KiB. */
  url: string;
  /** `path` on this server. */
  at(path: string): string;
  /** Requests seen so far, on every path. */
  served(): number;
  /** Starts the /lose-<n> and /redirect-* counts again. */
  resetCounts(): void;
  close(): Promise<void>;
}

export async function startScriptedServer(): Promise<ScriptedServer> {
  let served = 0;
  let tierRequests = 0;
  let redirectRequests = 0;
  let staggerRequests = 0;
  let loseRequests = 0;
  const idle = new WeakMap<object, NodeJS.Timeout>();
  // Late /stagger answers waiting for a connection that went idle after they came to be closed.
  const awaitingClose = new Map<() => void, number>();
  const closeIdle = (socket: Socket, idleSince: number) => {
    if (socket.destroyed || socket.readableEnded) return;
    socket.end();
    for (const [release, came] of awaitingClose) if (came <= idleSince) release();
  };
  const server = createServer((request, response) => {
    served++;
    clearTimeout(idle.get(request.socket));
    response.on('finish', () => {
      const idleSince = performance.now();
      idle.set(
        request.socket,
        setTimeout(() => closeIdle(request.socket, idleSince), IDLE_CLOSE_MS),
      );
    });
    if (request.url?.startsWith('/lose-') && ++loseRequests === Number(request.url.slice('/lose-'.length)))
      return void request.socket.destroy();
    if (request.url === '/stagger') {
      // Every tenth answer comes late, once connections done with their share have sat idle and
      // one was closed: however slow the machine, the client sees a close while it still waits.
      const answer = () => void response.writeHead(200, { 'content-length': BODY.length }).end(BODY);
      if (++staggerRequests % 10 !== 0) return answer();
      const release = () => {
        awaitingClose.delete(release);
        clearTimeout(ceiling);
        setTimeout(answer, AFTER_CLOSE_MS);
      };
      const ceiling = setTimeout(release, LATE_CEILING_MS);
      return void awaitingClose.set(release, performance.now());
    }
    if (request.url?.startsWith('/redirect-')) {
      if (++redirectRequests % REDIRECT_EVERY === 0)
        return void response.writeHead(302, { location: '/object.bin', 'content-length': 5 }).end('moved');
      const body = request.url === '/redirect-large' ? LARGE_BODY : BODY;
      return void response
        .writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length })
        .end(body);
    }
    if (request.url === '/tiers') {
      const answer = TIER_ANSWERS[tierRequests++ % TIER_ANSWERS.length];
      response.setHeader('cache-status', answer?.status ?? '');
      response.setHeader('server-timing', answer?.timing ?? '');
    }
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': BODY.length }).end(BODY);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/object.bin`,
    at: (path) => `${base}${path}`,
    served: () => served,
    resetCounts: () => {
      loseRequests = 0;
      redirectRequests = 0;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
