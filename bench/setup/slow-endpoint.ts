// One origin endpoint for bench:hedge: a proxy on loopback in front of the S3 server that forwards each request as it
// came (every header byte, so a SigV4 signature over Host still verifies), holds back the head of the answers `slow`
// picks, and counts what it sent: each answer's body bytes written while its connection was open, and whether the
// tier gave the request up before the answer was all sent (a hedge's loser, cancelled).

import { createServer, request as httpRequest } from 'node:http';
import { closeServer, listen } from '../../local/server.ts';

/** What one request cost the endpoint. */
interface EndpointAnswer {
  /** The path asked (no query). */
  path: string;
  /** Body bytes written to the tier while its connection was open. */
  bytes: number;
  /** The tier closed the connection before the answer was all sent. */
  gaveUp: boolean;
  held: boolean;
}

export interface SlowEndpoint {
  url: string;
  answers: EndpointAnswer[];
  close(): Promise<void>;
}

/** A request as the endpoint sees it, for `slow` to pick: its place in the endpoint's order (from 0), and what it asks. */
export interface AskedOfEndpoint {
  n: number;
  method: string;
  path: string;
  range: string | undefined;
}

/** `slow(request)`: whether the request has its head held back `holdMs`. */
export async function startSlowEndpoint(
  target: string,
  holdMs: number,
  slow: (request: AskedOfEndpoint) => boolean,
): Promise<SlowEndpoint> {
  const origin = new URL(target);
  const answers: EndpointAnswer[] = [];
  const server = createServer((incoming, outgoing) => {
    const path = (incoming.url ?? '/').split('?')[0] ?? '/';
    const asked = { n: answers.length, method: incoming.method ?? 'GET', path, range: incoming.headers.range };
    const answer: EndpointAnswer = { path, bytes: 0, gaveUp: false, held: slow(asked) };
    answers.push(answer);
    let open = true;
    outgoing.once('close', () => {
      open = false;
      if (!outgoing.writableFinished) answer.gaveUp = true;
    });
    const forward = (): void => {
      if (!open) return void incoming.resume();
      const upstream = httpRequest({
        host: origin.hostname,
        port: origin.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.rawHeaders,
      });
      upstream.once('response', (response) => {
        if (!open) return void response.destroy();
        outgoing.writeHead(response.statusCode ?? 502, response.statusMessage, response.rawHeaders);
        response.on('data', (chunk: Buffer) => {
          if (!open) return void response.destroy();
          answer.bytes += chunk.length;
          outgoing.write(chunk);
        });
        response.once('end', () => outgoing.end());
        response.once('error', () => outgoing.destroy());
      });
      upstream.once('error', () => outgoing.destroy());
      incoming.pipe(upstream);
    };
    if (answer.held) setTimeout(forward, holdMs);
    else forward();
  });
  const url = await listen(server, 0);
  return { url, answers, close: () => closeServer(server) };
}
