// A TCP pass-through in front of a tier that notes, for each exchange on each connection, when the request's first
// byte passed and when its response's first byte did: where a first byte's time goes, hop by hop (bench/miss-hops.ts).

import { type AddressInfo, connect, createServer, type Socket } from 'node:net';

export interface TapExchange {
  /** performance.now() as the request's first byte passed. */
  requestAt: number;
  /** performance.now() as the response's first byte passed; undefined until then. */
  responseAt?: number;
  /** The request line. */
  line: string;
}

export interface Tap {
  url: string;
  exchanges: TapExchange[];
  close(): Promise<void>;
}

/** A tap in front of `target` (`http://127.0.0.1:PORT`): connect to `url` instead. */
export async function startTap(target: string): Promise<Tap> {
  const { hostname, port } = new URL(target);
  const exchanges: TapExchange[] = [];
  const sockets = new Set<Socket>();
  const server = createServer({ noDelay: true }, (client) => {
    const upstream = connect({ host: hostname, port: Number(port), noDelay: true });
    let current: TapExchange | undefined;
    // HTTP/1.1 without pipelining: the client speaks, then the upstream answers.
    let clientTurn = false;
    client.on('data', (chunk: Buffer) => {
      if (!clientTurn) {
        clientTurn = true;
        current = { requestAt: performance.now(), line: chunk.toString('latin1', 0, 200).split('\r\n')[0] ?? '' };
        exchanges.push(current);
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (clientTurn && current !== undefined) current.responseAt = performance.now();
      clientTurn = false;
      client.write(chunk);
    });
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.on('end', () => to.end());
      from.on('error', () => to.destroy());
      from.on('close', () => sockets.delete(from));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exchanges,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
