// A stand-in for the edge's two endpoints: a node:http server on 127.0.0.1, port 0, answering
// each request with what the test scripts (status, headers, body), or not at all (`silent`),
// and recording what it received, so a test sees the request the CLI built as it arrived.

import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { statsSample } from './stats-sample.ts';

export interface Received {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export type Answer = { status: number; headers?: Record<string, string>; body: string } | 'silent';

export interface FakeEdge {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

export async function startFakeEdge(answer: (request: Received) => Answer): Promise<FakeEdge> {
  const received: Received[] = [];
  const server = createServer(async (req, res) => {
    const request: Received = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: flatten(req.headers),
      body: await readBody(req),
    };
    received.push(request);
    const scripted = answer(request);
    if (scripted === 'silent') return;
    res.writeHead(scripted.status, scripted.headers ?? {});
    res.end(scripted.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A URL on 127.0.0.1 where nothing listens: a port just given back by a server that closed. */
export async function unreachableUrl(): Promise<string> {
  const edge = await startFakeEdge(() => ({ status: 200, body: '' }));
  await edge.close();
  return edge.url;
}

export function json(status: number, value: unknown): Answer {
  return { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) };
}

/** What tiercache's own refusals look like (shared/http/errors.ts HttpError.toResponse). */
export function plain(status: number, message: string, headers: Record<string, string> = {}): Answer {
  return {
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers },
    body: `${status} ${message}\n`,
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function flatten(headers: IncomingMessage['headers']): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')]),
  );
}

/** A fake edge answering stats.json with the sample hour and every purge as one of everything. */
export function startStatsAndPurgeEdge(): Promise<FakeEdge> {
  return startFakeEdge((request) =>
    request.path === '/__tiercache/stats.json'
      ? json(200, statsSample())
      : json(200, {
          purged: { urls: [], prefixes: [], tags: [], everything: true },
          at: 0,
          reachesEveryLocationWithin: '65s',
        }),
  );
}
